import type { JsonRpcNotification, JsonRpcRequest } from "../transport/jsonrpc.js";

export type ConnectionState =
  | "connecting"
  | "discovering"
  | "initializing"
  | "ready"
  | "reconnecting"
  | "closed";

export type Era = "modern" | "legacy";

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

/** Runs the handshake for one connection attempt and answers with the session it settled. */
export interface Negotiator<S extends NegotiatedSession> {
  negotiate(link: Link): Promise<S>;
  /** A ready connection heard that its version is unsupported: settle again on the same link. */
  renegotiate(link: Link, supported: unknown): Promise<S>;
  /** The transport ended during the handshake: should the next attempt start at once? */
  retryAfterHandshakeExit(): boolean;
}

export interface ConnectionHooks {
  /** A server notification other than progress for a request in flight. */
  notification(message: JsonRpcNotification): void;
  /** A server request (legacy era). Resolve with the result; reject to answer an error. */
  serverRequest(message: JsonRpcRequest): Promise<Record<string, unknown>>;
  warn(text: string): void;
}

/** Per-request options the connection enforces. */
export interface SendOptions {
  timeout: number;
  maxTotalTimeout: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((params: ProgressParams) => void) | undefined;
  resetTimeoutOnProgress?: boolean | undefined;
}

export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

/** Builds a request's params once the session (era, version) is known. */
export type ParamsBuilder<S> = (session: S, progressToken: number | undefined) => Record<string, unknown>;
