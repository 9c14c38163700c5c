// The tasks view: each task the page started, its status as the server reports it (every change
// kept as a line), Cancel while it runs, and its result at the end.
import { $, api, el } from "./dom.js";
import { renderResult } from "./result.js";

const cards = new Map();

/** Adds or updates a task's card from its view (an event, the start answer or the list on load). */
export function showTask(t) {
  let c = cards.get(t.taskId);
  if (!c) {
    const cancel = el("button", { type: "button", class: "cancel-task" }, "Cancel");
    cancel.addEventListener("click", () => api("/api/task/cancel", { taskId: t.taskId }).catch(() => {}));
    c = {
      status: el("span", { class: "badge task-status" }),
      message: el("span", { class: "muted task-message" }),
      history: el("ol", { class: "task-history" }),
      out: el("div", { class: "out" }),
      cancel,
      last: "",
    };
    c.node = el(
      "div",
      { class: "card task", data: { task: t.taskId } },
      el(
        "h3",
        {},
        `${t.tool} `,
        el("span", { class: "muted" }, `task ${t.taskId} on ${t.serverId} (${t.era})`),
      ),
      el("div", {}, c.status, c.message, " ", cancel),
      c.history,
      c.out,
    );
    cards.set(t.taskId, c);
    $("tasks").prepend(c.node);
  }
  c.status.textContent = t.status;
  c.status.dataset.status = t.status;
  c.message.textContent = t.statusMessage ?? "";
  const line = `${t.status}${t.statusMessage ? `: ${t.statusMessage}` : ""}`;
  if (line !== c.last) {
    c.history.append(el("li", {}, `${new Date().toLocaleTimeString()} ${line}`));
    c.last = line;
  }
  if (t.done) {
    c.cancel.hidden = true;
    c.node.dataset.done = "true";
    c.out.replaceChildren(
      t.error
        ? el(
            "div",
            { class: "result error", data: { kind: t.error.kind } },
            `${t.error.kind}: ${t.error.message}`,
          )
        : renderResult(t.result),
    );
  }
}
