/**
 * A rate limit for `tasks/*` requests per caller (2025-11-25: receivers SHOULD rate-limit task
 * operations; a host polling `tasks/get` in a tight loop would otherwise cost serve a lookup, and
 * a `tasks/result` a waiter, per request). A token bucket per caller: `burst` requests at once,
 * refilled at `perSecond`; a request over it is refused before any lookup, and nothing reaches an
 * upstream. The buckets are bounded: past `MAX_CALLERS` callers, those whose bucket has refilled
 * (idle ones, indistinguishable from new) are forgotten.
 */

const MAX_CALLERS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

export class TaskRate {
  readonly #perSecond: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limits: { perSecond: number; burst: number }, now: () => number = Date.now) {
    this.#perSecond = limits.perSecond;
    this.#burst = limits.burst;
    this.#now = now;
  }

  /** Takes one request's token for `owner`; false when its bucket is empty (refuse it). */
  take(owner: string): boolean {
    const now = this.#now();
    const b = this.#buckets.get(owner);
    if (!b) {
      if (this.#buckets.size >= MAX_CALLERS) this.#sweep(now);
      this.#buckets.set(owner, { tokens: this.#burst - 1, at: now });
      return true;
    }
    b.tokens = this.#refilled(b, now);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  #refilled(b: Bucket, now: number): number {
    return Math.min(this.#burst, b.tokens + ((now - b.at) / 1000) * this.#perSecond);
  }

  #sweep(now: number): void {
    for (const [owner, b] of this.#buckets)
      if (this.#refilled(b, now) >= this.#burst) this.#buckets.delete(owner);
  }
}
