import { Deadline } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";
import type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from "../shared/jsonrpc.js";
import type { Transport } from "../transport/transport.js";
import { closedError } from "./closed-error.js";
import type { ConnectionConfig } from "./config.js";
import { asClientError, RequestDispatch } from "./dispatch.js";
import { HealthChecks } from "./health.js";
import { ConnectionSink, DispatchLink, type Reach } from "./links.js";
import { Op, PromiseCaller } from "./op.js";
import { Outstanding } from "./outstanding.js";
import { ReadyWaiters } from "./ready-waiters.js";
import { ReconnectJoin } from "./reconnect-join.js";
import { ReconnectSchedule } from "./reconnect-schedule.js";
import { isRetryable } from "./retry-policy.js";
import { answerServerRequest, dropServerRequest } from "./server-requests.js";
import type {
  ConnectionState,
  Link,
  NegotiatedSession,
  OpCaller,
  ParamsBuilder,
  SendOptions,
} from "./types.js";
import { HandshakeRestart } from "./types.js";

let REACH: Reach<Connection<NegotiatedSession>, NegotiatedSession>;
/** The table for connections of session type `S` (the same functions: they only read fields). */
const reach = <S extends NegotiatedSession>() => REACH as unknown as Reach<Connection<S>, S>;

/**
 * One live session with one server: the state machine (connecting, the handshake, ready,
 * reconnecting with backoff, closed) and the transport's life under it. Requests go through the
 * dispatch (dispatch.ts: ids, limits, deadlines, cancellation, responses, progress); health
 * checks (health.ts), ready waiters (ready-waiters.ts), when to try again (reconnect-schedule.ts),
 * joining a reconnect (reconnect-join.ts) and the work close() waits for (outstanding.ts) are
 * their own files. It knows nothing of eras beyond what the negotiator hands back; shaping
 * requests is the caller's job. Connecting, giving up, reconnecting, closing and the transport's
 * sink all turn on one generation counter and one transport field, so those transitions stay
 * together here: "nothing from an old attempt counts" is checkable in one file.
 */
export class Connection<S extends NegotiatedSession> {
  readonly #cfg: ConnectionConfig<S>;
  #state: ConnectionState = "connecting";
  #reason: McpClientError | null = null;
  /** The last failure since the connection was last ready (a queued request's deadline says it). */
  #downReason: McpClientError | null = null;
  #session: S | null = null;
  #lastSession: S | null = null;
  #transport: Transport | undefined;
  #gen = 0;
  /** The request side: ids, limits, deadlines, responses, progress. */
  readonly #dispatch: RequestDispatch<S>;
  readonly #health: HealthChecks<S> | null;
  readonly #readyWaiters = new ReadyWaiters();
  #renegotiating: Promise<void> | undefined;
  #userClosed = false;
  /** Gave up with onGiveUp "stop": closed for good. */
  #stopped = false;
  /** The connection was ready at least once: only then is a server that ended worth a restart. */
  #readyOnce = false;
  readonly #retry: ReconnectSchedule;
  /** The reconnect() under way: calls made until its attempt settles join it. */
  readonly #reconnecting = new ReconnectJoin();
  /** Attempts under way and transports being shut down: close() waits for them. */
  readonly #outstanding = new Outstanding();

