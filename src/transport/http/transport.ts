/**
 * Streamable HTTP: the modern (2026-07-28) shape, one POST per request with the standard request
 * headers; the legacy (2025-11-25, 2025-06-18) shape with its session, standalone GET stream and
 * resumption; and the deprecated 2024-11-05 HTTP+SSE transport. The shape follows from the
 * messages: a request whose `_meta` names a protocol version is modern, `initialize` starts the
 * legacy shape.
 *
 * This file is the transport's life and its routing of messages; the parts are beside it: the
 * fetcher (pool, redirects, DNS pinning), the credentials, one exchange, the legacy session and
 * its GET stream, the 2024 channel, the header annotations and the error mapping (answers.ts).
 */
import { McpClientError } from "../../shared/errors.js";
import {
  classifyMessage,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from "../../shared/jsonrpc.js";
import { revealIfSecret } from "../../shared/secret.js";
import { META } from "../../shared/versions.js";
import type { TransportCredentials } from "../credentials.js";
import type { Transport, TransportSink } from "../transport.js";
import { HttpCredentials } from "./credentials.js";
import { postOneWay, runExchange } from "./exchange.js";
import { Exchange } from "./exchange-state.js";
import { Exchanges } from "./exchanges.js";
import { Aborted, failureCode, HttpFetcher, notConnected } from "./fetcher.js";
import { ACCEPT_POST, type HttpHost } from "./host.js";
import { LegacySession } from "./legacy-session.js";
import { ToolHeaderAnnotations } from "./mcp-headers.js";
import {
  type HttpAuth,
  type HttpTransportOptions,
  type ResolvedHttpOptions,
  resolveHttpOptions,
} from "./options.js";
import { SseChannel } from "./sse-channel.js";

const BASE: Record<string, string> = { accept: ACCEPT_POST, "content-type": "application/json" };

/**
 * One instance can be started again after it closed (a reconnect); `setAuth` replaces the
 * credentials for every request from then on.
 */
export class HttpTransport implements Transport {
  readonly kind = "http";
  readonly #o: ResolvedHttpOptions;
  readonly #credentials: HttpCredentials;
  readonly #fetcher: HttpFetcher;
  /** Made on the first legacy request: a modern client never has one (~150 B, issue 26). */
  #session: LegacySession | undefined;
  /** The 2024 HTTP+SSE channel, made when first opened: most transports never use it (48 B). */
  #sse: SseChannel | undefined;
  readonly #annotations = new ToolHeaderAnnotations();
  readonly #exchanges = new Exchanges();
  #sink: TransportSink | undefined;
  #running = false;
  #reported = false;
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #gen = 0;
  /** The generation whose end is scheduled (nothing could be connected to). */
  #losing = -1;
  /** Static headers: accept, content-type and the user's headers (Secrets revealed). */
  #base: Record<string, string> = BASE;
  /** What the parts see of this transport (host.ts). */
  readonly #host: HttpHost;

  /**
   * The host the parts see: a class inside this one, so it reads the transport's private state,
   * with its methods on one prototype. One field per transport, where an object literal of
   * arrows and getters made about 20 closures for each (~1.2 KB per client, issue 12).
   */
  static readonly #Host = class implements HttpHost {
    readonly #t: HttpTransport;
    readonly options: ResolvedHttpOptions;
    readonly fetcher: HttpFetcher;
    readonly credentials: HttpCredentials;
    readonly annotations: ToolHeaderAnnotations;
    constructor(t: HttpTransport) {
      this.#t = t;
      this.options = t.#o;
      this.fetcher = t.#fetcher;
      this.credentials = t.#credentials;
      this.annotations = t.#annotations;
    }
    get session(): LegacySession {
      return this.#t.#legacy();
    }
    get sse(): SseChannel {
      return this.#t.#channel();
    }
    get sseActive(): boolean {
      return this.#t.#sse?.active === true;
    }
    get gen(): number {
      return this.#t.#gen;
    }
    get running(): boolean {
      return this.#t.#running;
    }
    baseHeaders(accept?: string): Record<string, string> {
      return this.#t.#baseHeaders(accept);
    }
    incoming(m: unknown, raw: string, gen: number, on?: Exchange): void {
      this.#t.#incoming(m, raw, gen, on);
    }
    run(ex: Exchange): Promise<void> {
      return runExchange(this, ex);
    }
    track(ex: Exchange): void {
      this.#t.#exchanges.set(ex.id, ex);
    }
    untrack(ex: Exchange): void {
      this.#t.#exchanges.delete(ex.id);
    }
    fail(ex: Exchange, err: unknown): void {
      this.#t.#failExchange(ex, err);
    }
    channelEnded(error: McpClientError): void {
      this.#t.#channelEnded(error);
    }
    streamLost(gen: number, err: unknown): void {
      this.#t.#streamLost(gen, err);
    }
    renewed(): void {
      this.#t.#sink?.renewed?.();
    }
    warn(text: string): void {
      this.#t.#sink?.warn?.(text);
    }
  };

  constructor(options: Omit<HttpTransportOptions, "type"> & { type?: "http" }) {
    this.#o = resolveHttpOptions(options, "transport");
    this.#credentials = new HttpCredentials(this.#o);
    this.#fetcher = new HttpFetcher(this.#o, this.#credentials);
    this.#host = new HttpTransport.#Host(this);
  }

  #channel(): SseChannel {
    this.#sse ??= new SseChannel(this.#host);
    return this.#sse;
  }

  #legacy(): LegacySession {
    this.#session ??= new LegacySession(this.#host);
    return this.#session;
  }

  /** The endpoint URL (for diagnostics). */
  get url(): string {
    return this.#o.url.href;
  }

  /**
   * Replaces the credentials: any `auth` form, with `credentialId` for a function. Takes effect
   * for the next request; reconnect to drop a session opened with the old ones. Throws a
   * `TypeError` for invalid credentials, as the constructor does.
   */
  setAuth(auth: HttpAuth | null | undefined, options: { credentialId?: string } = {}): void {
    this.#credentials.replace(auth, options);
  }

  /** Counts credential changes (see `TransportCredentials.generation`). */
  get credentialGeneration(): number {
    return this.#credentials.generation;
  }

  /** Who the credentials are, for caching private results (see `TransportCredentials.identity`). */
  get credentialIdentity(): string | null | undefined {
    return this.#credentials.identity;
  }

  /** See `Transport.notificationStream`: the legacy session's GET stream. */
  notificationStream(): number | null {
    return this.#session?.heard ?? null;
  }

  /** The credentials seam (transport/credentials.ts): what setAuth and the cache use. */
  get credentials(): TransportCredentials {
    return this.#credentials;
  }

  #baseHeaders(accept = ACCEPT_POST): Record<string, string> {
    const h = { ...this.#base };
    if (accept !== ACCEPT_POST) {
      h.accept = accept;
      // Only a POST has a body to describe.
      delete h["content-type"];
    }
    return h;
  }

  // ---- life ----------------------------------------------------------------------------------

  start(sink: TransportSink): Promise<void> {
    if (this.#running || this.#starting) throw new McpClientError("transport", "already_started");
    this.#starting = this.#start(sink).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(sink: TransportSink): Promise<void> {
    if (this.#stopping) await this.#stopping;
    this.#stopping = undefined;
    await this.#fetcher.start();
    const o = this.#o;
    this.#sink = sink;
    this.#reported = false;
    this.#session?.reset();
    this.#sse?.close();
    // Only copied from (#baseHeaders): one record for every transport with no headers of its own.
    this.#base = o.headers.length === 0 ? BASE : { ...BASE };
    for (const [name, value] of o.headers) this.#base[name] = revealIfSecret(value);
    if (o.insecureSkipTlsVerify) {
      sink.warn?.(
        "TLS certificate verification is off (insecureSkipTlsVerify): use this for local development only",
      );
    }
    await this.#credentials.prepare({
      dispatcher: () => this.#fetcher.authDispatcher(),
      vet: this.#fetcher.vet,
    });
    this.#running = true;
    const gen = ++this.#gen;
    if (o.legacySse === "only") {
      try {
        await this.#channel().open(gen);
      } catch (err) {
        await this.#teardown();
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    if (this.#starting) await this.#starting.catch(() => {});
    if (this.#running && !this.#stopping) this.#stopping = this.#stop();
    if (this.#stopping) await this.#stopping;
  }

  async #stop(): Promise<void> {
    this.#running = false;
    this.#gen++;
    for (const ex of this.#exchanges.values()) {
      ex.cancelled = true;
      ex.controller.abort();
    }
    this.#exchanges.clear();
    this.#session?.stopListening();
    const sse = this.#sse?.active === true;
    this.#sse?.close();
    // The session is done: tell the server (the 2024 channel has no session to end).
    if (!sse) await this.#session?.terminate();
    this.#session?.reset();
    await this.#teardown();
    this.#report();
  }

  async #teardown(): Promise<void> {
    this.#running = false;
    await this.#fetcher.stop();
  }

  #report(error?: McpClientError): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#sink?.closed(error);
  }

  /** The 2024 channel's stream ended: every request is dropped and the transport closed. */
  #channelEnded(error: McpClientError): void {
    for (const ex of this.#exchanges.values()) ex.cancelled = true;
    this.#exchanges.clear();
    this.#gen++;
    void this.#teardown();
    this.#report(error);
  }

  /**
   * A legacy connection whose server stream cannot be had again hears nothing more from the
   * server: report the transport failed, so the client reconnects with a new session.
   */
  #streamLost(gen: number, err: unknown): void {
    if (gen !== this.#gen || !this.#running) return;
    const error = err instanceof McpClientError ? err : new McpClientError("transport", "event_stream_lost");
    this.#sink?.closed(error);
  }

  // ---- sending -------------------------------------------------------------------------------

  send(message: JsonRpcMessage): void | Promise<void> {
    if (!this.#running) throw new McpClientError("transport", "not_connected");
    // A TypeError (a cycle, a BigInt) is the caller's and is thrown as is.
    const body = JSON.stringify(message);
    if (!("method" in message) || !("id" in message) || message.id === undefined) {
      return postOneWay(this.#host, body, "method" in message ? message.method : undefined);
    }
    const m = message as JsonRpcRequest;
    const meta = m.params?._meta as Record<string, unknown> | undefined;
    const pv = meta?.[META.protocolVersion];
    const version = typeof pv === "string" ? pv : undefined;
    if (version === undefined && m.method === "initialize") this.#legacy().begin(m);
    const ex = new Exchange(m.id, m, body, version, this.#gen);
    this.#exchanges.set(m.id, ex);
    if (this.#sse?.active) void this.#sse.postRequest(ex);
    else void runExchange(this.#host, ex);
  }

  cancel(id: RequestId, cancelled: JsonRpcMessage): void {
    const ex = this.#exchanges.get(id);
    if (ex) {
      ex.cancelled = true;
      this.#exchanges.delete(id);
    }
    if (!this.#running) return;
    if (this.#sse?.active) {
      postOneWay(this.#host, JSON.stringify(cancelled), "notifications/cancelled").catch(() => {});
      return;
    }
    if (!ex) return;
    if (ex.version !== undefined) {
      // Modern: closing the response stream is the cancellation.
      ex.controller.abort();
      return;
    }
    // Legacy: tell the server, then close the stream.
    postOneWay(this.#host, JSON.stringify(cancelled), "notifications/cancelled")
      .catch(() => {})
      .finally(() => ex.controller.abort());
  }

  // ---- receiving -----------------------------------------------------------------------------

  /**
   * One message from the server, from any body or stream; `on` is the request whose response
   * body or stream carried it (none for the standalone streams).
   */
  #incoming(m: unknown, raw: string, gen: number, on?: Exchange): void {
    if (gen !== this.#gen) return;
    const cls = classifyMessage(m);
    if (cls === "invalid") {
      this.#sink?.warn?.("ignored a message from the server that is not JSON-RPC");
      return;
    }
    if (cls === "malformed_response") {
      const id = (m as { id: RequestId }).id;
      const error = new McpClientError("protocol", "malformed_response");
      const ex = this.#exchanges.get(id);
      return ex ? this.#failExchange(ex, error) : this.#sink?.fail(id, error);
    }
    const msg = m as JsonRpcMessage;
    // A request's own id, for what comes on its stream (a transport request's is no client's).
    const related = on && !on.onResponse ? on.id : undefined;
    if (cls === "result" || cls === "error") {
      const id = (msg as { id?: RequestId | null }).id;
      if (on?.version !== undefined && id !== on.id) {
        // A modern stream is scoped to its request: another id's response on it is smuggled.
        // The connection drops it (and says so); that request still waits for its own answer.
        if (related !== undefined) return this.#sink?.message(msg, related);
        this.#sink?.warn?.("dropped a response that came on another request's stream");
        return;
      }
      const ex = id === undefined || id === null ? undefined : this.#exchanges.get(id);
      if (ex) {
        ex.done = true;
        this.#exchanges.delete(ex.id);
        if (cls === "result") this.#observe(ex, (msg as { result: Record<string, unknown> }).result, raw);
        if (ex.onResponse) return ex.onResponse(msg);
      }
      // Its text, when it is the message's whole text (not a batch's): the listing's fast path.
      return this.#sink?.message(msg, undefined, cls === "result" && !isArrayText(raw) ? raw : undefined);
    }
    // A server request on a request's own stream belongs to that request.
    if (cls === "request" && related !== undefined) return this.#sink?.message(msg, related);
    this.#sink?.message(msg);
  }

  /** Learns from results passing through: the negotiated version, tools' header annotations. */
  #observe(ex: Exchange, result: Record<string, unknown>, raw: string): void {
    if (ex.method === "initialize" && ex.version === undefined && this.#session?.active) {
      this.#session.observeInit(result);
      return;
    }
    if (ex.method === "tools/list") this.#annotations.observe(result, raw);
  }

  #failExchange(ex: Exchange, err: unknown): void {
    if (ex.done || ex.cancelled || ex.gen !== this.#gen) return;
    if (err instanceof Aborted) return;
    ex.done = true;
    if (this.#exchanges.get(ex.id) === ex) this.#exchanges.delete(ex.id);
    const error =
      err instanceof McpClientError
        ? err
        : new McpClientError("transport", "request_failed", bodyFailure(err));
    if (ex.onError) return ex.onError(error);
    if (!notConnected(error) || !this.#sink?.undelivered) return this.#sink?.fail(ex.id, error);
    // Nothing could be connected to: the server went away. The request never left, so it may
    // wait for the next connection; the transport is done (the client reconnects and probes).
    this.#sink.undelivered(ex.id, error);
    // Requests sent together each fail to connect a moment apart: the transport closes after this
    // turn, so each of them is told it never left (and waits) first. Closed at once, the others
    // were failed with the transport though none had left (found in review, issue 26).
    if (this.#losing === ex.gen) return;
    this.#losing = ex.gen;
    setImmediate(() => this.#streamLost(ex.gen, error));
  }
}

/** What broke an answer's body: the parser's code when HTTP parsing refused it (kept short, no bytes). */
function bodyFailure(err: unknown): { code: string } | undefined {
  const code = failureCode(err);
  return code && /^[A-Z0-9_]{1,64}$/.test(code) ? { code } : undefined;
}

/** Whether a JSON text is an array (a batch): its first character that is not whitespace is `[`. */
function isArrayText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return c === 0x5b;
  }
  return false;
}
