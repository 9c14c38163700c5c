/**
 * What the parts of the HTTP transport (one exchange, the legacy session, the GET stream, the
 * 2024 channel) share: the transport's state and its routing of what the server sends. The
 * transport (transport.ts) is the one implementation; the parts never see each other's fields.
 * The session and the channel appear here as what the other parts ask of them, so this file
 * names no part and every part can stand on it.
 */
import type { Readable } from "node:stream";
import type { McpClientError } from "../../shared/errors.js";
import type { Secret } from "../../shared/secret.js";
import type { HttpCredentials } from "./credentials.js";
import type { Exchange } from "./exchange-state.js";
import type { HttpFetcher } from "./fetcher.js";
import type { Headers } from "./headers.js";
import type { ToolHeaderAnnotations } from "./mcp-headers.js";
import type { ResolvedHttpOptions } from "./options.js";

export const ACCEPT_POST = "application/json, text/event-stream";
export const ACCEPT_SSE = "text/event-stream";

export interface HttpHost {
  readonly options: ResolvedHttpOptions;
  readonly fetcher: HttpFetcher;
  readonly credentials: HttpCredentials;
  readonly session: SessionPart;
  /** The 2024 channel, made on first use (reading `sseActive` makes none). */
  readonly sse: ChannelPart;
  /** The 2024 channel is open: its POSTs carry the messages. */
  readonly sseActive: boolean;
  readonly annotations: ToolHeaderAnnotations;
  /** Counts starts and stops: work of an older generation is dropped. */
  readonly gen: number;
  readonly running: boolean;
  /** accept, content-type and the user's headers (Secrets revealed), as a fresh object. */
  baseHeaders(accept?: string): Record<string, string>;
  /**
   * One message from the server; `raw` is the text it was parsed from (a JSON body's may be a
   * batch holding more), `on` the request whose body or stream carried it.
   */
  incoming(m: unknown, raw: string, gen: number, on?: Exchange): void;
  /** Runs an exchange the transport tracks by id until it is answered, failed or cancelled. */
  run(ex: Exchange): Promise<void>;
  track(ex: Exchange): void;
  untrack(ex: Exchange): void;
  /** Fails one request with `err` (or drops it when it was aborted on purpose). */
  fail(ex: Exchange, err: unknown): void;
  /** The 2024 channel ended: nothing more can arrive, so the transport is closed with `error`. */
  channelEnded(error: McpClientError): void;
  /** The server stream of a legacy session is lost: the transport is reported failed. */
  streamLost(gen: number, err: unknown): void;
  /** A legacy session was renewed (the client resends what the old one knew). */
  renewed(): void;
  warn(text: string): void;
}

/** The legacy session (legacy-session.ts) as an exchange and the GET stream use it. */
export interface SessionPart {
  /** True once an `initialize` went out (the legacy shape is in use). */
  readonly active: boolean;
  readonly sessionId: Secret | undefined;
  /** What legacy requests wait for (the handshake's end, a renewal), or undefined. */
  readonly gate: Promise<void> | undefined;
  /** The server's `retry:` kept between `minResumeDelay` and `max`. */
  resumeDelay(ms: number, max: number): number;
  /** Adds the session headers to a legacy request; returns the session id it carries. */
  addTo(h: Record<string, string>): Secret | undefined;
  /** Headers of a legacy request the transport makes itself. */
  headers(accept: string): Record<string, string>;
  /** The `initialize` answer's session id, checked. */
  capture(headers: Headers, body: Readable): void;
  /** `notifications/initialized` is going out as `sent`: later requests wait for it. */
  initialized(sent: Promise<void>): void;
  /** A 404 to a request that carried `stale`: start a new session (once, shared by everyone). */
  renew(stale: Secret): Promise<void>;
}

/** The deprecated 2024-11-05 channel (sse-channel.ts) as an exchange and the GET stream use it. */
export interface ChannelPart {
  /** True while the transport speaks the 2024 shape. */
  readonly active: boolean;
  /** Opens the channel; resolves once its `endpoint` event has arrived. */
  open(gen: number): Promise<void>;
  /** Posts a request; its response comes on the stream. A failure fails the request. */
  postRequest(ex: Exchange): Promise<void>;
  /** Posts one message to the endpoint; rejects with the typed error of a refusal. */
  post(body: string): Promise<void>;
}
