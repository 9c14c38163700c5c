/**
 * The legacy (2025-11-25, 2025-06-18) session: the `initialize` handshake to replay, the session
 * id and negotiated version every later request carries, the gate that holds requests until the
 * server has heard `notifications/initialized`, renewal after a 404, the standalone GET stream,
 * and the DELETE that ends it.
 */
import type { Readable } from "node:stream";
import { McpClientError } from "../../shared/errors.js";
import type { JsonRpcMessage, JsonRpcRequest } from "../../shared/jsonrpc.js";
import { Secret } from "../../shared/secret.js";
import { answerError } from "./answers.js";
import { discard, discarded } from "./body.js";
import { Exchange } from "./exchange-state.js";
import { GetStream } from "./get-stream.js";
import { firstHeader, type Headers } from "./headers.js";
import { ACCEPT_POST, type HttpHost, type SessionPart } from "./host.js";

/** How long close() waits for the session's DELETE to be answered (less when requestTimeout is). */
const DELETE_WAIT_MS = 5_000;

const SESSION_ID = /^[\x21-\x7e]{1,1024}$/;

/** What the legacy shape remembers: the handshake to replay and the session. */
interface LegacyState {
  init: JsonRpcRequest;
  sessionId: Secret | undefined;
  version: string | undefined;
}

export class LegacySession implements SessionPart {
  readonly #host: HttpHost;
  readonly #listen: GetStream;
  #state: LegacyState | undefined;
  #gate: Promise<void> | undefined;
  #renewing: Promise<void> | undefined;
  #internalIds = 0;

  constructor(host: HttpHost) {
    this.#host = host;
    this.#listen = new GetStream(host, this);
  }

  /** True once an `initialize` went out (the legacy shape is in use). */
  get active(): boolean {
    return this.#state !== undefined;
  }

  get sessionId(): Secret | undefined {
    return this.#state?.sessionId;
  }

  /** A new start: no session, nothing gated. */
  reset(): void {
    this.#state = undefined;
    this.#gate = undefined;
    this.#renewing = undefined;
  }

  /** The client's `initialize` is going out: the shape is legacy from now on. */
  begin(init: JsonRpcRequest): void {
    this.#state = { init, sessionId: undefined, version: undefined };
  }

  /**
   * What legacy requests wait for (the handshake's end, a renewal), or undefined when nothing
   * holds them: then they go out in this tick, without an await.
   */
  get gate(): Promise<void> | undefined {
    return this.#state ? this.#gate : undefined;
  }

  /** The server's `retry:` kept between `minResumeDelay` and `max`. */
  resumeDelay(ms: number, max: number): number {
    return Math.max(this.#host.options.minResumeDelay, Math.min(ms, max));
  }

  /** Adds the session headers to a legacy request; returns the session id it carries. */
  addTo(h: Record<string, string>): Secret | undefined {
    const s = this.#state;
    if (!s) return undefined;
    if (s.version !== undefined) h["mcp-protocol-version"] = s.version;
    if (s.sessionId) h["mcp-session-id"] = s.sessionId.reveal();
    return s.sessionId;
  }

  /** Headers of a legacy request the transport makes itself (GETs carry no content type). */
  headers(accept: string): Record<string, string> {
    const h = this.#host.baseHeaders(accept);
    this.addTo(h);
    return h;
  }

  /** The `initialize` answer's session id, checked. */
  capture(headers: Headers, body: Readable): void {
    const s = this.#state;
    if (!s) return;
    const raw = firstHeader(headers["mcp-session-id"]);
    if (raw === undefined) {
      s.sessionId = undefined;
      return;
    }
    if (!SESSION_ID.test(raw)) {
      discard(body);
      throw new McpClientError("protocol", "invalid_session_id");
    }
    s.sessionId = new Secret(raw);
  }

  /** The `initialize` result: the negotiated version, sent on every later request. */
  observeInit(result: Record<string, unknown>): void {
    const s = this.#state;
    if (s && typeof result.protocolVersion === "string" && SESSION_ID.test(result.protocolVersion)) {
      s.version = result.protocolVersion;
    }
  }

  /** `notifications/initialized` is going out as `sent`: later requests wait for it, then the GET stream opens. */
  initialized(sent: Promise<void>): void {
    const host = this.#host;
    const gen = host.gen;
    this.#hold(
      sent.then(
        () => {
          if (gen === host.gen && host.running) this.#listen.start(gen);
        },
        () => {},
      ),
    );
  }

