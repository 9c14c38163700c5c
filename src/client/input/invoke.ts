/**
 * Runs one handler callback under its time limit and a parent signal. The callback's `ctx.signal`
 * (the controller given here) aborts when either ends it; the outcome is reported at once then,
 * without waiting for a callback that ignores its signal. A throw is an outcome, never a crash.
 */
import { timerFor } from "../../shared/deadline.js";
import { sanitizeText } from "../../shared/sanitize.js";

export type Outcome =
  | { status: "ok"; value: unknown }
  | { status: "threw"; error: unknown }
  | { status: "timeout" }
  | { status: "aborted"; reason: unknown };

/** The reason `ctx.signal` carries when the callback's own time is up. */
export class HandlerTimeoutError extends Error {
  override readonly name = "TimeoutError";
  constructor() {
    super("the handler callback's time is up");
  }
}

export function runCallback(
  fn: () => unknown,
  controller: AbortController,
  timeoutMs: number,
  parent?: AbortSignal,
): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    let done = false;
    const finish = (o: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParent);
      controller.signal.removeEventListener("abort", onOwn);
      resolve(o);
    };
    const onParent = () => {
      controller.abort(parent!.reason);
    };
    // Anything that aborts the controller (the parent, a server's cancel) ends the wait.
    const onOwn = () => finish(ownOutcome(controller.signal.reason));
    const ownOutcome = (reason: unknown): Outcome =>
      reason instanceof HandlerTimeoutError ? { status: "timeout" } : { status: "aborted", reason };
    const timer = timerFor(timeoutMs, () => controller.abort(new HandlerTimeoutError()));
    controller.signal.addEventListener("abort", onOwn, { once: true });
    if (parent) {
      if (parent.aborted) return controller.abort(parent.reason);
      parent.addEventListener("abort", onParent, { once: true });
    }
    if (controller.signal.aborted) return onOwn();
    let value: unknown;
    try {
      value = fn();
    } catch (error) {
      return finish({ status: "threw", error });
    }
    Promise.resolve(value).then(
      (v) => finish({ status: "ok", value: v }),
      (error: unknown) => finish({ status: "threw", error }),
    );
  });
}

/** A thrown value (a callback's, as an outcome) as one safe line for a log. */
export function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return sanitizeText(text, { maxLength: 300 });
}
