import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import {
  ErrorCodes,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcResponse,
  type RequestId,
} from "../shared/jsonrpc.js";
import { sanitizeText } from "../shared/sanitize.js";
import { channelFor, type Telemetry } from "../telemetry/events.js";
import type { Transport } from "../transport/transport.js";
import { DeadlineTimers } from "./deadline-timers.js";
import type { Op } from "./op.js";
import { PendingRequests } from "./pending.js";
import type { ConnectionHooks, ProgressParams, ServerRequestInfo } from "./types.js";

/** Read once: whether anyone listens is a property read per request, not a lookup. */
/**
 * Progress notifications one request's `onProgress` hears one by one in one event-loop turn;
 * past this, the rest of that turn is heard as its latest (docs/requests.md).
 */
export const PROGRESS_PER_TURN = 32;

const REQUEST_START = channelFor("request:start");
const REQUEST_STOP = channelFor("request:stop");

/** What the dispatch needs of the connection around it: where to send, and in what state. */
export interface DispatchHost<S> {
  telemetry: Telemetry;
  hooks: ConnectionHooks;
  maxInFlight: number;
  maxQueued: number;
  /** The current transport, if any. */
  transport(): Transport | undefined;
  /** The current session (null while connecting). */
  session(): S | null;
  ready(): boolean;
  /** Whether `-32022` to `op` is answered by settling the version again and resending it. */
  mayRenegotiate(op: Op<S>): boolean;
  /** Settles the version again and resends `op` (it is out of the pending map). */
  renegotiate(op: Op<S>, supported: unknown): void;
  /** Whether `error` says the session's era is wrong (one taken from a shared record): settle again. */
  eraMiss(error: unknown): boolean;
  /** Why the connection is not ready (its last failure while reconnecting), or null. */
  downReason(): McpClientError | null;
}

/**
 * The request side of one connection: ids, sending, the in-flight and queue limits, deadlines
 * and cancellation, matching responses and progress to their requests, and settling each request
 * once. The connection's state machine decides when there is a transport to send on; this never
 * changes state.
 */
export class RequestDispatch<S> {
  readonly #h: DispatchHost<S>;
  readonly #pending = new PendingRequests<S>();
  readonly #timers = new DeadlineTimers<S>(this);
  #nextId = 0;

  constructor(host: DispatchHost<S>) {
    this.#h = host;
  }

  /**
   * A request's deadline passed (the deadline timer). One that waited in the queue through
   * reconnects and never went out says why: the connection's last failure is its `cause`.
   */
  expired(op: Op<S>): void {
    const why = this.#pending.queue.includes(op) ? this.#h.downReason() : null;
    const error = new McpClientError(
      "timeout",
      "deadline_exceeded",
      undefined,
      why ? { cause: why } : undefined,
    );
    this.cancel(op, "timeout", error);
  }

  get inFlight(): number {
    return this.#pending.size;
  }

  get queued(): number {
    return this.#pending.queue.length;
  }

  /** A caller's request: sent now when ready and there is room, else queued; or refused. */
  submit(op: Op<S>): McpClientError | undefined {
    const queue = this.#pending.queue;
    if (this.#h.ready() && queue.length === 0) {
      if (op.budgeted && this.#pending.budgeted >= this.#h.maxInFlight) {
        return new McpClientError("overloaded", "max_in_flight");
      }
      this.#arm(op);
      this.send(op);
    } else {
      if (queue.length >= this.#h.maxQueued) return new McpClientError("overloaded", "max_queued");
      this.#arm(op);
      queue.push(op);
    }
    return undefined;
  }

  /** One of the connection's own requests (the handshake, a health check): straight to the wire. */
  sendOwn(op: Op<S>): void {
    this.#timers.arm(op);
    this.send(op);
  }

  /**
   * Stops the clock of request `id` (in flight) until the returned function is called: the time
   * in between is added to its deadline, which never passes its cap. Pauses nest. An unknown id
   * pauses nothing.
   */
  pause(id: RequestId): () => void {
    const op = this.#pending.get(id);
    if (!op || op.settled) return () => {};
    // Server requests tied to this one are being answered: only the cap can end it now.
    const resume = op.deadline.pause();
    this.#timers.rearm(op);
    return () => {
      resume();
      this.#timers.rearm(op);
    };
  }

  /** Which of the client's requests a server request belongs to (see PendingRequests.relate). */
  relate(transportRelated: RequestId | undefined): ServerRequestInfo {
    return this.#pending.relate(transportRelated);
  }

  /** Watches the request's deadline, and the caller's signal. */
  #arm(op: Op<S>): void {
    this.#timers.arm(op);
    const signal = op.signal;
    if (signal) {
      op.onAbort = () => this.cancel(op, "aborted", signal.reason);
      signal.addEventListener("abort", op.onAbort, { once: true });
    }
  }