  // The one table through which every connection's dispatch host and sinks reach its fields.
  static {
    REACH = {
      transport: (c) => c.#transport,
      session: (c) => c.#session,
      ready: (c) => c.#state === "ready",
      gen: (c) => c.#gen,
      dispatch: (c) => c.#dispatch,
      hooks: (c) => c.#cfg.hooks,
      mayRenegotiate: (c, op) => !op.internal && !op.retried && c.#session?.era === "modern",
      renegotiate: (c, op, supported) => void c.#renegotiateAndResend(op, supported),
      eraMiss: (c, error) => c.#cfg.negotiator.eraMiss?.(error, c.#transport?.kind ?? "unknown") ?? false,
      downReason: (c) => (c.#state === "ready" ? null : c.#downReason),
      receive: (c, m, relatedRequestId, source) => c.#receive(m, relatedRequestId, source),
      transportClosed: (c, error) => c.#transportClosed(error),
    };
  }

  constructor(config: ConnectionConfig<S>) {
    this.#cfg = config;
    this.#retry = new ReconnectSchedule(config);
    this.#dispatch = new RequestDispatch<S>(new DispatchLink(this, reach<S>(), config));
    this.#health =
      config.healthCheck &&
      new HealthChecks(config.healthCheck, {
        ready: () => this.#state === "ready",
        generation: () => this.#gen,
        send: (method, caller, deadline) => {
          this.#dispatch.sendOwn(new Op<S>(method, caller, { deadline }, true));
        },
        failed: (error) => this.#transportFailed(error),
      });
  }

  // ---- state -------------------------------------------------------------------------------

  get state(): ConnectionState {
    return this.#state;
  }

  /** Why the connection is closed or reconnecting (a safe message), or null. */
  get reason(): McpClientError | null {
    return this.#reason;
  }

  /** The current session while ready; otherwise the last one (eras survive reconnects). */
  get session(): S | null {
    return this.#session ?? this.#lastSession;
  }

  get inFlight(): number {
    return this.#dispatch.inFlight;
  }

  get queued(): number {
    return this.#dispatch.queued;
  }

  /** Starts the first connection attempt. */
  start(): void {
    this.#outstanding.track(this.#connect());
  }

  /**
   * Resolves when ready; rejects at once with `closed` when the connection has given up, with
   * `timeout` after `timeout` ms, or with the signal's reason when it aborts.
   */
  whenReady(timeout: number, signal?: AbortSignal): Promise<void> {
    if (this.#state === "ready") return Promise.resolve();
    if (this.#state === "closed") return Promise.reject(closedError(this.#reason, this.#userClosed));
    return this.#readyWaiters.wait(timeout, signal);
  }

  #setState(to: ConnectionState, reason: McpClientError | null = null): void {
    const from = this.#state;
    this.#state = to;
    this.#reason = reason;
    if (reason) this.#downReason = reason;
    else if (to === "ready") this.#downReason = null;
    if (from === to) return;
    if (to !== "ready") this.#stopReadyTimers();
    const event = { from, to, reason: reason ? reason.message : null, attempt: this.#retry.attempt };
    this.#cfg.telemetry.emit("connection:transition", () => event);
    this.#cfg.hooks.transition?.(event);
  }

  // ---- connecting ----------------------------------------------------------------------------

  /** `restarted`: this attempt already restarted its transport once for the handshake. */
  async #connect(restarted = false): Promise<void> {
    this.#retry.starting();
    const gen = ++this.#gen;
    this.#session = null;
    this.#setState("connecting");
    let transport: Transport;
    try {
      transport = this.#cfg.transport();
    } catch (err) {
      return this.#giveUp(asClientError(err, "transport", "transport_failed"));
    }
    this.#transport = transport;
    try {
      await transport.start(new ConnectionSink(this, reach<S>(), gen));
      if (gen !== this.#gen) return this.#outstanding.retire(transport);
      const session = await this.#cfg.negotiator.negotiate(this.#linkFor(gen));
      if (gen !== this.#gen) return;
      this.#session = session;
      this.#lastSession = session;
      this.#readyOnce = true;
      this.#setState("ready");
      this.#startReadyTimers();
      this.#readyWaiters.resolveAll();
      this.#dispatch.drain();
    } catch (err) {
      if (gen !== this.#gen) return;
      this.#gen++; // nothing from this attempt's transport counts any more
      const restart = err instanceof HandshakeRestart;
      const error = restart ? err.error : asClientError(err, "transport", "handshake_failed");
      this.#rejectPending(error);
      await this.#outstanding.retire(transport);
      if (this.#userClosed || gen + 1 !== this.#gen) return;
      // The negotiation itself asked for a fresh transport: still this attempt (at once, no
      // "reconnecting"), but a new server all the same (ReconnectSchedule.restartNow).
      if (restart && !restarted && this.#retry.restartNow(this.#readyOnce)) return this.#connect(true);
      if (isRetryable(error, this.#readyOnce)) this.#scheduleReconnect(error);
      else this.#giveUp(error);
    }
  }

  /** Waits the backoff, then tries again; gives up after `maxReconnects` attempts in a row. */
  #scheduleReconnect(error: McpClientError): void {
    const index = this.#retry.next();
    if (index === undefined) return this.#giveUp(error);
    this.#setState("reconnecting", error);
    this.#retry.after(index, () => this.#outstanding.track(this.#connect()));
  }

  #startReadyTimers(): void {
    this.#retry.ready();
    this.#health?.start();
  }

  #stopReadyTimers(): void {
    this.#retry.notReady();
    this.#health?.stop();
  }

  #giveUp(reason: McpClientError): void {
    this.#gen++;
    this.#session = null;
    if (this.#cfg.onGiveUp === "stop") this.#stopped = true;
    this.#setState("closed", reason);
    const closed = closedError(this.#reason, this.#userClosed);
    this.#dispatch.failQueued(closed);
    this.#readyWaiters.rejectAll(closed);
    this.#dispatch.stopTimers();
  }

  /** `keepState`: a ready connection settling its version again stays `ready` meanwhile. */
  #linkFor(gen: number, keepState = false): Link {
    return {
      transportKind: this.#transport?.kind ?? "unknown",
      request: (method, params, timeout) =>
        new Promise((resolve, reject) => {
          if (gen !== this.#gen) return reject(new McpClientError("transport", "connection_replaced"));
          const deadline = new Deadline(timeout);
          this.#dispatch.sendOwn(
            new Op<S>(method, new PromiseCaller(() => params, resolve, reject), { deadline }, true),
          );
        }),
      notify: (method, params) => {
        if (gen === this.#gen)
          this.#dispatch.write({ jsonrpc: "2.0", method, ...(params ? { params } : {}) });
      },
      setState: (state) => {
        if (gen === this.#gen && !keepState) this.#setState(state);
      },
    };
  }

  #transportClosed(error: McpClientError | undefined): void {
    const err = error ?? new McpClientError("transport", "transport_closed");
    if (this.#state !== "ready") {
      // Mid-handshake: failing its requests makes the handshake fail, and #connect decides.
      this.#rejectPending(err);
      return;
    }
    this.#transportFailed(err);
  }

  /**
   * A ready connection lost its transport: what was in flight fails with `transport` (never
   * resent: it may have run), and the connection comes back after the backoff.
   */
  #transportFailed(err: McpClientError): void {
    this.#gen++;
    this.#rejectPending(err);
    // Closed even when it closed itself: that is how its shutdown (a server's group) is awaited.
    const t = this.#transport;
    this.#transport = undefined;
    if (t) void this.#outstanding.retire(t);
    this.#scheduleReconnect(err);
  }

  // ---- requests ------------------------------------------------------------------------------

  /**
   * Sends a request once ready (waiting in the queue until then, within its own timeout).
   * Resolves with the result object; rejects with an `McpClientError`, or the signal's reason.
   */
  request(
    method: string | ((session: S) => string),
    build: ParamsBuilder<S>,
    opts: SendOptions,
    heard?: (text: string, id: RequestId) => void,
  ): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) =>
      this.requestFor(method, new PromiseCaller(build, resolve, reject, heard), opts),
    );
  }

  /**
   * `request` for a caller that settles a promise of its own: `caller` builds the params and
   * hears the answer (or the failure) from inside the receive path. A caller that turns the
   * result into its own answer there saves a promise and a turn of the microtask queue per
   * request (in sequential calls every turn between an answer and the next request counts). A
   * refusal (closed, an aborted signal, a full queue) reaches `caller.rejected` before this
   * returns.
   */
  requestFor(method: string | ((session: S) => string), caller: OpCaller<S>, opts: SendOptions): void {
    if (this.#state === "closed") return caller.rejected(closedError(this.#reason, this.#userClosed));
    const signal = opts.signal;
    if (signal?.aborted) return caller.rejected(signal.reason);
    const refused = this.#dispatch.submit(new Op<S>(method, caller, opts, false));
    if (refused) caller.rejected(refused);
  }

  /** Sends a notification if connected; dropped otherwise (notifications are fire and forget). */
  notify(method: string, params?: Record<string, unknown>): void {
    if (this.#state !== "ready") return;
    this.#dispatch.write({ jsonrpc: "2.0", method, ...(params ? { params } : {}) });
  }

  /**
   * Stops the clock of request `id` (in flight) until the returned function is called: the time
   * in between is added to its deadline, which never passes `maxTotalTimeout` from its start
   * (nor `timeout`, when that is longer). Pauses nest. An unknown id pauses nothing.
   */
  pauseDeadline(id: RequestId): () => void {
    return this.#dispatch.pause(id);
  }

  #rejectPending(error: McpClientError): void {
    this.#dispatch.failPending(error);
  }

  // ---- receiving -----------------------------------------------------------------------------

  #receive(m: JsonRpcMessage, relatedRequestId?: RequestId, source?: string): void {
    if ("method" in m) {
      if ("id" in m && m.id !== undefined) {
        const request = m as JsonRpcRequest;
        if (this.#modernRules()) return dropServerRequest(this.#cfg.hooks, this.#cfg.telemetry, request);
        const gen = this.#gen;
        return void answerServerRequest(
          this.#cfg.hooks,
          request,
          this.#dispatch.relate(relatedRequestId),
          (reply) => {
            if (gen === this.#gen) this.#dispatch.write(reply);
          },
        );
      }
      if (m.method === "notifications/progress") return this.#dispatch.progress(m.params);
      return this.#cfg.hooks.notification(m as JsonRpcNotification);
    }
    this.#dispatch.response(m as JsonRpcResponse, relatedRequestId, source);
  }

  /**
   * Whether the modern era's rules hold: a modern session, or a `server/discover` handshake under
   * way. A modern server sends no requests.
   */
  #modernRules(): boolean {
    return this.#session ? this.#session.era === "modern" : this.#state === "discovering";
  }

  /** A ready modern connection heard `-32022`: settle the version again, then resend once. */
  async #renegotiateAndResend(op: Op<S>, supported: unknown): Promise<void> {
    const gen = this.#gen;
    try {
      this.#renegotiating ??= this.#cfg.negotiator
        .renegotiate(this.#linkFor(gen, true), supported)
        .then((session) => {
          if (gen === this.#gen) {
            this.#session = session;
            this.#lastSession = session;
          }
        })
        .finally(() => {
          this.#renegotiating = undefined;
        });
      await this.#renegotiating;
    } catch (err) {
      return this.#dispatch.settle(op, asClientError(err, "protocol", "renegotiation_failed"));
    }
    if (op.settled) return;
    if (this.#state !== "ready" || gen !== this.#gen) {
      return this.#dispatch.settle(op, new McpClientError("transport", "connection_lost"));
    }
    this.#dispatch.send(op);
  }

  // ---- closing -------------------------------------------------------------------------------

  /** Fails everything with `closed` and stops the transport. Safe to call twice. */
  async close(): Promise<void> {
    this.#userClosed = true;
    this.#retry.cancel();
    const closed = new McpClientError("closed", "client_closed");
    this.#gen++;
    this.#session = null;
    this.#setState("closed", closed);
    this.#dispatch.failQueued(closed);
    this.#rejectPending(closed);
    this.#readyWaiters.rejectAll(closed);
    this.#dispatch.stopTimers();
    const t = this.#transport;
    this.#transport = undefined;
    if (t) await this.#outstanding.retire(t);
    await this.#outstanding.settled();
  }

  /**
   * Drops the connection (requests in flight fail with `transport`) and connects again now.
   * Calls made before the new attempt has settled join it: one transport, one handshake.
   * `join: false` starts a new one all the same (new credentials must not ride on an attempt
   * that began with the old ones).
   */
  reconnect(options: { join?: boolean } = {}): Promise<void> {
    if (this.#stopped) return Promise.reject(new McpClientError("closed", "stopped"));
    const joining = this.#reconnecting.current;
    if (joining && options.join !== false) return joining;
    return this.#reconnecting.begin((started) => this.#reconnect(started));
  }

  /** Resolves `started` once the new attempt is under way; settles when that attempt does. */
  async #reconnect(started: () => void): Promise<void> {
    this.#userClosed = false;
    this.#retry.cancel();
    this.#retry.forgive();
    this.#gen++;
    this.#session = null;
    // Requests made from now on wait in the queue for the new connection.
    this.#setState("reconnecting");
    this.#rejectPending(new McpClientError("transport", "reconnecting"));
    const t = this.#transport;
    this.#transport = undefined;
    const gen = this.#gen;
    if (t) await this.#outstanding.retire(t);
    // Closed (or replaced) meanwhile: connecting now would outlive close().
    if (this.#userClosed || gen !== this.#gen) return;
    const attempt = this.#connect();
    this.#outstanding.track(attempt);
    started();
    await attempt;
  }
}
