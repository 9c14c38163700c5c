// A tool result as the page shows it. Text blocks as text, images only as data: URLs of an
// image/* type with base64 data, anything else as its JSON.
import { el, pre } from "./dom.js";

export function renderResult(r) {
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
