import { MAX_TIMER_DELAY } from "../shared/deadline.js";
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
 * unref'd, not cleared, so it never keeps the process alive on its own; while any request is
 * watched it is ref'd, as a request's own timer would be.
 */
/** The timer's callback, one for every connection (a closure each was ~100 B, issue 26). */
function fire(timers: DeadlineTimers<unknown>): void {
  timers.fire();
}

export class DeadlineTimers<S> {
  /** Where a request whose deadline passed goes (the dispatch). */
  readonly #owner: { expired(op: Op<S>): void };
  /**
   * The watched requests, as a list threaded through the ops themselves (`Op.timer*`): adding and
   * removing one allocates nothing and hashes nothing (a Set gave every request an identity hash
   * and rehashed as it emptied and filled, once per request in sequential calls).
   */
  #head: Op<S> | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** When the timer fires (absolute ms); Infinity when there is none. */
  #at = Number.POSITIVE_INFINITY;

  constructor(owner: { expired(op: Op<S>): void }) {
    this.#owner = owner;
  }

  /** Starts watching `op`'s deadline (a request without one, a listen stream, is not watched). */
  arm(op: Op<S>): void {
    const end = op.deadline.end;
    if (!Number.isFinite(end)) return;
    if (!op.timerWatched) {
      if (this.#head === undefined) this.#timer?.ref();
      this.#link(op);
    }
    if (end < this.#at) this.#schedule(end);
  }

  /** The deadline moved (a pause, a resume): only a sooner end than the timer's needs a new one. */
  rearm(op: Op<S>): void {
    if (op.settled) return;
    const end = op.deadline.end;
    if (!op.timerWatched) {
      if (Number.isFinite(end)) this.arm(op);
      return;
    }
    if (end < this.#at) this.#schedule(end);
  }

  disarm(op: Op<S>): void {
    if (!op.timerWatched) return;
    this.#unlink(op);
    if (this.#head === undefined) this.#timer?.unref();
  }

  /**
   * The connection closed: with nothing watched the timer is cleared, not left unref'd, since
   * its callback holds the connection (and the client over it) until it fires, up to a request
   * timeout after close().
   */
  stop(): void {
    if (this.#head !== undefined) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
  }

  #link(op: Op<S>): void {
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
  }

  #schedule(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#at = at;
    const delay = Math.min(MAX_TIMER_DELAY, Math.max(0, at - Date.now()));
    this.#timer = setTimeout(fire, delay, this as DeadlineTimers<unknown>);
  }

  /** The timer fired (only `fire` above calls it). */
  fire(): void {
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
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
    if (Number.isFinite(next) && next < this.#at) this.#schedule(next);
  }
}
