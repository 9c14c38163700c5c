/**
 * A token bucket: `burst` tokens at most, refilled at `perSecond`; time is read lazily, so an
 * idle bucket costs nothing. It meters a server's input requests and its log entries.
 */
export class TokenBucket {
  readonly #perMs: number;
  readonly #burst: number;
  #tokens: number;
  #at: number;

  constructor(perSecond: number, burst: number, now: () => number = Date.now) {
    this.#perMs = perSecond / 1000;
    this.#burst = burst;
    this.#tokens = burst;
    this.#now = now;
    this.#at = now();
  }

  readonly #now: () => number;

  #refill(): void {
    const now = this.#now();
    const elapsed = now - this.#at;
    if (elapsed > 0) {
      this.#tokens = Math.min(this.#burst, this.#tokens + elapsed * this.#perMs);
      this.#at = now;
    }
  }

  /** Takes `n` tokens if there are that many (all or none). */
  take(n = 1): boolean {
    this.#refill();
    if (this.#tokens < n) return false;
    this.#tokens -= n;
    return true;
  }
}
