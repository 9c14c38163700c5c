// Shared helpers of the inspector's page: elements built from properties and text nodes only
// (server-supplied strings never go through innerHTML), and the JSON API client.

/** An element with properties (no HTML) and children (strings become text nodes). */
export function el(tag, props = {}, ...children) {
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
export const $ = (id) => document.getElementById(id);
/** Appends the children that are there (Node.append would write "null" for an absent one). */
export const fill = (node, ...children) =>
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
export const json = (v) => JSON.stringify(v, null, 2);
export const pre = (v) => el("pre", {}, typeof v === "string" ? v : json(v));

export async function api(path, body) {
  const init =
    body === undefined
      ? {}
      : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const res = await fetch(path, { credentials: "same-origin", ...init });
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return res.json();
}
