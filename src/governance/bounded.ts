/** How a callback of ours (hook, policy function, approver) ended. */
export type Bounded<T> =
  | { ok: true; value: T }
  | { ok: false; why: "threw"; error: unknown }
  | { ok: false; why: "timeout" };

/**
 * Runs an application callback with a time limit. A throw, a rejection and running past `ms`
 * are results, not exceptions: the caller fails closed. An abort of `signal` rejects with its
 * reason (the caller's choice wins).
 */
export function bounded<T>(fn: () => T | Promise<T>, ms: number, signal?: AbortSignal): Promise<Bounded<T>> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: Bounded<T> | { abort: unknown }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      if ("abort" in outcome) reject(outcome.abort);
      else resolve(outcome);
    };
    const onAbort = () => finish({ abort: signal!.reason });
    const timer = setTimeout(() => finish({ ok: false, why: "timeout" }), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      Promise.resolve(fn()).then(
        (value) => finish({ ok: true, value }),
        (error) => finish({ ok: false, why: "threw", error }),
      );
    } catch (error) {
      finish({ ok: false, why: "threw", error });
    }
  });
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
