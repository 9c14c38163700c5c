// The cards of what waits for the person: approvals, elicitation (form or URL), sampling.
// Links a server sends are shown as text, never opened.
import { api, el, fill, pre } from "./dom.js";
import { schemaForm } from "./form.js";

export function pendingCard(p) {
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
    // A link the person may follow (a new tab, no opener, no referrer), never opened by the page;
    // only an http(s) URL becomes one, anything else stays text.
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
      linkOrText(p.url),
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

/** An http(s) URL as a link that opens in a new tab without an opener or referrer; else text. */
function linkOrText(url) {
  let protocol = "";
  try {
    protocol = new URL(url).protocol;
  } catch {}
  if (protocol !== "https:" && protocol !== "http:") return el("code", { class: "link" }, url);
  return el(
    "a",
    { class: "link", href: url, target: "_blank", rel: "noopener noreferrer", referrerPolicy: "no-referrer" },
    url,
  );
}
