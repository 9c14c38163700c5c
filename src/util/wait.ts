import { timerFor } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";

/**
 * Waits for the work `start()` begins within `timeout` ms and until `signal` aborts, whichever
 * comes first, without cancelling the work itself: a shared refresh goes on for the others (and
 * fills the cache). A signal already aborted refuses before the work is begun, so no promise is
 * made that nobody waits for.
 */
export function waitWithin<T>(start: () => Promise<T>, timeout: number, signal?: AbortSignal): Promise<T> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  const work = start();
  return new Promise<T>((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      done();
      reject(signal!.reason);
    };
    const timer = timerFor(timeout, () => {
      done();
      reject(new McpClientError("timeout", "deadline_exceeded"));
    });
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        done();
        resolve(v);
      },
      (e) => {
        done();
        reject(e);
      },
    );
  });
}
