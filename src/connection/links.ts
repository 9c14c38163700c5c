/**
 * The two objects a connection hands to its parts: the dispatch's host and a transport's sink.
 * They were records of closures (six for the host, six for each sink: ~1 KB per client, issue 26);
 * here they are small objects whose methods sit on their prototypes and reach into the
 * connection through `Reach`, one table of functions that connection.ts makes once for every
 * connection (it alone can read the connection's private fields).
 */
import type { McpClientError } from "../shared/errors.js";
import type { JsonRpcMessage, RequestId } from "../shared/jsonrpc.js";
import type { Telemetry } from "../telemetry/events.js";
import type { Transport, TransportSink } from "../transport/transport.js";
import type { DispatchHost, RequestDispatch } from "./dispatch.js";
import type { Op } from "./op.js";
import type { ConnectionHooks } from "./types.js";

/** What the host and the sinks read or do inside connection `c` (its private fields). */
export interface Reach<C, S> {
  transport(c: C): Transport | undefined;
  session(c: C): S | null;
  ready(c: C): boolean;
  gen(c: C): number;
  dispatch(c: C): RequestDispatch<S>;
  hooks(c: C): ConnectionHooks;
  /** Whether `-32022` to `op` is answered by settling the version again and resending it. */
  mayRenegotiate(c: C, op: Op<S>): boolean;
  renegotiate(c: C, op: Op<S>, supported: unknown): void;
  eraMiss(c: C, error: unknown): boolean;
  /** Why the connection is not ready (its last failure), or null when ready. */
  downReason(c: C): McpClientError | null;
  receive(c: C, m: JsonRpcMessage, relatedRequestId?: RequestId, source?: string): void;
  transportClosed(c: C, error: McpClientError | undefined): void;
}

/** The dispatch's view of its connection. */
export class DispatchLink<C, S> implements DispatchHost<S> {
  readonly telemetry: Telemetry;
  readonly hooks: ConnectionHooks;
  readonly maxInFlight: number;
  readonly maxQueued: number;
  readonly #c: C;
  readonly #r: Reach<C, S>;

  constructor(
    c: C,
    r: Reach<C, S>,
    limits: { telemetry: Telemetry; maxInFlight: number; maxQueued: number },
  ) {
    this.#c = c;
    this.#r = r;
    this.telemetry = limits.telemetry;
    this.hooks = r.hooks(c);
    this.maxInFlight = limits.maxInFlight;
    this.maxQueued = limits.maxQueued;
  }

  transport(): Transport | undefined {
    return this.#r.transport(this.#c);
  }
  session(): S | null {
    return this.#r.session(this.#c);
  }
  ready(): boolean {
    return this.#r.ready(this.#c);
  }
  mayRenegotiate(op: Op<S>): boolean {
    return this.#r.mayRenegotiate(this.#c, op);
  }
  renegotiate(op: Op<S>, supported: unknown): void {
    this.#r.renegotiate(this.#c, op, supported);
  }
  eraMiss(error: unknown): boolean {
    return this.#r.eraMiss(this.#c, error);
  }
  downReason(): McpClientError | null {
    return this.#r.downReason(this.#c);
  }
}

/**
 * What one attempt's transport reports to: everything it says counts only while that attempt
 * (`gen`) is the connection's current one.
 */
export class ConnectionSink<C, S> implements TransportSink {
  readonly #c: C;
  readonly #r: Reach<C, S>;
  readonly #gen: number;

  constructor(c: C, r: Reach<C, S>, gen: number) {
    this.#c = c;
    this.#r = r;
    this.#gen = gen;
  }

  #current(): boolean {
    return this.#gen === this.#r.gen(this.#c);
  }

  // A transport that knows which request a server request belongs to passes its id; one that
  // has the message's text passes it too (for the request that the answer settles).
  message(m: JsonRpcMessage, relatedRequestId?: RequestId, source?: string): void {
    if (this.#current()) this.#r.receive(this.#c, m, relatedRequestId, source);
  }
  fail(id: RequestId, error: McpClientError): void {
    if (this.#current()) this.#r.dispatch(this.#c).failed(id, error);
  }
  undelivered(id: RequestId, error: McpClientError): void {
    if (this.#current()) this.#r.dispatch(this.#c).undelivered(id, error);
  }
  closed(error?: McpClientError): void {
    if (this.#current()) this.#r.transportClosed(this.#c, error);
  }
  warn(text: string): void {
    this.#r.hooks(this.#c).warn(text);
  }
  renewed(): void {
    if (this.#current()) this.#r.hooks(this.#c).sessionRenewed?.();
  }
}
