/**
 * The budget store: a per-server request rate limit (`rateLimit: { requests, perMs }`), as a
 * token bucket whose state lives in the store, so a fleet sharing one spends one budget.
 */

type Awaitable<T> = T | Promise<T>;

/** At most `requests` requests per `perMs` milliseconds (a bucket of `requests`, refilled evenly). */
export interface RateLimit {
  requests: number;
  perMs: number;
}

export interface BudgetStore {
  /** Takes one request from the bucket `key`: 0 when taken, else the milliseconds until one is free. */
  take(key: string, limit: RateLimit): Awaitable<number>;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class MemoryBudgetStore implements BudgetStore {
  readonly #buckets = new Map<string, Bucket>();

  take(key: string, limit: RateLimit): number {
    const now = Date.now();
    const rate = limit.requests / limit.perMs;
    let b = this.#buckets.get(key);
    if (!b) {
      b = { tokens: limit.requests, at: now };
      this.#buckets.set(key, b);
    } else if (now > b.at) {
      b.tokens = Math.min(limit.requests, b.tokens + (now - b.at) * rate);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }
}
