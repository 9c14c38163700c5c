/**
 * The client's `rateLimit`: one token of the server's bucket per request, the bucket kept in
 * `stores.budgets` (in memory by default; a fleet shares one). A request over the limit waits
 * for its token within its deadline, and fails `rate_limited` (`rate_limit`) when it would not
 * get one in time. A store that fails lets the request go: a limit that cannot be read must
 * not stop the calls it protects.
 */
import type { Deadline } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";
import type { BudgetStore, RateLimit } from "../stores/budgets.js";

export class Budget {
  readonly #store: BudgetStore;
  readonly #key: string;
  readonly #limit: RateLimit;

  constructor(store: BudgetStore, key: string, limit: RateLimit) {
    this.#store = store;
    this.#key = key;
    this.#limit = limit;
  }

  /**
   * Undefined when the request may go now (an in-memory store answers at once: no await on the
   * call path); else a promise settled when it may go, or rejected `rate_limited`.
   */
  admit(deadline: Deadline, signal: AbortSignal | undefined): Promise<void> | undefined {
    let wait: number | Promise<number>;
    try {
      wait = this.#store.take(this.#key, this.#limit);
    } catch {
      return undefined;
    }
    if (wait === 0) return undefined;
    return this.#wait(wait, deadline, signal);
  }

  async #wait(first: number | Promise<number>, deadline: Deadline, signal: AbortSignal | undefined) {
    let wait = await Promise.resolve(first).catch(() => 0);
    while (wait > 0) {
      if (wait >= deadline.remaining()) {
        throw new McpClientError("rate_limited", "rate_limit", { retryAfterMs: wait });
      }
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, wait));
      signal?.throwIfAborted();
      wait = await Promise.resolve()
        .then(() => this.#store.take(this.#key, this.#limit))
        .catch(() => 0);
    }
  }
}
