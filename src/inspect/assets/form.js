// The form a JSON Schema makes (tool arguments, elicitation requests). Labels and descriptions
// from the server go in as text only.
import { el, json } from "./dom.js";

export function schemaForm(schema) {
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
    // The schema's default is preselected (compared as JSON: an enum may hold objects).
    const preset = schema.enum.findIndex((v) => JSON.stringify(v) === JSON.stringify(schema.default));
    if ("default" in schema && preset >= 0) select.value = String(preset);
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
