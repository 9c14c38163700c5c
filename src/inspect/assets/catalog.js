// The resources, templates and prompts view: a listed resource can be read (text as text, an
// image only as a data: URL of its image/* type, any other blob as a size and type line), a
// listed prompt got with its declared arguments. The hub checks both against what it listed.
import { $, api, el } from "./dom.js";
import { renderResult } from "./result.js";

export async function loadCatalog() {
  const [resources, templates, prompts] = await Promise.all(
    ["/api/resources", "/api/templates", "/api/prompts"].map((p) => api(p)),
  );
  list("resources", resources, resourceItem);
  list("templates", templates, (r) => el("li", {}, `${r.serverId}: ${r.uriTemplate} ${r.name ?? ""}`));
  list("prompts", prompts, promptItem);
}

function list(id, items, item) {
  $(id).replaceChildren(
    items.error ? el("div", { class: "muted" }, items.error.message) : el("ul", {}, ...items.map(item)),
  );
}

function failed(e) {
  return el("div", { class: "result error", data: { kind: e.kind ?? "error" } }, `${e.kind}: ${e.message}`);
}

function resourceItem(r) {
  const out = el("div", { class: "out" });
  const read = el("button", { type: "button", class: "read" }, "Read");
  read.addEventListener("click", async () => {
    out.replaceChildren(el("span", { class: "muted" }, "reading…"));
    try {
      const a = await api("/api/resource", { serverId: r.serverId, uri: r.uri });
      out.replaceChildren(a.error ? failed(a.error) : contents(a.result.contents));
    } catch (err) {
      out.replaceChildren(failed({ kind: "error", message: err.message }));
    }
  });
  return el(
    "li",
    { class: "resource", data: { server: r.serverId, uri: r.uri } },
    `${r.serverId}: ${r.uri} ${r.name ?? ""} ${r.mimeType ?? ""} `,
    read,
    out,
  );
}

function contents(items) {
  const box = el("div", { class: "result contents" });
  for (const c of items) {
    if (typeof c.text === "string") box.append(el("pre", { class: "text" }, c.text));
    else if (typeof c.image === "string" && /^image\/[a-z0-9.+-]+$/i.test(c.mimeType ?? ""))
      box.append(el("img", { src: `data:${c.mimeType};base64,${c.image}`, alt: "image resource" }));
    else if (typeof c.size === "number")
      box.append(el("div", { class: "blob" }, `blob: ${c.size} bytes, ${c.mimeType ?? "no type"}`));
    else box.append(el("pre", {}, String(c.unknown ?? "")));
  }
  return box;
}

function promptItem(p) {
  const out = el("div", { class: "out" });
  const inputs = (p.arguments ?? []).map((a) =>
    el(
      "label",
      {},
      el("span", {}, a.required ? `${a.name} *` : a.name),
      el("input", { name: a.name, required: Boolean(a.required) }),
      a.description ? el("small", { class: "muted" }, ` ${a.description}`) : null,
    ),
  );
  const form = el(
    "form",
    { class: "prompt-form" },
    ...inputs,
    el("button", { type: "submit", class: "get" }, "Get"),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const args = {};
    for (const input of form.querySelectorAll("input"))
      if (input.value !== "") args[input.name] = input.value;
    out.replaceChildren(el("span", { class: "muted" }, "getting…"));
    try {
      const a = await api("/api/prompt", { serverId: p.serverId, name: p.name, arguments: args });
      out.replaceChildren(a.error ? failed(a.error) : messages(a.result));
    } catch (err) {
      out.replaceChildren(failed({ kind: "error", message: err.message }));
    }
  });
  return el(
    "li",
    { class: "prompt", data: { server: p.serverId, prompt: p.name } },
    `${p.serverId}: ${p.name} ${p.description ?? ""}`,
    form,
    out,
  );
}

function messages(r) {
  return el(
    "div",
    { class: "messages" },
    r.description ? el("div", { class: "muted" }, r.description) : null,
    ...r.messages.map((m) =>
      el(
        "div",
        { class: "message" },
        el("strong", { class: "role" }, m.role),
        renderResult({ content: [m.content] }),
      ),
    ),
  );
}
