import { type ClockWatch, schedule, unschedule, watching } from "./deadline-clock.js";
import type { Op } from "./op.js";

/**
 * One timer for every request deadline of a connection, instead of one `setTimeout` per request
 * (arming and clearing a timer per request was about a tenth of the client's CPU in sequential
 * calls). The timer is set for the earliest end of the requests it watches. A request's end only
 * moves later (a pause stops its clock, progress extends it), never sooner than when it was
 * armed, so the timer is never late: when it fires, every request whose `Deadline` has passed
 * expires, and the timer is set again for the earliest end left.
 *
 * In the steady state (requests of one timeout, one after another) a new request ends after the
 * one the timer is set for, so nothing is armed per request. With nothing to watch the timer is
 * left set (unref'd), not cleared, so it never keeps the process alive on its own; while any
 * request is watched it is ref'd, as a request's own timer would be. The timer is the process's
 * one deadline clock (deadline-clock.ts), where each connection had a `setTimeout` of its own.
 */
export class DeadlineTimers<S> implements ClockWatch {
  /** Where a request whose deadline passed goes (the dispatch). */
  readonly #owner: { expired(op: Op<S>): void };
  /**
   * The watched requests, as a list threaded through the ops themselves (`Op.timer*`): adding and
   * removing one allocates nothing and hashes nothing (a Set gave every request an identity hash
   * and rehashed as it emptied and filled, once per request in sequential calls).
   */
  #head: Op<S> | undefined;
  /** When the clock calls it (absolute ms); Infinity when it is not set (the clock's). */
  clockAt = Number.POSITIVE_INFINITY;
  /** Its place in the clock's heap (the clock's). */
  clockIndex = -1;

  constructor(owner: { expired(op: Op<S>): void }) {
    this.#owner = owner;
  }

  /** Starts watching `op`'s deadline (a request without one, a listen stream, is not watched). */
  arm(op: Op<S>): void {
    const end = op.deadline.end;
    if (!Number.isFinite(end)) return;
    if (!op.timerWatched) this.#link(op);
    if (end < this.clockAt) schedule(this, end);
  }

  /** The deadline moved (a pause, a resume): only a sooner end than the timer's needs a new one. */
  rearm(op: Op<S>): void {
    if (op.settled) return;
    const end = op.deadline.end;
    if (!op.timerWatched) {
      if (Number.isFinite(end)) this.arm(op);
      return;
    }
    if (end < this.clockAt) schedule(this, end);
  }

  disarm(op: Op<S>): void {
    if (op.timerWatched) this.#unlink(op);
  }

  /**
   * The connection closed: with nothing watched it leaves the clock at once, not when it would be
   * due, since the clock holds it (and the connection and the client over it) until then, up to
   * a request timeout after close().
   */
  stop(): void {
    if (this.#head === undefined) unschedule(this);
  }

  #link(op: Op<S>): void {
    if (this.#head === undefined) watching(1);
    op.timerWatched = true;
    op.timerPrev = undefined;
    op.timerNext = this.#head;
    if (this.#head) this.#head.timerPrev = op;
    this.#head = op;
  }

  #unlink(op: Op<S>): void {
    const { timerPrev: prev, timerNext: next } = op;
    if (prev) prev.timerNext = next;
    else this.#head = next;
    if (next) next.timerPrev = prev;
    op.timerWatched = false;
    op.timerPrev = undefined;
    op.timerNext = undefined;
    if (this.#head === undefined) watching(-1);
  }

  /** Its time came (only the clock calls it; it has left the clock's heap). */
  due(): void {
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    // Collected first, expired after: an expiry settles (and unlinks) other requests on its way
    // (a queued one sent and failed), which a walk in progress must not trip over.
    const due: Op<S>[] = [];
    for (let op = this.#head; op !== undefined; ) {
      const following = op.timerNext;
      if (op.settled) this.#unlink(op);
      else {
        // Progress may have extended it, a pause made only the cap count: not over yet.
        const end = op.deadline.end;
        if (end - now > 0) {
          if (end < next) next = end;
        } else {
          this.#unlink(op);
          due.push(op);
        }
      }
      op = following;
    }
    for (const op of due) this.#owner.expired(op);
    // An expiry may have armed others (nothing today: queued requests are armed when queued).
    if (Number.isFinite(next) && next < this.clockAt) schedule(this, next);
  }
}