  /** Gives up on a request: tell the server if it was sent, then fail it with `error`. */
  cancel(op: Op<S>, why: "timeout" | "aborted", error: unknown): void {
    if (op.settled) return;
    if (this.#pending.holds(op)) {
      const id = op.id!;
      this.#pending.take(id);
      this.#h.telemetry.emit("request:cancel", () => ({
        method: sanitizeText(op.method, { maxLength: 128 }),
        requestId: id,
        reason: why,
      }));
      const cancelled: JsonRpcMessage = {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: id, reason: why === "timeout" ? "timeout" : "cancelled by the caller" },
      };
      const t = this.#h.transport();
      try {
        // A send's promise (a Transport may return one) is the write's to handle, never dropped.
        if (t?.cancel) t.cancel(id, cancelled);
        else this.write(cancelled);
      } catch {
        // The transport is gone; there is nothing to cancel on.
      }
      this.drain();
    } else {
      this.#pending.unqueue(op);
    }
    this.settle(op, error);
  }

  /** Gives `op` an id, builds its params for the session, and hands it to the transport. */
  send(op: Op<S>): void {
    const session = this.#h.session();
    if (typeof op.methodFor !== "string") op.method = op.methodFor(session as S);
    if (op.tracedAt === 0 && (REQUEST_START.hasSubscribers || REQUEST_STOP.hasSubscribers)) {
      op.tracedAt = Date.now();
      this.#h.telemetry.emit("request:start", () => ({
        method: sanitizeText(op.method, { maxLength: 128 }),
      }));
    }
    const id = ++this.#nextId;
    let params: Record<string, unknown>;
    try {
      // A progress token whenever progress matters: to a callback, or to the deadline.
      const wantsProgress = op.onProgress !== undefined || op.resetTimeoutOnProgress;
      params = op.caller.params(session as S, wantsProgress ? id : undefined, id);
    } catch (err) {
      return this.settle(op, err);
    }
    this.#pending.add(id, op);
    const t = this.#h.transport();
    try {
      if (!t) throw new McpClientError("transport", "not_connected");
      const sent = t.send({ jsonrpc: "2.0", id, method: op.method, params });
      if (sent instanceof Promise) sent.catch((err) => this.#failSend(op, id, err));
    } catch (err) {
      this.#failSend(op, id, err);
    }
  }

  #failSend(op: Op<S>, id: number, err: unknown): void {
    if (this.#pending.get(id) !== op) return;
    this.#pending.take(id);
    // A TypeError or RangeError from JSON.stringify is the caller's: arguments JSON cannot carry
    // (a cycle, a BigInt), or nested so deep its stringify overflowed the stack.
    const error =
      err instanceof TypeError
        ? new TypeError("conduit-mcp: request params are not JSON-serialisable (a cycle, a BigInt?)")
        : err instanceof RangeError
          ? new TypeError("conduit-mcp: request params are too deeply nested or too large to send as JSON")
          : asClientError(err, "transport", "send_failed");
    this.settle(op, error);
    this.drain();
  }

  /** A message that answers nothing (a notification, a reply to the server); errors are dropped. */
  write(message: JsonRpcMessage): void {
    try {
      const sent = this.#h.transport()?.send(message);
      if (sent instanceof Promise) sent.catch(() => {});
    } catch {
      // A notification to a transport that just went away: nothing to report to anyone.
    }
  }

  /** Settles `op` once: its timer and signal listener go, the latest progress goes first. */
  settle(op: Op<S>, error: unknown, result?: Record<string, unknown>): void {
    if (op.settled) return;
    op.settled = true;
    this.#timers.disarm(op);
    if (op.onAbort) op.signal!.removeEventListener("abort", op.onAbort);
    // Progress not yet delivered still goes before the result it led to.
    if (error === undefined && op.progress) this.#deliverProgress(op, false);
    op.progress = undefined;
    if (op.tracedAt !== 0) {
      this.#h.telemetry.emit("request:stop", () => ({
        method: sanitizeText(op.method, { maxLength: 128 }),
        requestId: op.id ?? null,
        // An abort is the caller's choice, not an error kind.
        status:
          error === undefined
            ? "ok"
            : op.signal?.aborted && error === op.signal.reason
              ? "cancelled"
              : "error",
        errorKind: error instanceof McpClientError ? error.kind : null,
        duration: Date.now() - op.tracedAt,
      }));
    }
    if (error === undefined) op.caller.resolved(result!);
    else op.caller.rejected(error);
  }

  /** Sends queued requests while there is room in flight. */
  drain(): void {
    if (!this.#h.ready()) return;
    // Queued requests the budget does not count (none today) would not be held back by it.
    const queue = this.#pending.queue;
    while (queue.length > 0 && (this.#pending.budgeted < this.#h.maxInFlight || !queue[0]!.budgeted)) {
      this.send(queue.shift()!);
    }
  }

  /** Fails every request in flight (the queue waits for the next connection). */
  failPending(error: McpClientError): void {
    for (const op of this.#pending.takeAll()) this.settle(op, error);
  }

  /** Fails every queued request. */
  failQueued(error: McpClientError): void {
    for (const op of this.#pending.queue.splice(0)) this.settle(op, error);
  }

  /** Closed for now: the deadline timer goes, so it holds nothing of the connection. */
  stopTimers(): void {
    this.#timers.stop();
  }

  /** The transport could not get an answer for request `id` (an HTTP error status). */
  failed(id: RequestId, error: McpClientError): void {
    const op = this.#pending.take(id);
    if (!op) return;
    // An HTTP 400 carrying -32022 arrives here, not as a JSON-RPC response.
    if (
      this.#h.mayRenegotiate(op) &&
      (jsonRpcCode(error) === ErrorCodes.unsupportedProtocolVersion || this.#h.eraMiss(error))
    ) {
      op.retried = true;
      this.#h.renegotiate(op, (error.data as { data?: unknown } | undefined)?.data);
    } else {
      this.settle(op, error);
    }
    this.drain();
  }

  /**
   * Request `id` never reached the server. A caller's request waits for the next connection (the
   * transport reports itself closed next); the client's own are part of this connection.
   */
  undelivered(id: RequestId, error: McpClientError): void {
    const op = this.#pending.take(id);
    if (!op) return;
    if (op.internal || op.background || !this.#h.ready()) return this.settle(op, error);
    op.id = undefined;
    this.#pending.queue.unshift(op);
  }

  /**
   * A response: settles its request (a result the client refuses fails it instead). `source`,
   * the text the transport parsed it from, goes to the request first (`OpCaller.source`).
   */
  response(m: JsonRpcResponse, relatedRequestId: RequestId | undefined, source?: string): void {
    const id = m.id;
    // A response on another request's stream (modern HTTP scopes a stream to its request) is
    // smuggled: that request still gets its own answer.
    const scoped = relatedRequestId === undefined || relatedRequestId === id;
    const op = !scoped || id === undefined || id === null ? undefined : this.#pending.take(id);
    if (!op) {
      if (!scoped) this.#h.hooks.warn("dropped a response that came on another request's stream");
      this.#h.telemetry.emit("response:dropped", () => ({ requestId: typeof id === "number" ? id : null }));
      return;
    }
    if ("result" in m) {
      const refused = this.#h.hooks.checkResult?.(op.method, m.result);
      // The text goes first, to the request the op was found for (so `id` is set).
      if (source !== undefined && !refused) op.caller.source?.(source, id as RequestId);
      this.settle(op, refused, refused ? undefined : m.result);
    } else {
      const code = m.error.code;
      const error = rpcError(m.error);
      if (
        this.#h.mayRenegotiate(op) &&
        (code === ErrorCodes.unsupportedProtocolVersion || this.#h.eraMiss(error))
      ) {
        op.retried = true;
        this.#h.renegotiate(op, m.error.data);
      } else {
        this.settle(op, error);
      }
    }
    this.drain();
  }

  /** `notifications/progress` for a request in flight. */
  progress(params: Record<string, unknown> | undefined): void {
    const token = params?.progressToken;
    if (typeof token !== "number" && typeof token !== "string") return;
    const op = this.#pending.get(token);
    if (!op || typeof params?.progress !== "number") return;
    // The timer sees the later end when it fires, and waits on.
    if (op.resetTimeoutOnProgress) op.deadline.extend();
    if (!op.onProgress) return;
    // Delivered in order once this turn's reads are done; past PROGRESS_PER_TURN in one turn, only
    // the latest of the rest is kept (a server cannot flood the callback), so the last one arrives.
    const p = params as ProgressParams;
    const queued = op.progress;
    if (queued === undefined) {
      op.progress = [p];
      setImmediate(() => this.#deliverProgress(op, true));
    } else if (queued.length < PROGRESS_PER_TURN) queued.push(p);
    else queued[PROGRESS_PER_TURN] = p;
  }

  /** Hands the queued progress to `onProgress`; `untilSettled`: stop once the request has ended. */
  #deliverProgress(op: Op<S>, untilSettled: boolean): void {
    const queued = op.progress;
    op.progress = undefined;
    if (!queued) return;
    for (const params of queued) {
      if (untilSettled && op.settled) return;
      try {
        op.onProgress!(params);
      } catch (err) {
        this.#h.hooks.warn(`an onProgress callback threw: ${sanitizeText(String(err), { maxLength: 200 })}`);
      }
    }
  }
}

export function asClientError(err: unknown, kind: "transport" | "protocol", reason: string): McpClientError {
  if (err instanceof McpClientError) return err;
  return new McpClientError(kind, reason, undefined, { cause: err });
}

/** A JSON-RPC error from the server, as `kind: "protocol"`; its text is kept only in `data`. */
export function rpcError(e: JsonRpcErrorObject): McpClientError {
  const message = typeof e.message === "string" ? sanitizeText(e.message, { maxLength: 1024 }) : "";
  return new McpClientError(
    "protocol",
    "jsonrpc_error",
    { message, data: e.data },
    { detail: { jsonrpc: e.code } },
  );
}
