import { createHash } from "node:crypto";
import { isIP, type LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { createAuthProvider, type OAuthAuthProvider } from "../../auth/load.js";
import { MemoryTokenStore } from "../../auth/memory-store.js";
import type { AuthCredential, TokenStore } from "../../auth/types.js";
import { AddressPolicy, bareHost, systemResolver, vetHost } from "../../security/url-policy.js";
import { jsonRpcCode, McpClientError } from "../../shared/errors.js";
import {
  classifyMessage,
  type JsonRpcMessage,
  type JsonRpcRequest,
  type RequestId,
} from "../../shared/jsonrpc.js";
import { revealIfSecret, Secret } from "../../shared/secret.js";
import { META } from "../../shared/versions.js";
import type { TransportCredentials } from "../credentials.js";
import type { Transport, TransportSink } from "../transport.js";
import { answerError, firstHeader, type Headers, MODERN_ERROR_CODES, parseChallenges } from "./answers.js";
import { createAuthHttp } from "./auth-http.js";
import { decoded, discard, readCapped, readEvents, readSmall } from "./body.js";
import {
  addParamHeaders,
  encodeHeaderValue,
  type McpHeaderAnnotation,
  mcpHeaderAnnotations,
  mcpNameOf,
} from "./mcp-headers.js";
import {
  HTTP_DEFAULTS,
  type HttpAuth,
  type HttpTransportOptions,
  isValidToken,
  type ResolvedHttpOptions,
  resolveAuth,
  resolveHttpOptions,
} from "./options.js";

type CreateParser = typeof import("eventsource-parser").createParser;
interface Deps {
  Pool: typeof import("undici").Pool;
  Agent: typeof import("undici").Agent;
  createParser: CreateParser;
}

let depsPromise: Promise<Deps> | undefined;

/** undici and eventsource-parser are loaded when an HTTP transport first starts, not at import. */
function loadDeps(): Promise<Deps> {
  depsPromise ??= Promise.all([import("undici"), import("eventsource-parser")]).then(([u, e]) => ({
    Pool: u.Pool,
    Agent: u.Agent,
    createParser: e.createParser,
  }));
  return depsPromise;
}

const ACCEPT_POST = "application/json, text/event-stream";
const ACCEPT_SSE = "text/event-stream";
const SESSION_ID = /^[\x21-\x7e]{1,1024}$/;
const MAX_RESUMES = 5;
const MAX_LISTEN_FAILURES = 5;
/** New credentials one request may be retried with (a step-up, a refresh, a DPoP nonce...). */
const MAX_AUTH_RETRIES = 5;
/**
 * Network errors that mean the request never left: nothing was connected to. The server is gone
 * (or not back yet), so the transport is failed and the request may wait for the next connection.
 */
const NOT_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** How long a request stream may stay open after its response before it is dropped. */
const AFTER_RESPONSE_GRACE = 2_000;
/** Error bodies are read only this far, to find a JSON-RPC error. */
const ERROR_BODY_CAP = 64 * 1024;
const MAX_TOOL_PAGES = 100;

/** Thrown inside the transport when a request was aborted on purpose (cancel, close). */
class Aborted extends Error {}

/** One request on the wire, from its POST until its response (or failure). */
class Exchange {
  readonly controller = new AbortController();
  done = false;
  cancelled = false;
  sessionRetried = false;
  headerRetried = false;
  /** Times the auth provider put new credentials in place for this request. */
  authRetries = 0;
  bypassGate = false;
  sentSession: Secret | undefined;
  lastEventId: string | undefined;
  retryMs: number | undefined;
  resumes = 0;
  idleFired = false;
  onResponse: ((m: JsonRpcMessage) => void) | undefined;
  onError: ((e: McpClientError) => void) | undefined;

  constructor(
    readonly id: RequestId,
    readonly message: JsonRpcRequest,
    readonly body: string,
    /** The modern protocol version in `_meta`, or undefined for the legacy shape. */
    readonly version: string | undefined,
    readonly gen: number,
  ) {}

  get method(): string {
    return this.message.method;
  }
}

/** What the legacy (initialize) shape remembers: the handshake to replay and the session. */
interface LegacyState {
  init: JsonRpcRequest;
  sessionId: Secret | undefined;
  version: string | undefined;
}

/** The deprecated 2024-11-05 HTTP+SSE channel: one GET stream in, POSTs to its endpoint out. */
interface SseChannel {
  endpoint: URL;
  controller: AbortController;
}

/**
 * Streamable HTTP: the modern (2026-07-28) shape, one POST per request with the standard request
 * headers; the legacy (2025-11-25, 2025-06-18) shape with its session, standalone GET stream and
 * resumption; and the deprecated 2024-11-05 HTTP+SSE transport. The shape follows from the
 * messages: a request whose `_meta` names a protocol version is modern, `initialize` starts the
 * legacy shape.
 *
 * One instance can be started again after it closed (a reconnect); `setAuth` replaces the
 * credentials for every request from then on.
 */
export class HttpTransport implements Transport {
  readonly kind = "http";
  readonly #o: ResolvedHttpOptions;
  readonly #origin: string;
  readonly #path: string;
  #deps: Deps | undefined;
  #dispatcher: Dispatcher | undefined;
  #ownDispatcher = false;
  #policy: AddressPolicy | undefined;
  readonly #vetted = new Map<string, string[]>();
  #sink: TransportSink | undefined;
  #running = false;
  #reported = false;
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #gen = 0;
  #internalIds = 0;
  /** Static headers: accept, content-type and the user's headers (Secrets revealed). */
  #base: Record<string, string> = {};
  #bearer: string | undefined;
  readonly #exchanges = new Map<RequestId, Exchange>();
  #legacy: LegacyState | undefined;
  #gate: Promise<void> | undefined;
  #renewing: Promise<void> | undefined;
  #listen: AbortController | undefined;
  #sse: SseChannel | undefined;
  /** `x-mcp-header` annotations by tool name, from the `tools/list` results seen. */
  readonly #annotations = new Map<string, McpHeaderAnnotation[]>();
  /** The OAuth provider of an `{ oauth }` / `{ clientCredentials }` form; kept across reconnects. */
  #provider: OAuthAuthProvider | undefined;
  #providerFor: unknown;
  /** The store OAuth forms without their own use, kept across `setAuth`. */
  #defaultStore: TokenStore | undefined;
  /** The dispatcher for the provider's requests to other origins. */
  #authAgent: Dispatcher | undefined;
  /** The credential each request's headers carried (for the provider's 401/403 handling). */
  readonly #sentWith = new WeakMap<object, AuthCredential | null>();

  constructor(options: Omit<HttpTransportOptions, "type"> & { type?: "http" }) {
    this.#o = resolveHttpOptions(options, "transport");
    this.#origin = this.#o.url.origin;
    this.#path = this.#o.url.pathname + this.#o.url.search;
    this.#setBearer();
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
    this.#o.auth = resolveAuth(auth, options.credentialId, this.#o.url, "auth", "credentialId");
    this.#setBearer();
    this.#credentialGeneration += 1;
  }

  /**
   * Counts credential changes: a result fetched across one (its pages sent with different
   * credentials) belongs to nobody, and the client's cache keeps nothing of it.
   */
  get credentialGeneration(): number {
    return this.#credentialGeneration;
  }

  #credentialGeneration = 0;

  /** The credentials seam (transport/credentials.ts): what setAuth and the cache use. */
  get credentials(): TransportCredentials {
    this.#seam ??= credentialsOf(this);
    return this.#seam;
  }

  #seam: TransportCredentials | undefined;
  #bearerIdentity: { token: unknown; id: string } | undefined;

  /**
   * Who the credentials are, for caching private results: `null` without auth, a digest for a
   * bearer token (`sha256:<hex>`, never the token), `id:<credentialId>` for a function that
   * declares one, and `undefined` when unknown (a function without `credentialId`).
   */
  get credentialIdentity(): string | null | undefined {
    const a = this.#o.auth;
    if (a.type === "none") return null;
    if (a.type === "bearer") {
      // Read on every call to a listed tool (the cache checks whose list it holds): hashed once per token.
      if (this.#bearerIdentity?.token !== a.token) {
        const id = `sha256:${createHash("sha256").update(revealIfSecret(a.token)).digest("hex")}`;
        this.#bearerIdentity = { token: a.token, id };
      }
      return this.#bearerIdentity.id;
    }
    if (a.type === "oauth") return this.#provider?.identity() ?? null;
    return a.credentialId === undefined ? undefined : `id:${a.credentialId}`;
  }

  #setBearer(): void {
    const a = this.#o.auth;
    this.#bearer = a.type === "bearer" ? `Bearer ${revealIfSecret(a.token)}` : undefined;
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
    let deps: Deps;
    try {
      deps = await loadDeps();
    } catch (err) {
      depsPromise = undefined;
      throw new McpClientError("transport", "http_dependencies_missing", undefined, { cause: err });
    }
    this.#deps = deps;
    const o = this.#o;
    if (o.serverUrlPolicy === "publicOnly") this.#policy ??= await AddressPolicy.create(o.allowPrivate);
    this.#sink = sink;
    this.#reported = false;
    this.#legacy = undefined;
    this.#gate = undefined;
    this.#renewing = undefined;
    this.#sse = undefined;
    this.#vetted.clear();
    this.#base = { accept: ACCEPT_POST, "content-type": "application/json" };
    for (const [name, value] of o.headers) this.#base[name] = revealIfSecret(value);

    if (o.dispatcher) {
      this.#dispatcher = o.dispatcher;
      this.#ownDispatcher = false;
    } else {
      const connect: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(o.tls))
        connect[k] = k === "passphrase" ? revealIfSecret(v as string) : v;
      if (o.insecureSkipTlsVerify) connect.rejectUnauthorized = false;
      if (this.#policy) connect.lookup = this.#pinnedLookup;
      this.#dispatcher = new deps.Pool(o.url.origin, { connections: o.poolSize, connect });
      this.#ownDispatcher = true;
    }
    if (o.insecureSkipTlsVerify) {
      sink.warn?.(
        "TLS certificate verification is off (insecureSkipTlsVerify): use this for local development only",
      );
    }
    if (o.auth.type === "oauth" && this.#providerFor !== o.auth) {
      this.#defaultStore ??= new MemoryTokenStore();
      this.#provider = await createAuthProvider(o.auth.form, {
        http: createAuthHttp({
          options: o,
          dispatcher: () => this.#authDispatcher(),
          vet: this.#policy ? (url) => this.#vet(url) : undefined,
        }),
        serverUrl: o.url,
        defaultStore: this.#defaultStore,
      });
      this.#providerFor = o.auth;
    }
    this.#running = true;
    const gen = ++this.#gen;
    if (o.legacySse === "only") {
      try {
        await this.#openSse(gen);
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
    this.#listen?.abort();
    this.#listen = undefined;
    this.#sse?.controller.abort();
    const session = this.#sse ? undefined : this.#legacy?.sessionId;
    this.#sse = undefined;
    if (session) {
      // The session is done: tell the server (405 means it does not let clients end sessions).
      const headers: Record<string, string> = {
        ...this.#legacyHeaders(ACCEPT_POST),
        "mcp-session-id": session.reveal(),
      };
      delete headers["content-type"];
      await this.#timed(this.#o.requestTimeout, (signal) =>
        this.#fetch("DELETE", this.#o.url, headers, undefined, signal),
      )
        .then((res) => discard(res.body))
        .catch(() => {});
    }
    this.#legacy = undefined;
    await this.#teardown();
    this.#report();
  }

  async #teardown(): Promise<void> {
    this.#running = false;
    const d = this.#dispatcher;
    this.#dispatcher = undefined;
    if (d && this.#ownDispatcher) await d.destroy().catch(() => {});
    const agent = this.#authAgent;
    this.#authAgent = undefined;
    if (agent) await agent.destroy().catch(() => {});
  }

  /** The auth provider's dispatcher: the user's own, or an agent with the pool's TLS and pinning. */
  #authDispatcher(): Dispatcher {
    if (this.#o.dispatcher) return this.#o.dispatcher;
    if (!this.#authAgent) {
      if (!this.#running || !this.#deps) throw new McpClientError("transport", "not_connected");
      this.#authAgent = new this.#deps.Agent({ connect: this.#connectOptions() });
    }
    return this.#authAgent;
  }

  #connectOptions(): Record<string, unknown> {
    const o = this.#o;
    const connect: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(o.tls))
      connect[k] = k === "passphrase" ? revealIfSecret(v as string) : v;
    if (o.insecureSkipTlsVerify) connect.rejectUnauthorized = false;
    if (this.#policy) connect.lookup = this.#pinnedLookup;
    return connect;
  }

  /**
   * A 401 or 403 to a request made with the OAuth provider: asks it for new credentials. True
   * means send the request once more (with what `token()` now gives); a rejection is the flow's
   * typed `auth` error.
   */
  async #authChallenged(status: number, headers: Headers, sent: AuthCredential | null): Promise<boolean> {
    const p = this.#provider;
    if (!p || (status !== 401 && status !== 403) || this.#o.auth.type !== "oauth") return false;
    const nonce = firstHeader(headers["dpop-nonce"]);
    return p.challenged({
      status,
      challenges: parseChallenges(headers["www-authenticate"]),
      url: this.#o.url.href,
      sent,
      ...(nonce !== undefined ? { dpopNonce: nonce } : {}),
    });
  }

  #report(error?: McpClientError): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#sink?.closed(error);
  }

  // ---- sending -------------------------------------------------------------------------------

  send(message: JsonRpcMessage): void | Promise<void> {
    if (!this.#running) throw new McpClientError("transport", "not_connected");
    // A TypeError (a cycle, a BigInt) is the caller's and is thrown as is.
    const body = JSON.stringify(message);
    if (!("method" in message) || !("id" in message) || message.id === undefined) {
      return this.#postOneWay(body, "method" in message ? message.method : undefined);
    }
    const m = message as JsonRpcRequest;
    const meta = m.params?._meta as Record<string, unknown> | undefined;
    const pv = meta?.[META.protocolVersion];
    const version = typeof pv === "string" ? pv : undefined;
    if (version === undefined && m.method === "initialize") {
      this.#legacy = { init: m, sessionId: undefined, version: undefined };
    }
    const ex = new Exchange(m.id, m, body, version, this.#gen);
    this.#exchanges.set(m.id, ex);
    if (this.#sse) void this.#ssePostRequest(ex);
    else void this.#run(ex);
  }

  cancel(id: RequestId, cancelled: JsonRpcMessage): void {
    const ex = this.#exchanges.get(id);
    if (ex) {
      ex.cancelled = true;
      this.#exchanges.delete(id);
    }
    if (!this.#running) return;
    if (this.#sse) {
      this.#postOneWay(JSON.stringify(cancelled), "notifications/cancelled").catch(() => {});
      return;
    }
    if (!ex) return;
    if (ex.version !== undefined) {
      // Modern: closing the response stream is the cancellation.
      ex.controller.abort();
      return;
    }
    // Legacy: tell the server, then close the stream.
    this.#postOneWay(JSON.stringify(cancelled), "notifications/cancelled")
      .catch(() => {})
      .finally(() => ex.controller.abort());
  }

  /** Runs one request until it is answered, failed, or cancelled; never rejects. */
  async #run(ex: Exchange): Promise<void> {
    try {
      for (;;) {
        if (ex.version === undefined && this.#gate && !ex.bypassGate) await this.#gate;
        if (ex.cancelled) return;
        const headers = this.#requestHeaders(ex);
        const res = await this.#fetch("POST", this.#o.url, headers, ex.body, ex.controller.signal);
        if (!(await this.#answer(ex, res, this.#sentWith.get(headers) ?? null))) return;
      }
    } catch (err) {
      this.#failExchange(ex, err);
    }
  }

  #requestHeaders(ex: Exchange): Record<string, string> {
    const h: Record<string, string> = { ...this.#base };
    if (this.#bearer !== undefined) h.authorization = this.#bearer;
    const version = ex.version;
    if (version !== undefined) {
      h["mcp-protocol-version"] = version;
      h["mcp-method"] = ex.method;
      const params = ex.message.params;
      const name = mcpNameOf(ex.method, params);
      if (name !== undefined) {
        h["mcp-name"] = encodeHeaderValue(name);
        if (this.#annotations.size > 0 && ex.method === "tools/call") {
          const a = this.#annotations.get(name);
          if (a) addParamHeaders(h, a, params?.arguments);
        }
      }
      return h;
    }
    const legacy = this.#legacy;
    if (legacy && ex.method !== "initialize") {
      if (legacy.version !== undefined) h["mcp-protocol-version"] = legacy.version;
      const sid = legacy.sessionId;
      if (sid) {
        h["mcp-session-id"] = sid.reveal();
        ex.sentSession = sid;
      }
    }
    return h;
  }

  /** Headers of a legacy request the transport makes itself (no auth: #fetch adds it). */
  #legacyHeaders(accept: string): Record<string, string> {
    const h: Record<string, string> = { ...this.#base, accept };
    if (this.#bearer !== undefined) h.authorization = this.#bearer;
    const legacy = this.#legacy;
    if (legacy?.version !== undefined) h["mcp-protocol-version"] = legacy.version;
    if (legacy?.sessionId) h["mcp-session-id"] = legacy.sessionId.reveal();
    return h;
  }

  /**
   * Handles the answer to a request's POST. Resolves `true` when the request must be sent again
   * (after a session renewal or a tool list refresh).
   */
  async #answer(
    ex: Exchange,
    res: Dispatcher.ResponseData,
    sent: AuthCredential | null = null,
  ): Promise<boolean> {
    const status = res.statusCode;
    const headers = res.headers as Headers;
    if ((status === 401 || status === 403) && this.#provider && ex.authRetries < MAX_AUTH_RETRIES) {
      discard(res.body);
      if (await this.#authChallenged(status, headers, sent)) {
        ex.authRetries += 1;
        return true;
      }
      throw answerError(status, headers, undefined);
    }
    if (status >= 200 && status < 300) {
      if (ex.method === "initialize" && ex.version === undefined) this.#captureSession(headers, res.body);
      const type = contentType(headers);
      if (type === "text/event-stream") {
        await this.#consumeRequestStream(ex, res.body, headers);
        return false;
      }
      if (type === "application/json" || type.endsWith("+json")) {
        const text = (await readCapped(res.body, headers, this.#o.maxMessageBytes)).toString("utf8");
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new McpClientError("protocol", "invalid_json_body");
        }
        const list = Array.isArray(parsed) ? parsed : [parsed];
        for (const m of list) this.#incoming(m, text, ex.gen, ex);
        if (!ex.done) throw new McpClientError("transport", "no_response");
        return false;
      }
      discard(res.body);
      throw new McpClientError(
        "transport",
        status === 202 || status === 204 ? "no_response" : "unexpected_content_type",
        {
          status,
        },
      );
    }

    if (status === 404 && ex.sentSession && ex.version === undefined && this.#legacy) {
      discard(res.body);
      if (ex.sessionRetried) throw new McpClientError("session_expired", "session_expired", { status });
      ex.sessionRetried = true;
      await this.#renew(ex.sentSession);
      return true;
    }

    const error = await this.#errorOf(res);
    const code = jsonRpcCode(error);
    if (code === -32020 && ex.version !== undefined && ex.method === "tools/call" && !ex.headerRetried) {
      // Header mismatch: the tool's schema may have changed. Refresh it, then send once more.
      ex.headerRetried = true;
      await this.#refreshToolHeaders(ex);
      return true;
    }
    if (
      ex.method === "initialize" &&
      ex.version === undefined &&
      ex.onResponse === undefined &&
      this.#o.legacySse === "auto" &&
      (status === 400 || status === 404 || status === 405) &&
      (code === undefined || !MODERN_ERROR_CODES.has(code))
    ) {
      // Maybe a 2024-11-05 HTTP+SSE server: GET the URL and look for its `endpoint` event.
      if (
        await this.#openSse(ex.gen).then(
          () => true,
          () => false,
        )
      ) {
        if (ex.cancelled) return false;
        await this.#ssePostRequest(ex);
        return false;
      }
    }
    throw error;
  }

  #captureSession(headers: Headers, body: Readable): void {
    const legacy = this.#legacy;
    if (!legacy) return;
    const raw = firstHeader(headers["mcp-session-id"]);
    if (raw === undefined) {
      legacy.sessionId = undefined;
      return;
    }
    if (!SESSION_ID.test(raw)) {
      discard(body);
      throw new McpClientError("protocol", "invalid_session_id");
    }
    legacy.sessionId = new Secret(raw);
  }

  /** Reads a request's event stream; resumes a legacy one that ended early after an event id. */
  async #consumeRequestStream(ex: Exchange, body: Readable, headers: Headers): Promise<void> {
    let outcome = await this.#readRequestStream(ex, body, headers);
    while (outcome === "early") {
      if (ex.version !== undefined || ex.lastEventId === undefined || ex.resumes >= MAX_RESUMES) {
        throw new McpClientError("transport", "stream_ended_without_response");
      }
      ex.resumes += 1;
      await sleep(this.#resumeDelay(ex.retryMs ?? 100, 30_000), ex.controller.signal);
      const h = this.#legacyHeaders(ACCEPT_SSE);
      delete h["content-type"];
      h["last-event-id"] = ex.lastEventId;
      const res = await this.#fetch("GET", this.#o.url, h, undefined, ex.controller.signal);
      const rh = res.headers as Headers;
      if (res.statusCode !== 200 || contentType(rh) !== "text/event-stream") throw await this.#errorOf(res);
      outcome = await this.#readRequestStream(ex, res.body, rh);
    }
  }

  async #readRequestStream(ex: Exchange, body: Readable, headers: Headers): Promise<"done" | "early"> {
    const stream = decoded(body, headers);
    const long = ex.method === "subscriptions/listen";
    let grace: NodeJS.Timeout | undefined;
    let idle: NodeJS.Timeout | undefined;
    if (long) {
      idle = setTimeout(() => {
        ex.idleFired = true;
        stream.destroy();
      }, this.#o.listenIdleTimeout);
    }
    try {
      await readEvents(stream, this.#o.maxMessageBytes, this.#deps!.createParser, {
        onEvent: (e) => {
          if (e.id !== undefined) ex.lastEventId = e.id;
          this.#eventMessage(e, ex.gen, ex);
          if (ex.done && grace === undefined) {
            grace = setTimeout(() => stream.destroy(), AFTER_RESPONSE_GRACE);
            grace.unref();
          }
        },
        onRetry: (ms) => {
          ex.retryMs = ms;
        },
        onActivity: idle ? () => idle!.refresh() : undefined,
      });
    } catch (err) {
      if (ex.done || ex.cancelled) return "done";
      if (ex.idleFired) throw new McpClientError("transport", "listen_idle_timeout");
      if (err instanceof McpClientError) throw err;
      if (ex.controller.signal.aborted) throw new Aborted();
      return "early";
    } finally {
      clearTimeout(grace);
      clearTimeout(idle);
    }
    return ex.done || ex.cancelled ? "done" : "early";
  }

  /** One event-stream event: a JSON-RPC message when it is a `message` event with data. */
  #eventMessage(e: { event?: string; data: string }, gen: number, on?: Exchange): void {
    if ((e.event !== undefined && e.event !== "message") || e.data.length === 0) return;
    let m: unknown;
    try {
      m = JSON.parse(e.data);
    } catch {
      this.#sink?.warn?.("ignored an event-stream event that is not JSON");
      return;
    }
    this.#incoming(m, e.data, gen, on);
  }

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
      return this.#sink?.message(msg);
    }
    // A server request on a request's own stream belongs to that request.
    if (cls === "request" && related !== undefined) return this.#sink?.message(msg, related);
    this.#sink?.message(msg);
  }

  /** Learns from results passing through: the negotiated version, tools' header annotations. */
  #observe(ex: Exchange, result: Record<string, unknown>, raw: string): void {
    if (ex.method === "initialize" && ex.version === undefined && this.#legacy) {
      if (typeof result.protocolVersion === "string" && SESSION_ID.test(result.protocolVersion)) {
        this.#legacy.version = result.protocolVersion;
      }
      return;
    }
    if (ex.method !== "tools/list" || !Array.isArray(result.tools)) return;
    const annotated = raw.includes("x-mcp-header");
    if (!annotated && this.#annotations.size === 0) return;
    for (const tool of result.tools as unknown[]) {
      if (typeof tool !== "object" || tool === null) continue;
      const name = (tool as { name?: unknown }).name;
      if (typeof name !== "string") continue;
      const a = annotated ? mcpHeaderAnnotations((tool as { inputSchema?: unknown }).inputSchema) : null;
      if (a && a.length > 0) this.#annotations.set(name, a);
      else this.#annotations.delete(name);
    }
  }

  #failExchange(ex: Exchange, err: unknown): void {
    if (ex.done || ex.cancelled || ex.gen !== this.#gen) return;
    if (err instanceof Aborted) return;
    ex.done = true;
    if (this.#exchanges.get(ex.id) === ex) this.#exchanges.delete(ex.id);
    const error = err instanceof McpClientError ? err : new McpClientError("transport", "request_failed");
    if (ex.onError) return ex.onError(error);
    if (!notConnected(error) || !this.#sink?.undelivered) return this.#sink?.fail(ex.id, error);
    // Nothing could be connected to: the server went away. The request never left, so it may
    // wait for the next connection; the transport is done (the client reconnects and probes).
    this.#sink.undelivered(ex.id, error);
    this.#streamLost(ex.gen, error);
  }

  /** A notification or a response: one POST, answered 202. Rejects with the typed error. */
  async #postOneWay(body: string, method: string | undefined): Promise<void> {
    if (this.#sse) return this.#ssePost(body);
    const initialized = method === "notifications/initialized" && this.#legacy !== undefined;
    const send = async () => {
      for (let retries = 0; ; retries++) {
        const h = this.#legacyHeaders(ACCEPT_POST);
        const res = await this.#timed(this.#o.requestTimeout, (signal) =>
          this.#fetch("POST", this.#o.url, h, body, signal),
        );
        if (res.statusCode >= 200 && res.statusCode < 300) return discard(res.body);
        if (
          (res.statusCode === 401 || res.statusCode === 403) &&
          this.#provider &&
          retries < MAX_AUTH_RETRIES
        ) {
          discard(res.body);
          const headers = res.headers as Headers;
          if (await this.#authChallenged(res.statusCode, headers, this.#sentWith.get(h) ?? null)) continue;
          throw answerError(res.statusCode, headers, undefined);
        }
        throw await this.#errorOf(res);
      }
    };
    if (initialized) {
      // Later legacy requests wait until the server has heard the handshake is done.
      const gen = this.#gen;
      const p = send();
      this.#gate = p.then(
        () => {
          if (gen === this.#gen && this.#running) this.#startListen(gen);
        },
        () => {},
      );
      return p;
    }
    if (this.#gate && this.#legacy) await this.#gate;
    return send();
  }

  // ---- legacy sessions ----------------------------------------------------------------------

  /** A 404 to a request that carried `stale`: start a new session (once, shared by everyone). */
  async #renew(stale: Secret): Promise<void> {
    if (this.#renewing) return this.#renewing;
    if (this.#legacy?.sessionId !== stale) return;
    this.#renewing = this.#doRenew().finally(() => {
      this.#renewing = undefined;
    });
    this.#gate = this.#renewing.catch(() => {});
    return this.#renewing;
  }

  async #doRenew(): Promise<void> {
    const legacy = this.#legacy!;
    const gen = this.#gen;
    this.#listen?.abort();
    this.#listen = undefined;
    legacy.sessionId = undefined;
    legacy.version = undefined;
    const init: JsonRpcRequest = { ...legacy.init, id: `conduit-mcp/renew/${++this.#internalIds}` };
    let response: JsonRpcMessage;
    try {
      response = await this.#internal(init, undefined);
    } catch (err) {
      throw new McpClientError("session_expired", "renewal_failed", undefined, { cause: err });
    }
    if (!("result" in response) || legacy.version === undefined) {
      throw new McpClientError("session_expired", "renewal_refused");
    }
    try {
      const h = this.#legacyHeaders(ACCEPT_POST);
      const res = await this.#timed(this.#o.requestTimeout, (signal) =>
        this.#fetch(
          "POST",
          this.#o.url,
          h,
          JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
          signal,
        ),
      );
      discard(res.body);
      if (res.statusCode < 200 || res.statusCode >= 300) throw answerError(res.statusCode, {}, undefined);
    } catch (err) {
      throw new McpClientError("session_expired", "renewal_failed", undefined, { cause: err });
    }
    if (gen === this.#gen && this.#running) {
      this.#startListen(gen);
      // What the old session knew (resource subscriptions, the log level) is the client's to resend.
      this.#sink?.renewed?.();
    }
  }

  /** A request the transport sends itself, bounded by `requestTimeout`; resolves with the response. */
  #internal(message: JsonRpcRequest, version: string | undefined): Promise<JsonRpcMessage> {
    return new Promise((resolve, reject) => {
      const ex = new Exchange(message.id, message, JSON.stringify(message), version, this.#gen);
      ex.bypassGate = true;
      const timer = setTimeout(() => {
        ex.cancelled = true;
        this.#exchanges.delete(ex.id);
        ex.controller.abort();
        reject(new McpClientError("timeout", "internal_request_timeout"));
      }, this.#o.requestTimeout);
      ex.onResponse = (m) => {
        clearTimeout(timer);
        resolve(m);
      };
      ex.onError = (e) => {
        clearTimeout(timer);
        reject(e);
      };
      this.#exchanges.set(ex.id, ex);
      void this.#run(ex).then(() => {
        // Cancelled by close: nothing will answer it.
        if (ex.cancelled && !ex.done) {
          clearTimeout(timer);
          reject(new McpClientError("transport", "transport_closed"));
        }
      });
    });
  }

  /** After `-32020` on a `tools/call`: list the tools again (the results update the annotations). */
  async #refreshToolHeaders(ex: Exchange): Promise<void> {
    const meta = (ex.message.params?._meta ?? {}) as Record<string, unknown>;
    const base: Record<string, unknown> = {};
    for (const key of [META.protocolVersion, META.clientInfo, META.clientCapabilities]) {
      if (meta[key] !== undefined) base[key] = meta[key];
    }
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const params: Record<string, unknown> = { _meta: base, ...(cursor !== undefined ? { cursor } : {}) };
      const id = `conduit-mcp/tools-list/${++this.#internalIds}`;
      let res: JsonRpcMessage;
      try {
        res = await this.#internal({ jsonrpc: "2.0", id, method: "tools/list", params }, ex.version);
      } catch {
        return;
      }
      if (!("result" in res)) return;
      const next = res.result.nextCursor;
      if (typeof next !== "string" || next.length === 0) return;
      cursor = next;
    }
  }

  // ---- the standalone GET stream (legacy) ---------------------------------------------------

  #startListen(gen: number): void {
    if (this.#listen || this.#sse) return;
    const controller = new AbortController();
    this.#listen = controller;
    void this.#listenLoop(gen, controller);
  }

  async #listenLoop(gen: number, controller: AbortController): Promise<void> {
    let failures = 0;
    let lastEventId: string | undefined;
    let retry = 1_000;
    const live = () => this.#running && gen === this.#gen && !controller.signal.aborted;
    while (live()) {
      const h = this.#legacyHeaders(ACCEPT_SSE);
      delete h["content-type"];
      if (lastEventId !== undefined) h["last-event-id"] = lastEventId;
      let res: Dispatcher.ResponseData;
      try {
        res = await this.#timed(
          this.#o.requestTimeout,
          (signal) => this.#fetch("GET", this.#o.url, h, undefined, signal),
          controller.signal,
        );
      } catch {
        if (!live()) return;
        if (++failures >= MAX_LISTEN_FAILURES) return this.#listenGaveUp(controller);
        await sleep(retry, controller.signal).catch(() => {});
        continue;
      }
      const rh = res.headers as Headers;
      if (res.statusCode !== 200 || contentType(rh) !== "text/event-stream") {
        discard(res.body);
        // 405 or 400: the server offers no standalone stream. 404: the session is gone (the
        // server restarted): renew it now, or nothing would be heard until the next request.
        if (res.statusCode === 404 && this.#legacy?.sessionId) {
          this.#listenDone(controller);
          this.#renew(this.#legacy.sessionId).catch((err) => this.#streamLost(gen, err));
          return;
        }
        if (res.statusCode === 405 || res.statusCode === 404 || res.statusCode === 400)
          return this.#listenDone(controller);
        if (++failures >= MAX_LISTEN_FAILURES) return this.#listenGaveUp(controller);
        await sleep(retry, controller.signal).catch(() => {});
        continue;
      }
      const stream = decoded(res.body, rh);
      let events = 0;
      const onAbort = () => stream.destroy();
      controller.signal.addEventListener("abort", onAbort, { once: true });
      const idle = setTimeout(() => stream.destroy(), this.#o.listenIdleTimeout);
      try {
        await readEvents(stream, this.#o.maxMessageBytes, this.#deps!.createParser, {
          onEvent: (e) => {
            events += 1;
            if (e.id !== undefined) lastEventId = e.id;
            this.#eventMessage(e, gen);
          },
          onRetry: (ms) => {
            retry = this.#resumeDelay(ms, 60_000);
          },
          onActivity: () => idle.refresh(),
        });
      } catch (err) {
        if (McpClientError.is(err, "message_too_large")) {
          this.#sink?.warn?.("dropped the server's event stream: an event was over maxMessageBytes");
        }
      } finally {
        clearTimeout(idle);
        controller.signal.removeEventListener("abort", onAbort);
      }
      if (!live()) return;
      failures = events > 0 ? 0 : failures + 1;
      if (failures >= MAX_LISTEN_FAILURES) return this.#listenGaveUp(controller);
      await sleep(retry, controller.signal).catch(() => {});
    }
  }

  /** The server's `retry:` kept between `minResumeDelay` and `max`. */
  #resumeDelay(ms: number, max: number): number {
    return Math.max(this.#o.minResumeDelay, Math.min(ms, max));
  }

  #listenDone(controller: AbortController): void {
    if (this.#listen === controller) this.#listen = undefined;
  }

  #listenGaveUp(controller: AbortController): void {
    this.#listenDone(controller);
    this.#sink?.warn?.("gave up on the server's event stream after repeated failures");
    this.#streamLost(this.#gen, new McpClientError("transport", "event_stream_lost"));
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

  // ---- the 2024-11-05 HTTP+SSE transport ----------------------------------------------------

  /** Opens the HTTP+SSE channel; resolves once its `endpoint` event has arrived. */
  async #openSse(gen: number): Promise<void> {
    if (this.#sse) return;
    const controller = new AbortController();
    const h: Record<string, string> = { ...this.#base, accept: ACCEPT_SSE };
    delete h["content-type"];
    if (this.#bearer !== undefined) h.authorization = this.#bearer;
    const timer = setTimeout(() => controller.abort(), this.#o.requestTimeout);
    let res: Dispatcher.ResponseData;
    try {
      res = await this.#fetch("GET", this.#o.url, h, undefined, controller.signal);
    } catch (err) {
      clearTimeout(timer);
      throw err instanceof Aborted ? new McpClientError("timeout", "sse_endpoint_timeout") : err;
    }
    const rh = res.headers as Headers;
    if (res.statusCode !== 200 || contentType(rh) !== "text/event-stream") {
      clearTimeout(timer);
      throw await this.#errorOf(res);
    }
    const stream = decoded(res.body, rh);
    controller.signal.addEventListener("abort", () => stream.destroy(), { once: true });
    await new Promise<void>((resolve, reject) => {
      let endpoint: URL | undefined;
      readEvents(stream, this.#o.maxMessageBytes, this.#deps!.createParser, {
        onEvent: (e) => {
          if (endpoint === undefined) {
            if (e.event !== "endpoint") throw new McpClientError("transport", "sse_no_endpoint");
            let url: URL;
            try {
              url = new URL(e.data.trim(), this.#o.url);
            } catch {
              throw new McpClientError("transport", "sse_bad_endpoint");
            }
            if (url.origin !== this.#o.url.origin)
              throw new McpClientError("transport", "sse_endpoint_cross_origin");
            url.hash = "";
            endpoint = url;
            clearTimeout(timer);
            this.#sse = { endpoint, controller };
            resolve();
            return;
          }
          this.#eventMessage(e, gen);
        },
      }).then(
        () => {
          clearTimeout(timer);
          if (!endpoint) return reject(new McpClientError("transport", "sse_no_endpoint"));
          this.#sseEnded(gen, controller, new McpClientError("transport", "sse_stream_ended"));
        },
        (err) => {
          clearTimeout(timer);
          if (!endpoint) {
            return reject(
              controller.signal.aborted
                ? new McpClientError("timeout", "sse_endpoint_timeout")
                : err instanceof McpClientError
                  ? err
                  : new McpClientError("transport", "sse_stream_failed"),
            );
          }
          this.#sseEnded(
            gen,
            controller,
            err instanceof McpClientError ? err : new McpClientError("transport", "sse_stream_ended"),
          );
        },
      );
    });
  }

  /** The HTTP+SSE stream ended: nothing more can arrive, so the transport is closed. */
  #sseEnded(gen: number, controller: AbortController, error: McpClientError): void {
    if (gen !== this.#gen || !this.#running || this.#sse?.controller !== controller) return;
    for (const ex of this.#exchanges.values()) ex.cancelled = true;
    this.#exchanges.clear();
    this.#sse = undefined;
    this.#gen++;
    void this.#teardown();
    this.#report(error);
  }

  async #ssePostRequest(ex: Exchange): Promise<void> {
    try {
      await this.#ssePost(ex.body);
    } catch (err) {
      this.#failExchange(ex, err);
    }
  }

  async #ssePost(body: string): Promise<void> {
    const sse = this.#sse;
    if (!sse) throw new McpClientError("transport", "not_connected");
    const h: Record<string, string> = { ...this.#base };
    if (this.#bearer !== undefined) h.authorization = this.#bearer;
    const res = await this.#timed(this.#o.requestTimeout, (signal) =>
      this.#fetch("POST", sse.endpoint, h, body, signal),
    );
    if (res.statusCode >= 200 && res.statusCode < 300) return discard(res.body);
    throw await this.#errorOf(res);
  }

  /** The typed error of an answer that is not the one wanted (a 4xx body is read for a JSON-RPC error). */
  async #errorOf(res: Dispatcher.ResponseData): Promise<McpClientError> {
    const status = res.statusCode;
    const headers = res.headers as Headers;
    if (status >= 200 && status < 300) {
      discard(res.body);
      return new McpClientError("transport", "unexpected_content_type", { status });
    }
    if (status >= 400 && status < 500) {
      const cap = Math.min(this.#o.maxMessageBytes, ERROR_BODY_CAP);
      return answerError(status, headers, await readSmall(res.body, headers, cap));
    }
    discard(res.body);
    return answerError(status, headers, undefined);
  }

  // ---- HTTP ----------------------------------------------------------------------------------

  /**
   * One HTTP request with the credentials, the URL policy and the redirect rule applied. Rejects
   * with `Aborted` when `signal` fired, else with a typed `McpClientError`.
   */
  async #fetch(
    method: "GET" | "POST" | "DELETE",
    url: URL,
    headers: Record<string, string>,
    body: string | undefined,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const dispatcher = this.#dispatcher;
    if (!dispatcher) throw new McpClientError("transport", "not_connected");
    let target = url;
    for (let hop = 0; ; hop++) {
      if (this.#o.auth.type === "function") await this.#functionAuth(headers, target, method);
      else if (this.#o.auth.type === "oauth") await this.#providerAuth(headers, target, method);
      if (this.#policy) await this.#vet(target);
      if (signal.aborted) throw new Aborted();
      let res: Dispatcher.ResponseData;
      try {
        res = await dispatcher.request({
          origin: target === this.#o.url ? this.#origin : target.origin,
          path: target === this.#o.url ? this.#path : target.pathname + target.search,
          method,
          headers,
          body,
          signal,
          headersTimeout: 0,
          bodyTimeout: 0,
        });
      } catch (err) {
        if (signal.aborted) throw new Aborted();
        const code = (err as { code?: unknown }).code;
        throw new McpClientError("transport", "network_error", {
          code: typeof code === "string" ? code : null,
          // Failed before a connection existed: not one byte of the request was written.
          ...(typeof code === "string" && NOT_CONNECTED.has(code) ? { sent: false } : {}),
        });
      }
      const status = res.statusCode;
      if (status < 300 || status >= 400) return res;
      discard(res.body);
      if (
        this.#o.redirect === "same-origin" &&
        (status === 307 || status === 308) &&
        hop < HTTP_DEFAULTS.maxRedirects
      ) {
        const next = sameOriginLocation(firstHeader((res.headers as Headers).location), target);
        if (next) {
          target = next;
          continue;
        }
      }
      throw new McpClientError("transport", "redirect_not_followed", { status });
    }
  }

  /** The auth function's latest token, as a Secret so errors are scrubbed of it. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: held (never read) so the value stays known to the scrubber
  #issuedToken: Secret | undefined;

  /** The OAuth provider's credential: `Authorization` and, with DPoP, a fresh `DPoP` proof. */
  async #providerAuth(headers: Record<string, string>, url: URL, method: string): Promise<void> {
    const p = this.#provider;
    let cred: AuthCredential | null = null;
    if (p) {
      try {
        cred = await p.token({ url: url.href, method });
      } catch (err) {
        throw err instanceof McpClientError ? err : new McpClientError("auth", "oauth_failed");
      }
    }
    this.#sentWith.set(headers, cred);
    if (!cred) {
      delete headers.authorization;
      delete headers.dpop;
      return;
    }
    headers.authorization = cred.authorization.reveal();
    if (cred.dpop) headers.dpop = cred.dpop.reveal();
    else delete headers.dpop;
  }

  async #functionAuth(headers: Record<string, string>, url: URL, method: string): Promise<void> {
    const a = this.#o.auth;
    if (a.type !== "function") return;
    let token: unknown;
    try {
      token = await a.fn({ url: url.href, method });
    } catch {
      throw new McpClientError("auth", "auth_function_failed");
    }
    if (token instanceof Error) throw new McpClientError("auth", "auth_function_failed");
    if (token === null || token === undefined) {
      delete headers.authorization;
      return;
    }
    if (typeof token !== "string" && !(token instanceof Secret))
      throw new McpClientError("auth", "invalid_token");
    const value = revealIfSecret(token);
    if (!isValidToken(value)) throw new McpClientError("auth", "invalid_token");
    // The token sent last stays known to the scrubber (a Secret) while it may still be echoed.
    this.#issuedToken = token instanceof Secret ? token : new Secret(value);
    headers.authorization = `Bearer ${value}`;
  }

  async #vet(url: URL): Promise<void> {
    const addresses = await vetHost(url.hostname, this.#policy!, this.#o.resolver ?? systemResolver);
    this.#vetted.set(bareHost(url.hostname).toLowerCase(), addresses);
  }

  /** The connector's DNS lookup under `publicOnly`: only addresses vetted for this host. */
  readonly #pinnedLookup: LookupFunction = (hostname, options, callback) => {
    const addresses = this.#vetted.get(bareHost(hostname).toLowerCase());
    const family = typeof options === "object" && options !== null ? options.family : undefined;
    const list = (addresses ?? [])
      .map((address) => ({ address, family: isIP(address) }))
      .filter((a) => a.family !== 0 && (family === undefined || family === 0 || a.family === family));
    if (list.length === 0) {
      const err = Object.assign(new Error("conduit-mcp: no vetted address for this host"), {
        code: "ENOTFOUND",
      });
      return (callback as (e: Error) => void)(err);
    }
    if (typeof options === "object" && options !== null && options.all) {
      return (callback as unknown as (e: null, list: Array<{ address: string; family: number }>) => void)(
        null,
        list,
      );
    }
    callback(null, list[0]!.address, list[0]!.family);
  };

  /** Runs `fn` with a signal that fires after `ms` (or when `outer` fires); a timeout rejects `timeout`. */
  async #timed<T>(ms: number, fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ms);
    const onOuter = () => controller.abort();
    outer?.addEventListener("abort", onOuter, { once: true });
    try {
      return await fn(controller.signal);
    } catch (err) {
      if (err instanceof Aborted && timedOut) throw new McpClientError("timeout", "request_timeout");
      throw err;
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onOuter);
    }
  }
}

function notConnected(error: McpClientError): boolean {
  if (error.kind !== "transport" || error.reason !== "network_error") return false;
  const code = (error.data as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && NOT_CONNECTED.has(code);
}

function contentType(headers: Headers): string {
  const v = firstHeader(headers["content-type"]);
  if (!v) return "";
  const semi = v.indexOf(";");
  return (semi < 0 ? v : v.slice(0, semi)).trim().toLowerCase();
}

function sameOriginLocation(location: string | undefined, base: URL): URL | undefined {
  if (!location) return undefined;
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    return undefined;
  }
  if (next.protocol !== base.protocol || next.host !== base.host || next.username || next.password)
    return undefined;
  next.hash = "";
  return next;
}

/** Resolves after `ms`, or rejects with `Aborted` when `signal` fires first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** The seam over one HTTP transport's credentials, read live. */
function credentialsOf(t: HttpTransport): TransportCredentials {
  return {
    get identity() {
      return t.credentialIdentity;
    },
    get generation() {
      return t.credentialGeneration;
    },
    replace(auth, options) {
      t.setAuth(auth as HttpAuth | null | undefined, options);
    },
  };
}
