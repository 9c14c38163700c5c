import type { McpClientError } from "../shared/errors.js";
import type { JsonRpcMessage, RequestId } from "../shared/jsonrpc.js";
import type { TransportCredentials } from "./credentials.js";

/** Where a transport delivers what it reads. */
export interface TransportSink {
  /**
   * One JSON-RPC message (already parsed and classified as valid JSON-RPC 2.0). A transport that
   * knows which client request a server request belongs to (it came on that request's response
   * stream) passes that request's id as `relatedRequestId`.
   *
   * `source`, when the transport has it: the exact text `message` was parsed from (all of it,
   * not a batch or a frame that held more). Optional and free to pass (no copy): with it, a tools
   * listing whose pages are the same text as the last listing's keeps that listing's intake
   * instead of examining every tool again (shared/message-source.ts says when two texts count as
   * the same).
   */
  message(message: JsonRpcMessage, relatedRequestId?: RequestId, source?: string): void;
  /**
   * One request failed in the transport without failing the connection (an HTTP status, a
   * response stream that ended without a response). The request is settled with `error`.
   */
  fail(id: RequestId, error: McpClientError): void;
  /**
   * Request `id` never reached the server (it could not be connected to), and the transport is
   * about to report itself closed: the connection may keep the request for the next connection,
   * within its own timeout, instead of failing it with `error`.
   */
  undelivered?(id: RequestId, error: McpClientError): void;
  /** The transport ended. `error` says why when it was not asked to close. Called once per start. */
  closed(error?: McpClientError): void;
  /**
   * A legacy session was replaced by a new one inside the transport (HTTP 404 renewal): the
   * server forgot what the old one was told, such as resource subscriptions and the log level.
   */
  renewed?(): void;
  /** Something worth a warning that is not a failure (sanitised text, no secrets). */
  warn?(text: string): void;
}

/**
 * Moves JSON-RPC messages between the client and one server. The client starts it once per
 * connection attempt: `start` may be called again after the transport has closed.
 *
 * Implement it to carry MCP over a channel the library does not know. Messages are objects;
 * framing, size caps and the life of the process or connection are the transport's.
 */
export interface Transport {
  /** `"stdio"`, `"http"`, `"in_process"` or your own; it appears in events and picks probe rules. */
  readonly kind: string;
  /** Opens the channel. Resolves when messages can be sent; rejects with an `McpClientError`. */
  start(sink: TransportSink): Promise<void>;
  /** Sends one message. Throws (or rejects with) an `McpClientError` when it cannot. */
  send(message: JsonRpcMessage): void | Promise<void>;
  /**
   * Cancels request `id` the way this transport cancels (stdio: write `cancelled`, which is the
   * default when this method is absent; modern HTTP: close the response stream).
   */
  cancel?(id: RequestId, cancelled: JsonRpcMessage): void;
  /** Closes the channel gracefully; resolves when it is gone. Safe to call more than once. */
  close(): Promise<void>;
  /**
   * The credentials it sends, for a transport that sends any (HTTP): who they are, how often
   * they changed, and how to replace them. Absent: the transport sends none.
   */
  readonly credentials?: TransportCredentials;
  /**
   * Whether what the server sends outside any request (legacy list_changed) reaches the client
   * now: null when it may not (HTTP: no GET stream open), else a number that stays the same for
   * as long as nothing could have been lost. Absent: all of it arrives while the channel is open
   * (a message stream: stdio, in-process).
   */
  notificationStream?(): number | null;
}

export function isTransport(value: unknown): value is Transport {
  if (typeof value !== "object" || value === null) return false;
  const t = value as Record<string, unknown>;
  return (
    typeof t.kind === "string" &&
    typeof t.start === "function" &&
    typeof t.send === "function" &&
    typeof t.close === "function"
  );
}
