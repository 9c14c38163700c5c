import { timerFor } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Callers waiting for the connection to be ready, each within its own time and signal. */
export class ReadyWaiters {
  /** Made by the first wait and dropped once none is left: a ready client holds no array. */
  #waiters: Waiter[] | undefined;

  /** Resolves on `resolveAll`; rejects with `timeout` after `timeout` ms, or the signal's reason. */
  wait(timeout: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const left = this.#waiters?.filter((w) => w !== waiter);
        this.#waiters = left && left.length > 0 ? left : undefined;
      };
      const waiter: Waiter = {
        resolve: () => {
          done();
          resolve();
        },
        reject: (e: unknown) => {
          done();
          reject(e);
        },
      };
      const onAbort = () => waiter.reject(signal!.reason);
      const timer = timerFor(timeout, () => waiter.reject(new McpClientError("timeout", "not_ready")));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters ??= [];
      this.#waiters.push(waiter);
    });
  }

  resolveAll(): void {
    const all = this.#waiters;
    this.#waiters = undefined;
    for (const w of all ?? []) w.resolve();
  }

  rejectAll(error: unknown): void {
    const all = this.#waiters;
    this.#waiters = undefined;
    for (const w of all ?? []) w.reject(error);
  }
}
