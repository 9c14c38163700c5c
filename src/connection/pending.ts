import type { RequestId } from "../shared/jsonrpc.js";
import type { Op } from "./op.js";
import type { ServerRequestInfo } from "./types.js";

/**
 * The connection's bookkeeping of requests: those sent and unanswered (by id), how many of them
 * take one of the caller's `maxInFlight` slots, and those queued until there is room or a
 * connection. It decides nothing: the connection says when to send, settle or fail.
 */
export class PendingRequests<S> {
  /**
   * The request in flight while it is the only one (always the oldest: it is used only when
   * nothing else is pending), kept beside the map instead of in it. Sequential calls never touch
   * the map: a Map that empties after every request shrinks each time (a runtime call and a new
   * table, about 350 instructions a request).
   */
  #solo: Op<S> | undefined;
  /** The other requests in flight, oldest first. */
  /** The others, by id: made when a second request is in flight at once (a client that sends one
   * at a time never makes it: ~180 B per client, issue 26). */
  #byId: Map<RequestId, Op<S>> | undefined;
  /** Pending requests that take a `maxInFlight` slot (see `Op.budgeted`). */
  #budgeted = 0;
  /** Requests waiting to be sent, oldest first. */
  readonly queue: Op<S>[] = [];

  get size(): number {
    return (this.#byId?.size ?? 0) + (this.#solo === undefined ? 0 : 1);
  }

  /** In-flight requests taking a caller's slot. */
  get budgeted(): number {
    return this.#budgeted;
  }

  get(id: RequestId): Op<S> | undefined {
    const solo = this.#solo;
    return solo !== undefined && solo.id === id ? solo : this.#byId?.get(id);
  }

  /** Records `op` as sent with `id`. */
  add(id: number, op: Op<S>): void {
    op.id = id;
    if (this.#solo === undefined && !this.#byId?.size) this.#solo = op;
    else {
      this.#byId ??= new Map();
      this.#byId.set(id, op);
    }
    if (op.budgeted) this.#budgeted += 1;
  }

  /** Takes request `id` out (and out of the budget); returns it, if it was there. */
  take(id: RequestId): Op<S> | undefined {
    let op = this.#solo;
    if (op !== undefined && op.id === id) this.#solo = undefined;
    else {
      op = this.#byId?.get(id);
      if (!op) return undefined;
      this.#byId?.delete(id);
    }
    if (op.budgeted) this.#budgeted -= 1;
    return op;
  }

  /** Whether `op` is the request in flight under its id (not settled, not replaced). */
  holds(op: Op<S>): boolean {
    return op.id !== undefined && (this.#solo === op || this.#byId?.get(op.id) === op);
  }

  /** Takes every in-flight request out, oldest first, for the caller to fail. */
  takeAll(): Op<S>[] {
    if (this.size === 0) return [];
    const ops = this.#solo === undefined ? [] : [this.#solo];
    if (this.#byId) for (const op of this.#byId.values()) ops.push(op);
    this.#solo = undefined;
    this.#byId?.clear();
    this.#budgeted = 0;
    return ops;
  }

  /** Takes `op` out of the queue; false when it was not there. */
  unqueue(op: Op<S>): boolean {
    const i = this.queue.indexOf(op);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    return true;
  }

  /**
   * Which of the client's requests a server request belongs to: the transport's word when it has
   * one; otherwise (stdio) the one request in flight when there is exactly one.
   */
  relate(transportRelated: RequestId | undefined): ServerRequestInfo {
    let calls = 0;
    let only: Op<S> | undefined;
    const solo = this.#solo;
    if (solo !== undefined && !solo.internal) {
      calls = 1;
      only = solo;
    }
    for (const op of this.#byId?.values() ?? []) {
      if (op.internal) continue;
      calls += 1;
      only = op;
    }
    const related =
      transportRelated !== undefined ? this.get(transportRelated) : calls === 1 ? only : undefined;
    return {
      relatedRequestId: related?.id ?? null,
      relatedContext: related?.context,
      callsInFlight: calls,
    };
  }
}