  /**
   * Holds later requests until `gate` settles, then lets them go out without an await: the gate
   * is dropped in its first reaction, before the requests that waited on it resume (they were
   * queued behind it), so none made later goes out ahead of them.
   */
  #hold(gate: Promise<void>): void {
    this.#gate = gate;
    gate.then(() => {
      if (this.#gate === gate) this.#gate = undefined;
    });
  }

  /** The GET stream's `heard`: a number while it is open (a new one after a lost stream), else null. */
  get heard(): number | null {
    return this.#listen.heard;
  }

  /** Closes the standalone GET stream. */
  stopListening(): void {
    this.#listen.stop();
  }

  /** Ends the session on the server (405 means it does not let clients end sessions). */
  async terminate(): Promise<void> {
    const session = this.#state?.sessionId;
    this.#state = undefined;
    if (!session) return;
    const h = this.headers(ACCEPT_POST);
    delete h["content-type"];
    h["mcp-session-id"] = session.reveal();
    // Its answer read to the end: the connection then frees for the other clients sharing it
    // (a lease that ends closes the connections still carrying its requests).
    // Nothing waits on its answer but close(): a server that never answers holds it 5 s at most.
    await this.#host.fetcher
      .timed("DELETE", this.#host.options.url, h, undefined, AbortSignal.timeout(DELETE_WAIT_MS))
      .then((res) => discarded(res.body))
      .catch(() => {});
  }

  /** A 404 to a request that carried `stale`: start a new session (once, shared by everyone). */
  async renew(stale: Secret): Promise<void> {
    if (this.#renewing) return this.#renewing;
    if (this.#state?.sessionId !== stale) return;
    this.#renewing = this.#doRenew().finally(() => {
      this.#renewing = undefined;
    });
    this.#hold(this.#renewing.catch(() => {}));
    return this.#renewing;
  }

  async #doRenew(): Promise<void> {
    const host = this.#host;
    const legacy = this.#state!;
    const gen = host.gen;
    this.#listen.stop();
    legacy.sessionId = undefined;
    legacy.version = undefined;
    const init: JsonRpcRequest = { ...legacy.init, id: `conduit-mcp/renew/${++this.#internalIds}` };
    let response: JsonRpcMessage;
    try {
      response = await this.#internal(init);
    } catch (err) {
      throw new McpClientError("session_expired", "renewal_failed", undefined, { cause: err });
    }
    if (!("result" in response) || legacy.version === undefined) {
      throw new McpClientError("session_expired", "renewal_refused");
    }
    try {
      const res = await host.fetcher.timed(
        "POST",
        host.options.url,
        this.headers(ACCEPT_POST),
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      );
      discard(res.body);
      if (res.statusCode < 200 || res.statusCode >= 300) throw answerError(res.statusCode, {}, undefined);
    } catch (err) {
      throw new McpClientError("session_expired", "renewal_failed", undefined, { cause: err });
    }
    if (gen === host.gen && host.running) {
      this.#listen.start(gen);
      // What the old session knew (resource subscriptions, the log level) is the client's to resend.
      host.renewed();
    }
  }

  /** A request the transport sends itself, bounded by `requestTimeout`; resolves with the response. */
  #internal(message: JsonRpcRequest): Promise<JsonRpcMessage> {
    const host = this.#host;
    return new Promise((resolve, reject) => {
      const ex = new Exchange(message.id, message, JSON.stringify(message), undefined, host.gen);
      ex.bypassGate = true;
      const timer = setTimeout(() => {
        ex.cancelled = true;
        host.untrack(ex);
        ex.controller.abort();
        reject(new McpClientError("timeout", "internal_request_timeout"));
      }, host.options.requestTimeout);
      ex.onResponse = (m) => {
        clearTimeout(timer);
        resolve(m);
      };
      ex.onError = (e) => {
        clearTimeout(timer);
        reject(e);
      };
      host.track(ex);
      void host.run(ex).then(() => {
        // Cancelled by close: nothing will answer it.
        if (ex.cancelled && !ex.done) {
          clearTimeout(timer);
          reject(new McpClientError("transport", "transport_closed"));
        }
      });
    });
  }
}
