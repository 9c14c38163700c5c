// The inspector's page. Every server-supplied string goes in as text (textContent, text nodes):
// never innerHTML, never an attribute that loads or runs anything. Images only as data: URLs of
// an image/* type with base64 data. Links a server sends are shown as text, never opened.
import { loadCatalog } from "./catalog.js";
import { pendingCard } from "./dialogs.js";
import { $, api, el, json, pre } from "./dom.js";
import { schemaForm } from "./form.js";
import { renderResult } from "./result.js";
import { showTask } from "./tasks.js";

// ---- views -------------------------------------------------------------------------------
for (const b of document.querySelectorAll("#tabs button")) {
  b.addEventListener("click", () => {
    for (const o of document.querySelectorAll("#tabs button")) o.classList.toggle("active", o === b);
    for (const v of document.querySelectorAll(".view")) v.hidden = v.id !== `view-${b.dataset.view}`;
    // The catalog changes under the page (a tool registers a resource): listed afresh on each visit.
    if (b.dataset.view === "catalog")
      loadCatalog().catch((err) => addEvent(`load failed: ${err.message}`, "error"));
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
        s.fallbackReason ? el("div", { class: "fallback" }, `legacy because ${s.fallbackReason}`) : null,
        s.instructions ? el("details", {}, el("summary", {}, "instructions"), pre(s.instructions)) : null,
        el("details", {}, el("summary", {}, "capabilities"), pre(s.capabilities ?? {})),
      ),
    ),
  );
}

/** The definitions seen at page load, to mark those that changed since. */
const firstSeen = new Map();

async function loadTools() {
  const { tools, manifests, tokenCount } = await api("/api/tools");
  // Without js-tiktoken the server sends a rough estimate (characters / 4): say so.
  const approx = tokenCount === "estimate" ? "≈" : "";
  $("manifests").replaceChildren(
    el(
      "div",
      { class: "card" },
      el("h3", {}, "What each model API receives"),
      ...["openai", "anthropic"].map((p) =>
        el(
          "details",
          {},
          el(
            "summary",
            {},
            `${p}: ${manifests[p].tools.length} tools, ${approx}${manifests[p].tokens ?? "?"} tokens${approx && " (rough estimate: install js-tiktoken for a count)"}`,
          ),
          pre(manifests[p].tools),
        ),
      ),
    ),
  );
  $("tools").replaceChildren(...tools.map((t) => toolCard(t, approx)));
}

function toolCard(t, approx) {
  const digest = json([t.description, t.inputSchema, t.outputSchema, t.annotations]);
  if (!firstSeen.has(t.name)) firstSeen.set(t.name, digest);
  const changed = firstSeen.get(t.name) !== digest;
  const form = schemaForm(t.inputSchema);
  const out = el("div", { class: "out" });
  // Tools that may run as a task (legacy execution.taskSupport): the call returns the task at once.
  const asTask =
    t.taskSupport === "optional" || t.taskSupport === "required"
      ? el("button", { type: "button", class: "as-task" }, "Run as task")
      : null;
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
        `tokens: OpenAI ${approx}${t.tokens.openai ?? "?"}, Anthropic ≈${t.tokens.anthropic ?? "?"}`,
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
    asTask,
    out,
  );
  asTask?.addEventListener("click", () => {
    try {
      runTask(t.name, form.read(), out);
    } catch (err) {
      out.replaceChildren(el("div", { class: "result error" }, String(err.message)));
    }
  });
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

/** A task-augmented call: the task goes to the Tasks view, a result the server gave at once here. */
async function runTask(name, args, out) {
  out.replaceChildren(el("span", { class: "muted" }, "starting the task…"));
  try {
    const a = await api("/api/task", { name, arguments: args });
    if (a.task) {
      showTask(a.task);
      out.replaceChildren(
        el("div", { class: "muted task-started" }, `task ${a.task.taskId} started (Tasks view)`),
      );
    } else if (a.error) {
      out.replaceChildren(
        el("div", { class: "result error", data: { kind: a.error.kind } }, a.error.message),
      );
    } else out.replaceChildren(renderResult(a.result));
  } catch (err) {
    out.replaceChildren(el("div", { class: "result error" }, String(err.message)));
  }
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
  on("task", showTask);
  on("pending", (p) => $("pending").append(pendingCard(p)));
  on("settled", (s) => document.querySelector(`[data-pending="${CSS.escape(s.id)}"]`)?.remove());
}

listen();
api("/api/pending").then((list) => $("pending").append(...list.map(pendingCard)));
api("/api/tasks").then((list) => list.forEach(showTask));
await Promise.all([loadServers(), loadTools(), loadCatalog()]).catch((err) =>
  addEvent(`load failed: ${err.message}`, "error"),
);
document.body.dataset.loaded = "true";
