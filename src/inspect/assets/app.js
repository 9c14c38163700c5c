// The inspector's page. Every server-supplied string goes in as text (textContent, text nodes):
// never innerHTML, never an attribute that loads or runs anything. Images only as data: URLs of
// an image/* type with base64 data. Links a server sends are shown as text, never opened.

/** An element with properties (no HTML) and children (strings become text nodes). */
function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "data") for (const [d, dv] of Object.entries(v)) node.dataset[d] = dv;
    else node[k] = v;
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}
const $ = (id) => document.getElementById(id);
/** Appends the children that are there (Node.append would write "null" for an absent one). */
const fill = (node, ...children) =>
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
const json = (v) => JSON.stringify(v, null, 2);
const pre = (v) => el("pre", {}, typeof v === "string" ? v : json(v));

async function api(path, body) {
  const init =
    body === undefined
      ? {}
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(path, { credentials: "same-origin", ...init });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}

// ---- views -------------------------------------------------------------------------------
for (const b of document.querySelectorAll("#tabs button")) {
  b.addEventListener("click", () => {
    for (const o of document.querySelectorAll("#tabs button")) o.classList.toggle("active", o === b);
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${b.dataset.view}`;
  });
}

async function loadServers() {
  const list = await api("/api/servers");
  $("view-servers").replaceChildren(
    ...list.map((s) =>
      el(
        "div",
        { class: "card server", data: { server: s.id } },
        el("h3", {}, s.id, " ", el("span", { class: `state-${s.state}` }, `(${s.state ?? "unknown"})`)),
        el(
          "div",
          {},
          el("span", { class: "badge" }, `era ${s.era ?? "-"}`),
          el("span", { class: "badge" }, `version ${s.version ?? "-"}`),
          s.serverInfo
            ? el("span", { class: "badge" }, `${s.serverInfo.name ?? ""} ${s.serverInfo.version ?? ""}`)
            : null,
        ),
        s.reason ? el("div", { class: "muted" }, s.reason) : null,
        s.instructions ? el("details", {}, el("summary", {}, "instructions"), pre(s.instructions)) : null,
        el("details", {}, el("summary", {}, "capabilities"), pre(s.capabilities ?? {})),
      ),
    ),
  );
}

/** The definitions seen at page load, to mark those that changed since. */
const firstSeen = new Map();

async function loadTools() {
  const { tools, manifests } = await api("/api/tools");
  $("manifests").replaceChildren(
    el(
      "div",
      { class: "card" },
      el("h3", {}, "What each model API receives"),
      ...["openai", "anthropic"].map((p) =>
        el(
          "details",
          {},
          el("summary", {}, `${p}: ${manifests[p].tools.length} tools, ${manifests[p].tokens ?? "?"} tokens`),
          pre(manifests[p].tools),
        ),
      ),
    ),
  );
  $("tools").replaceChildren(...tools.map(toolCard));
}

function toolCard(t) {
  const digest = json([t.description, t.inputSchema, t.outputSchema, t.annotations]);
  if (!firstSeen.has(t.name)) firstSeen.set(t.name, digest);
  const changed = firstSeen.get(t.name) !== digest;
  const form = schemaForm(t.inputSchema);
  const out = el("div", { class: "out" });
  const card = el(
    "div",
    { class: "card tool", data: { tool: t.name } },
    el("h3", {}, t.name),
    el(
      "div",
      {},
      changed ? el("span", { class: "badge warn changed" }, "changed since the page loaded") : null,
      el(
        "span",
        { class: `badge ${t.openaiStrict ? "ok" : "warn"}` },
        t.openaiStrict ? "OpenAI strict: yes" : "OpenAI strict: no (fallback)",
      ),
      el(
        "span",
        { class: "badge" },
        `tokens: OpenAI ${t.tokens.openai ?? "?"}, Anthropic ≈${t.tokens.anthropic ?? "?"}`,
      ),
      ...Object.entries(t.annotations ?? {}).map(([k, v]) =>
        el("span", { class: "badge" }, `${k}: ${String(v)}`),
      ),
    ),
    el("p", { class: "description" }, t.description ?? ""),
    el(
      "details",
      {},
      el("summary", {}, "schema"),
      pre({ inputSchema: t.inputSchema, outputSchema: t.outputSchema }),
    ),
    form.node,
    out,
  );
  form.node.addEventListener("submit", (e) => {
    e.preventDefault();
    let args;
    try {
      args = form.read();
    } catch (err) {
      out.replaceChildren(el("div", { class: "result error" }, String(err.message)));
      return;
    }
    runCall(t.name, args, out);
  });
  return card;
}

// ---- the form a schema makes ---------------------------------------------------------------
function schemaForm(schema) {
  const field = fieldFor(schema ?? {}, "arguments", true);
  const raw = el("textarea", { class: "raw", hidden: true, value: "{}" });
  const toggle = el("label", {}, el("input", { type: "checkbox", class: "raw-toggle" }), " raw JSON");
  toggle.firstChild.addEventListener("change", (e) => {
    raw.hidden = !e.target.checked;
    field.node.hidden = e.target.checked;
    if (e.target.checked) {
      try {
        raw.value = json(field.read() ?? {});
      } catch {
        /* keep what is there */
      }
    }
  });
  const node = el(
    "form",
    { class: "tool-form" },
    field.node,
    toggle,
    raw,
    el("button", { type: "submit", class: "call" }, "Call"),
  );
  return { node, read: () => (raw.hidden ? (field.read() ?? {}) : JSON.parse(raw.value || "{}")) };
}

/** A field for `schema`: { node, read() } where read gives the value (undefined when left empty). */
function fieldFor(schema, name, top = false, required = false) {
  const type = Array.isArray(schema.type) ? schema.type.find((x) => x !== "null") : schema.type;
  const label = (input) =>
    el(
      "label",
      {},
      el("span", {}, required ? `${name} *` : name),
      input,
      schema.description ? el("small", { class: "muted" }, ` ${schema.description}`) : null,
    );
  if (Array.isArray(schema.enum)) {
    const select = el(
      "select",
      { name },
      el("option", { value: "" }, "—"),
      ...schema.enum.map((v, i) => el("option", { value: String(i) }, JSON.stringify(v))),
    );
    return {
      node: label(select),
      read: () => (select.value === "" ? undefined : schema.enum[Number(select.value)]),
    };
  }
  if (type === "object" || (top && schema.properties)) {
    const required = new Set(schema.required ?? []);
    const fields = Object.entries(schema.properties ?? {}).map(([k, s]) => [
      k,
      fieldFor(s ?? {}, k, false, required.has(k)),
    ]);
    const node = top
      ? el("div", {}, ...fields.map(([, f]) => f.node))
      : el("fieldset", {}, el("legend", {}, name), ...fields.map(([, f]) => f.node));
    if (fields.length === 0 && !top) return rawField(name, label);
    return {
      node,
      read: () => {
        const o = {};
        for (const [k, f] of fields) {
          const v = f.read();
          if (v !== undefined) o[k] = v;
        }
        return Object.keys(o).length === 0 && !top ? undefined : o;
      },
    };
  }
  if (type === "string") {
    const input = el("input", { type: "text", name, value: schema.default ?? "" });
    return { node: label(input), read: () => (input.value === "" ? undefined : input.value) };
  }
  if (type === "number" || type === "integer") {
    const input = el("input", {
      type: "number",
      name,
      step: type === "integer" ? "1" : "any",
      value: schema.default ?? "",
    });
    return { node: label(input), read: () => (input.value === "" ? undefined : Number(input.value)) };
  }
  if (type === "boolean") {
    const input = el("input", { type: "checkbox", name, checked: schema.default === true });
    return { node: label(input), read: () => input.checked };
  }
  if (type === "array" && schema.items && typeof schema.items === "object") {
    const items = [];
    const list = el("div", { class: "items" });
    const add = el("button", { type: "button" }, "+ item");
    add.addEventListener("click", () => {
      const f = fieldFor(schema.items, `${name}[${items.length}]`);
      items.push(f);
      list.append(f.node);
    });
    return {
      node: el("fieldset", {}, el("legend", {}, name), list, add),
      read: () => (items.length ? items.map((f) => f.read()) : undefined),
    };
  }
  return rawField(name, label);
}

function rawField(name, label) {
  const area = el("textarea", { name, placeholder: "JSON" });
  return { node: label(area), read: () => (area.value.trim() === "" ? undefined : JSON.parse(area.value)) };
}

// ---- calls ----------------------------------------------------------------------------------
const running = new Map();

async function runCall(name, args, out) {
  const id = `c${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const bar = el("progress", { class: "progress", max: 1 });
  bar.removeAttribute("value");
  const note = el("span", { class: "muted progress-note" }, " running…");
  const cancel = el("button", { type: "button", class: "cancel" }, "Cancel");
  cancel.addEventListener("click", () => api("/api/cancel", { id }).catch(() => {}));
  out.replaceChildren(el("div", {}, bar, note, " ", cancel));
  running.set(id, { bar, note });
  try {
    const answer = await api("/api/call", { id, name, arguments: args });
    out.replaceChildren(
      answer.error
        ? el(
            "div",
            { class: "result error", data: { kind: answer.error.kind } },
            `${answer.error.kind}: ${answer.error.message}`,
          )
        : renderResult(answer.result),
    );
  } catch (err) {
    out.replaceChildren(el("div", { class: "result error" }, String(err.message)));
  } finally {
    running.delete(id);
  }
}

function renderResult(r) {
  const box = el(
    "div",
    { class: `result${r.isError ? " error" : ""}` },
    r.isError ? el("strong", { class: "is-error" }, "isError: the tool reports a failure") : null,
  );
  for (const c of r.content ?? []) {
    if (c.type === "text") box.append(el("pre", { class: "text" }, String(c.text ?? "")));
    else if (
      c.type === "image" &&
      /^image\/[a-z0-9.+-]+$/i.test(c.mimeType ?? "") &&
      /^[A-Za-z0-9+/=\s]*$/.test(c.data ?? "")
    ) {
      box.append(el("img", { src: `data:${c.mimeType};base64,${c.data}`, alt: "image from the tool" }));
    } else box.append(el("details", {}, el("summary", {}, `${String(c.type)} block`), pre(c)));
  }
  if (r.structured !== null && r.structured !== undefined)
    box.append(el("details", { open: true }, el("summary", {}, "structured content"), pre(r.structured)));
  return box;
}

// ---- search ---------------------------------------------------------------------------------
let searchTimer;
$("search").addEventListener("input", (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(async () => {
    const q = e.target.value.trim();
    if (!q) return $("search-results").replaceChildren();
    const found = await api(`/api/search?q=${encodeURIComponent(q)}`);
    $("search-results").replaceChildren(
      el(
        "div",
        { class: "card" },
        el("h3", {}, `search: ${q}`),
        el("ol", {}, ...found.map((f) => el("li", { class: "hit" }, `${f.name} (${f.score.toFixed(2)})`))),
      ),
    );
    document.querySelector('#tabs button[data-view="tools"]').click();
  }, 200);
});

async function loadCatalog() {
  const list = (id, items, line) =>
    $(id).replaceChildren(
      items.error
        ? el("div", { class: "muted" }, items.error.message)
        : el("ul", {}, ...items.map((x) => el("li", {}, line(x)))),
    );
  const [resources, templates, prompts] = await Promise.all(
    ["/api/resources", "/api/templates", "/api/prompts"].map((p) => api(p)),
  );
  list("resources", resources, (r) => `${r.serverId}: ${r.uri} ${r.name ?? ""} ${r.mimeType ?? ""}`);
  list("templates", templates, (r) => `${r.serverId}: ${r.uriTemplate} ${r.name ?? ""}`);
  list("prompts", prompts, (p) => `${p.serverId}: ${p.name} ${p.description ?? ""}`);
}

// ---- pending: approvals, forms, sampling -----------------------------------------------------
function pendingCard(p) {
  const answer = (a) => api("/api/answer", { id: p.id, answer: a }).catch(() => {});
  const card = el("div", { class: `dialog ${p.kind}`, data: { pending: p.id } });
  if (p.kind === "approval") {
    const allow = el("button", { type: "button", class: "allow" }, "Allow");
    const deny = el("button", { type: "button", class: "deny" }, "Deny");
    allow.addEventListener("click", () => answer({ allow: true }));
    deny.addEventListener("click", () => answer({ allow: false }));
    fill(
      card,
      el("strong", {}, `${p.serverId} wants to run ${p.tool}`),
      p.changed ? el("div", { class: "badge bad" }, "the definition changed since it was approved") : null,
      el("div", {}, p.description),
      p.reason ? el("div", { class: "muted" }, `policy: ${p.reason}`) : null,
      pre(p.arguments),
      allow,
      " ",
      deny,
    );
  } else if (p.kind === "elicitation" && p.mode === "url") {
    // Shown, never opened: the person copies it if they trust it.
    const done = el("button", { type: "button" }, "Done");
    const decline = el("button", { type: "button" }, "Decline");
    done.addEventListener("click", () => answer({ action: "accept" }));
    decline.addEventListener("click", () => answer({ action: "decline" }));
    fill(
      card,
      el("strong", {}, `${p.serverId} asks you to open a link`),
      el("div", {}, p.message),
      el("div", {}, "host: ", el("code", {}, p.host)),
      p.idn ? el("div", { class: "badge bad" }, "IDN host: the name may imitate another") : null,
      p.originMismatch ? el("div", { class: "badge warn" }, "not the server's own origin") : null,
      el("code", { class: "link" }, p.url),
      el("div", {}, done, " ", decline),
    );
  } else if (p.kind === "elicitation") {
    const form = schemaForm(p.schema ?? { type: "object" });
    const decline = el("button", { type: "button" }, "Decline");
    decline.addEventListener("click", () => answer({ action: "decline" }));
    form.node.addEventListener("submit", (e) => {
      e.preventDefault();
      answer({ action: "accept", content: form.read() });
    });
    fill(card, el("strong", {}, `${p.serverId} asks:`), el("div", {}, p.message), form.node, decline);
  } else {
    const text = el("textarea", { placeholder: "the answer to send back" });
    const send = el("button", { type: "button" }, "Send");
    const decline = el("button", { type: "button" }, "Decline");
    send.addEventListener("click", () => answer({ text: text.value }));
    decline.addEventListener("click", () => answer({}));
    fill(
      card,
      el("strong", {}, `${p.serverId} asks for a model completion`),
      pre(p.messages),
      text,
      send,
      " ",
      decline,
    );
  }
  return card;
}

// ---- live -----------------------------------------------------------------------------------
const TIMELINE_MAX = 60;
function addEvent(text, cls) {
  const list = $("events");
  list.prepend(el("li", { class: cls }, `${new Date().toLocaleTimeString()} ${text}`));
  while (list.childElementCount > 500) list.lastChild.remove();
}
function addTiming(e) {
  const rows = $("timeline");
  const bar = el("div", { class: `bar${e.duration > 1000 ? " slow" : ""}` });
  bar.style.width = `${Math.min(600, Math.max(2, Math.log2(1 + e.duration) * 30))}px`;
  rows.prepend(
    el(
      "div",
      { class: "row" },
      el("span", { class: "label" }, `${e.serverId} ${e.method} ${e.status}`),
      bar,
      `${e.duration} ms`,
    ),
  );
  while (rows.childElementCount > TIMELINE_MAX) rows.lastChild.remove();
}

function listen() {
  const events = new EventSource("/api/events");
  events.addEventListener("open", () => {
    $("conn").textContent = "live";
  });
  events.addEventListener("error", () => {
    $("conn").textContent = "disconnected";
  });
  const on = (type, fn) => events.addEventListener(type, (m) => fn(JSON.parse(m.data)));
  on("telemetry", (e) => {
    if (e.event === "request:stop") addTiming(e);
    if (e.event === "connection:transition") {
      addEvent(`${e.serverId}: ${e.from} → ${e.to}${e.reason ? ` (${e.reason})` : ""}`, "transition");
      loadServers();
    } else if (e.event === "hub:server_failed" || e.event === "hub:server_restarted")
      addEvent(`${e.serverId}: ${e.event}`, "reconnect");
    else if (e.event !== "request:stop")
      addEvent(`${e.serverId}: ${e.event} ${e.method ?? e.toolName ?? ""}`, "telemetry");
  });
  on("notification", (e) => addEvent(`${e.serverId}: ${e.method} ${e.params}`, "notification"));
  on("log", (e) => addEvent(`${e.serverId}: log ${e.level} ${e.logger} ${e.data}`, "log"));
  on("list_changed", (e) => {
    addEvent(`${e.serverId}: tools changed (${e.reason})`, "list-changed");
    loadTools();
  });
  on("dropped", (e) => addEvent(`${e.count} events left out (rate limit)`, "dropped"));
  on("progress", (e) => {
    const r = running.get(e.id);
    if (!r) return;
    if (e.total) {
      r.bar.max = e.total;
      r.bar.value = e.progress;
    } else r.bar.value = 0;
    r.note.textContent = ` ${e.progress}${e.total ? ` / ${e.total}` : ""} ${e.message ?? ""}`;
  });
  on("pending", (p) => $("pending").append(pendingCard(p)));
  on("settled", (s) => document.querySelector(`[data-pending="${CSS.escape(s.id)}"]`)?.remove());
}

listen();
api("/api/pending").then((list) => $("pending").append(...list.map(pendingCard)));
await Promise.all([loadServers(), loadTools(), loadCatalog()]).catch((err) =>
  addEvent(`load failed: ${err.message}`, "error"),
);
document.body.dataset.loaded = "true";
