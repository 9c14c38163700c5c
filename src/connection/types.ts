import type { Deadline } from "../shared/deadline.js";
import type { McpClientError } from "../shared/errors.js";
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from "../shared/jsonrpc.js";
import type { ProgressParams } from "../shared/request-options.js";
import type { Era } from "../shared/versions.js";

/** Re-exported: the era is shared vocabulary (src/shared/versions.ts). */
export type { Era };

export type ConnectionState =
  | "connecting"
  | "discovering"
  | "initializing"
  | "ready"
  | "reconnecting"
  | "closed";

/** What a handshake settled; the protocol layer keeps more, the connection needs only this. */
export interface NegotiatedSession {
  era: Era;
  version: string;
}

/** How the handshake talks to the server: straight to the wire, no queue and no limits. */
export interface Link {
  readonly transportKind: string;
  request(method: string, params: Record<string, unknown>, timeout: number): Promise<Record<string, unknown>>;
  notify(method: string, params?: Record<string, unknown>): void;
  setState(state: "discovering" | "initializing"): void;
}

/**
 * Thrown by a negotiator whose handshake needs a fresh transport to go on (the server exited
 * during the probe, and the next attempt starts with `initialize`). The restart is part of the
 * attempt: the connection restarts at once (no backoff, no "reconnecting"), once per attempt. It
 * is a new server all the same, so it counts against `maxReconnects`; before the first ready it
 * is made whatever the count. `error` is what the attempt fails with if no restart is made.
 */
export class HandshakeRestart extends Error {
  constructor(readonly error: McpClientError) {
    super("conduit-mcp: the handshake needs a fresh transport");
  }
}

/** Runs the handshake for one connection attempt and answers with the session it settled. */
export interface Negotiator<S extends NegotiatedSession> {
  negotiate(link: Link): Promise<S>;
  /** A ready connection heard that its version is unsupported: settle again on the same link. */
  renegotiate(link: Link, supported: unknown): Promise<S>;
  /**
   * Whether a request's `error` says the session's era is wrong (a session taken from a shared
   * record, not negotiated): if so, the next `renegotiate` negotiates afresh.
   */
  eraMiss?(error: unknown, transportKind: string): boolean;
}

export interface ConnectionHooks {
  /** A server notification other than progress for a request in flight. */
  notification(message: JsonRpcNotification): void;
  /**
   * A server request (legacy era). Resolve with the result; reject with `{ code, message }` to
   * answer an error, or with `NO_REPLY` to answer nothing (the server cancelled it).
   */
  serverRequest(message: JsonRpcRequest, info: ServerRequestInfo): Promise<Record<string, unknown>>;
  warn(text: string): void;
  /** The transport replaced a legacy session: what the old one was told must be said again. */
  sessionRenewed?(): void;
  /** The connection changed state (the same facts as the `connection:transition` event). */
  transition?(event: TransitionEvent): void;
  /**
   * Vets a result before its request resolves (the client's limits on what it accepts, such as
   * nesting depth): the error to fail the request with instead, or undefined to accept it.
   */
  checkResult?(method: string, result: Record<string, unknown>): McpClientError | undefined;
}

export interface TransitionEvent {
  from: ConnectionState;
  to: ConnectionState;
  /** Why (a safe message), or null. */
  reason: string | null;
  /** The reconnect attempt this belongs to (0: the first connection, or the first since stable). */
  attempt: number;
}

/** Per-request options the connection enforces. */
export interface SendOptions {
  /**
   * The request's one deadline, made where the request started (the client) and carried here as
   * it is: the connection's timer reads it, pauses it while a server request tied to this one is
   * answered, and extends it on progress when `resetTimeoutOnProgress`; nothing passes its cap.
   */
  deadline: Deadline;
  signal?: AbortSignal | undefined;
  onProgress?: ((params: ProgressParams) => void) | undefined;
  resetTimeoutOnProgress?: boolean | undefined;
  /**
   * The client's own long-lived stream (a modern listen): outside the caller's `maxInFlight`
   * budget, so the client's streams never take the caller's slots.
   */
  background?: boolean | undefined;
  /** Opaque to the connection: handed back in `ServerRequestInfo` for server requests tied to this one. */
  context?: unknown;
}

/** What the connection knows of a server request's place among the client's own requests. */
export interface ServerRequestInfo {
  /**
   * The client's request this one belongs to: the id the transport tied it to when it knows
   * (an HTTP response stream), else the one request in flight when exactly one is, else null.
   */
  relatedRequestId: RequestId | null;
  /** The related request's `SendOptions.context`, or undefined. */
  relatedContext: unknown;
  /** The client's requests in flight now (the connection's own, such as health checks, not counted). */
  callsInFlight: number;
}

/** Thrown by `ConnectionHooks.serverRequest` to send no answer at all. */
export const NO_REPLY: unique symbol = Symbol("conduit-mcp.noReply");

/** Builds a request's params once the session (era, version) is known. */
export type ParamsBuilder<S> = (
  session: S,
  progressToken: number | undefined,
  /** The request's JSON-RPC id (a listen's subscription id is its request id). */
  id: number,
) => Record<string, unknown>;

/**
 * Who a request is for: builds its params when it is sent (maybe again, on a resend) and hears
 * once how it ended, from inside the connection's receive path (`resolved` and `rejected` must
 * not throw). One object for what a request needs, instead of a closure and a context for each
 * part: with many requests in flight, those were most of what each kept alive.
 */
export interface OpCaller<S> {
  params(session: S, progressToken: number | undefined, id: number): Record<string, unknown>;
  resolved(result: Record<string, unknown>): void;
  rejected(error: unknown): void;
  /**
   * The result about to settle it was parsed from exactly `text`, with id `id` (the transport
   * passed its text, TransportSink.message). Called just before `resolved`, only for a caller
   * that has it.
   */
  source?(text: string, id: RequestId): void;
}

export type { ProgressParams };
