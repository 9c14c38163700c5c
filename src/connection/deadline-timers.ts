import type { Op } from "./op.js";

/**
 * The timers behind the requests' deadlines. A request's `Deadline` says when it ends (moved by
 * pauses and progress); this arms a timer for that moment and, when it fires early (the deadline
 * moved on), arms it again for the new end. `expired` is called once the deadline has passed.
 */
export class DeadlineTimers<S> {
  readonly #expired: (op: Op<S>) => void;

  constructor(expired: (op: Op<S>) => void) {
    this.#expired = expired;
  }

  /** Starts watching `op`'s deadline (a request without one, a listen stream, sets no timer). */
  arm(op: Op<S>): void {
    const left = op.deadline.remaining();
    if (Number.isFinite(left)) op.timer = setTimeout(() => this.#fire(op), left);
  }

  /** The deadline moved sooner or later than the timer (a pause, a resume): watch its new end. */
  rearm(op: Op<S>): void {
    clearTimeout(op.timer);
    if (!op.settled) this.arm(op);
  }

  disarm(op: Op<S>): void {
    clearTimeout(op.timer);
    op.timer = undefined;
  }

  #fire(op: Op<S>): void {
    if (op.settled) return;
    // Progress may have extended it, a pause made only the cap count: not over yet.
    const left = op.deadline.remaining();
    if (left > 0) {
      op.timer = setTimeout(() => this.#fire(op), left);
      return;
    }
    this.#expired(op);
  }
}
