/**
 * One request's deadline, created where the request starts and passed down, so every stop (the
 * wait for ready, the send, a retry, a poll) spends the same budget instead of starting its own.
 *
 * - `timeout`: the time the request may take; `Infinity` for none (a listen stream).
 * - the cap: `max(timeout, maxTotalTimeout)` from the start, which nothing moves past: not
 *   pauses (the clock stops while the server waits for our input), not progress extensions.
 *
 * Exported for the floors above one client (governance retries share their call's deadline).
 */
/** The longest delay `setTimeout` takes as it is: a longer one fires at once (after 1 ms). */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * A timer for `ms` that never fires early: none for `Infinity` (no time limit), and a delay past
 * what `setTimeout` takes is held at its ceiling (about 24.8 days) instead of firing at once.
 */
export function timerFor(ms: number, fire: () => void): ReturnType<typeof setTimeout> | undefined {
  return Number.isFinite(ms) ? setTimeout(fire, Math.min(ms, MAX_TIMER_DELAY)) : undefined;
}

export class Deadline {
  /** When it started (ms since the epoch). */
  readonly start: number;
  /** The time this request may take from its start, before pauses and extensions. */
  readonly timeout: number;
  /** Absolute time past which nothing extends it. */
  readonly cap: number;
  #end: number;
  #pauses = 0;
  #pausedAt = 0;

  constructor(timeout: number, maxTotalTimeout = timeout, now = Date.now()) {
    this.start = now;
    this.timeout = timeout;
    this.cap = now + Math.max(timeout, maxTotalTimeout);
    this.#end = now + timeout;
  }

  /** A deadline `timeout` ms from now (the `?? requestTimeout` default is the caller's). */
  static after(timeout: number, maxTotalTimeout?: number): Deadline {
    return new Deadline(timeout, maxTotalTimeout);
  }

  /** When it passes (absolute ms); while paused, the cap. */
  get end(): number {
    return this.#pauses > 0 ? this.cap : this.#end;
  }

  /** Milliseconds left (0 when passed; `Infinity` for none). */
  remaining(now = Date.now()): number {
    return Math.max(0, this.end - now);
  }

  /** Milliseconds left, at least 1: for a timer or a nested request that needs a positive time. */
  left(now = Date.now()): number {
    return Math.max(1, this.end - now);
  }

  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Whether the deadline has passed (a paused one passes only at its cap). */
  expired(now = Date.now()): boolean {
    return this.end - now <= 0;
  }

  /**
   * Stops the clock until the returned function is called (the server is waiting on us): the
   * time in between is added, never past the cap. Pauses nest; resuming twice is harmless.
   */
  pause(now = Date.now()): (later?: number) => void {
    if (this.#pauses++ === 0) this.#pausedAt = now;
    let resumed = false;
    return (later = Date.now()) => {
      if (resumed) return;
      resumed = true;
      if (--this.#pauses > 0) return;
      this.#end = Math.min(this.#end + (later - this.#pausedAt), this.cap);
    };
  }

  /** Progress resets the clock: at least `timeout` from now, never past the cap. */
  extend(now = Date.now()): void {
    this.#end = Math.max(this.#end, Math.min(now + this.timeout, this.cap));
  }
}
