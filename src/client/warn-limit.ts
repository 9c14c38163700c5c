/**
 * A bound on the warnings one client logs. Most of them are a server's doing, one per message
 * (a request a modern server may not send, an event that is not JSON, a response for no
 * request): without a bound, a hostile server writes to the application's log at the speed of
 * its own output. Past the burst, warnings are counted, not logged, and one line a second at
 * most says how many were left out.
 */
import { TokenBucket } from "../util/token-bucket.js";

/** Warnings logged at once (a burst), then at most this many a second. */
export const WARN_LIMIT = { burst: 100, perSecond: 10 } as const;

export class WarnLimiter {
  readonly #log: (text: string) => void;
  readonly #bucket = new TokenBucket(WARN_LIMIT.perSecond, WARN_LIMIT.burst);
  #left = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(log: (text: string) => void) {
    this.#log = log;
  }

  warn(text: string): void {
    if (this.#bucket.take()) {
      this.#summary();
      this.#log(text);
      return;
    }
    this.#left += 1;
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#summary();
      }, 1_000);
      this.#timer.unref();
    }
  }

  /** The client closed: what was left out is said now, and no timer holds the client. */
  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#summary();
  }

  #summary(): void {
    if (this.#left === 0) return;
    const n = this.#left;
    this.#left = 0;
    this.#log(`left out ${n} more warning${n === 1 ? "" : "s"} (over ${WARN_LIMIT.perSecond} a second)`);
  }
}
