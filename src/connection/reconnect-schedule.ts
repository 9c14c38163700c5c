import type { ReconnectPolicy } from "./config.js";

/**
 * When a connection tries again: the failed server starts in a row, the backoff before the next
 * attempt (none after `maxReconnects`), and the count forgiven once the connection has stayed
 * ready for `stableAfter`. The connection decides what failed; this only counts and waits.
 */
export class ReconnectSchedule {
  readonly #policy: ReconnectPolicy;
  /** Server starts after the first since the connection was last stable (reconnects, restarts). */
  #failures = 0;
  #attempt = 0;
  #timer: NodeJS.Timeout | undefined;
  /**
   * When the connection last became ready (ms), while it is. A timestamp, not a timer: the count
   * is only read after the connection left ready, so it is forgiven then if it stayed long
   * enough. A timer per ready client cost a Timeout and a closure each, and held the connection
   * until it fired.
   */
  #readySince: number | undefined;

  constructor(policy: ReconnectPolicy) {
    this.#policy = policy;
  }

  /** The number of the attempt under way, as the state transitions report it. */
  get attempt(): number {
    return this.#attempt;
  }

  /** An attempt starts now (the timer that started it, if any, has fired). */
  starting(): void {
    this.#timer = undefined;
    this.#attempt = this.#failures;
  }

  /**
   * The handshake asked for a fresh transport: a new server, so it counts, and it is made at
   * once. Until the first ready always (it is how a server that exits on the probe is reached at
   * all, with `maxReconnects: 0` too); after it, within `maxReconnects`.
   */
  restartNow(readyOnce: boolean): boolean {
    if (readyOnce && this.#failures >= this.#policy.maxReconnects) return false;
    this.#failures++;
    return true;
  }

  /** Counts one more reconnect and returns its backoff index; undefined when it is time to give up. */
  next(): number | undefined {
    if (this.#failures >= this.#policy.maxReconnects) return undefined;
    const index = this.#failures++;
    this.#attempt = index + 1;
    return index;
  }

  /** Runs `connect` after the backoff of attempt `index` (from `next()`). */
  after(index: number, connect: () => void): void {
    this.#timer = setTimeout(connect, this.#policy.backoff(index));
  }

  /** Drops the reconnect waiting for its backoff (closed, or a reconnect asked for now). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A reconnect asked for by the caller starts a fresh count. */
  forgive(): void {
    this.#failures = 0;
  }

  /** Ready: the count is forgiven if it stays so for `stableAfter`. */
  ready(): void {
    this.#readySince = Date.now();
  }

  /** No longer ready: the count is forgiven if it was ready for `stableAfter`. */
  notReady(): void {
    const since = this.#readySince;
    this.#readySince = undefined;
    if (since !== undefined && Date.now() - since >= this.#policy.stableAfter) this.#failures = 0;
  }
}
