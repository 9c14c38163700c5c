/**
 * What the parts of the HTTP transport (one exchange, the legacy session, the GET stream, the
 * 2024 channel) share: the transport's state and its routing of what the server sends. The
 * transport (transport.ts) is the one implementation; the parts never see each other's fields.
 */
import type { McpClientError } from "../../shared/errors.js";
import type { HttpCredentials } from "./credentials.js";
import type { Exchange } from "./exchange.js";
import type { HttpFetcher } from "./fetcher.js";
import type { LegacySession } from "./legacy-session.js";
import type { ToolHeaderAnnotations } from "./mcp-headers.js";
import type { ResolvedHttpOptions } from "./options.js";
import type { SseChannel } from "./sse-channel.js";

export const ACCEPT_POST = "application/json, text/event-stream";
export const ACCEPT_SSE = "text/event-stream";

export interface HttpHost {
  readonly options: ResolvedHttpOptions;
  readonly fetcher: HttpFetcher;
  readonly credentials: HttpCredentials;
  readonly session: LegacySession;
  readonly sse: SseChannel;
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
