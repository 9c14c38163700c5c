import type { Connection } from "../connection/connection.js";
import type { OpCaller, SendOptions } from "../connection/types.js";
import type { RequestShaper } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import { Deadline } from "../shared/deadline.js";
import type { JsonObject } from "../shared/guards.js";
import type { RequestId } from "../shared/jsonrpc.js";
import { isValidTraceparent } from "../shared/meta.js";
import type { OpenTelemetryBridge, RequestTarget, ToolCallSpan } from "../telemetry/open-telemetry.js";
import { withHeaderRefresh } from "./header-refresh.js";
import { beginRound, continueWithInput, isFinal, type LoopRequest, requestWithInput } from "./input/mrtr.js";
import type { InputService } from "./input/service.js";
import type { RequestOptions } from "./types.js";

/** What the client's own code adds to a request beyond the caller's options. */
export interface Via {
  /** Declares the tasks extension in this request's capabilities (modern). */
  withTasks?: boolean;
  /** The `callTool` span this request belongs to (OpenTelemetry). */
  toolSpan?: ToolCallSpan | undefined;
  /** Hears the text the result was parsed from, when the transport gave it (OpCaller.source). */
  heard?: ((text: string, id: RequestId) => void) | undefined;
}

const NO_VIA: Via = {};

/** The methods whose result may be `input_required` (modern). */
export type InputMethod = "tools/call" | "resources/read" | "prompts/get";

export interface RequesterDeps {
  connection: Connection<Session>;
  shaper: RequestShaper;
  otel: OpenTelemetryBridge | null;
  input: InputService;
  requestTimeout: number;
  maxTotalTimeout: number;
  /**
   * The transport mirrors tool arguments into headers (HTTP): a `tools/call` refused with a
   * header mismatch relists the tools and is sent once more (header-refresh.ts).
   */
  toolHeaders: boolean;
}

/**
 * How every request of the client goes out: one `Deadline` made from the caller's options where
 * the request starts and handed to the connection as it is; params shaped for the era when the
 * request is sent (a request made while connecting learns the era then); the request span when
 * OpenTelemetry is on. Nothing is built for tracing that is off.
 */
export class Requester {
  readonly #d: RequesterDeps;

  constructor(deps: RequesterDeps) {
    this.#d = deps;
  }

  /**
   * The deadline of a request that starts now: the caller's `timeout` (or `timeout`, when an
   * upper floor gave this attempt its own) and cap, else the client's.
   */
  deadline(opts: RequestOptions, timeout = opts.timeout ?? this.#d.requestTimeout): Deadline {
    return new Deadline(timeout, opts.maxTotalTimeout ?? this.#d.maxTotalTimeout);
  }

  /**
   * Sends one request within `deadline`. A method given as a function of the session (ping) is
   * resolved when it is sent.
   */
  request(
    method: string | ((s: Session) => string),
    params: JsonObject | undefined,
    opts: RequestOptions,
    deadline: Deadline = this.deadline(opts),
    via: Via = NO_VIA,
  ): Promise<JsonObject> {
    const { connection, otel } = this.#d;
    if (!otel) {
      const send = sendOptions(opts, deadline);
      const { shaper } = this.#d;
      return new Promise((resolve, reject) =>
        connection.requestFor(method, new PromisedRequest(shaper, params, opts, via, resolve, reject), send),
      );
    }
    const session = connection.session;
    const name = typeof method === "string" ? method : session ? method(session) : "ping";
    const toolSpan = via.toolSpan;
    const span = otel.startRequest(name, targetOf(name, params), toolSpan?.context);
    // The caller's traceparent (in meta, or the option) wins; else the request span's context.
    const traceparent = callerTraceOf(opts) ?? span.traceparent();
    const { shaper } = this.#d;
    const { meta } = opts;
    const withTasks = via.withTasks;
    return connection
      .request(
        method,
        (s, token, id) => {
          span.sent(id, s.version, typeof method === "string" ? undefined : method(s));
          return shaper.params(params, s, token, meta, traceparent, withTasks);
        },
        sendOptions(opts, deadline),
        via.heard,
      )
      .then(
        (result) => {
          span.end({ result });
          if (result.resultType === "input_required") toolSpan?.inputRequired();
          return result;
        },
        (err: unknown) => {
          span.end({ error: err, cancelled: opts.signal?.aborted === true && err === opts.signal.reason });
          throw err;
        },
      );
  }

  /**
   * A request that may answer `input_required` (modern): the handler answers each round and the
   * request is sent again, within the one `deadline`. `rounds` counts the requests sent.
   */
  withInput(
    method: InputMethod,
    params: JsonObject,
    opts: RequestOptions,
    deadline: Deadline = this.deadline(opts),
    rounds: { count: number } = { count: 0 },
    via: Via = NO_VIA,
    accept?: ReadonlySet<string>,
  ): Promise<JsonObject> {
    return requestWithInput(this.#d.input, this.#loop(method, params, opts, deadline, rounds, via, accept));
  }

  /**
   * `withInput(...).then(done, failed)` without the turns of the microtask queue in between: when
   * the first answer is final (the common case), `done` makes the call's result from it inside the
   * receive path and the returned promise is settled there, so the caller hears the answer one
   * turn after it arrives (two hops fewer than awaiting `withInput` in an async function). Any
   * failure of the request goes to `failed`; a throw in `done` or `failed` rejects. Other rounds
   * (`input_required`) go on as in `withInput`.
   */
  withInputThen<R>(
    method: InputMethod,
    params: JsonObject,
    opts: RequestOptions,
    deadline: Deadline,
    rounds: { count: number },
    via: Via,
    done: (result: JsonObject) => R | PromiseLike<R>,
    failed: (error: unknown) => R | PromiseLike<R>,
  ): Promise<R> {
    // A header mismatch relists and sends again (header-refresh.ts): the promise path.
    if (method === "tools/call" && this.#d.toolHeaders) {
      return this.withInput(method, params, opts, deadline, rounds, via).then(done, failed);
    }
    const call = new FirstRound<R>(
      this,
      this.#d.shaper,
      method,
      params,
      opts,
      deadline,
      rounds,
      via,
      done,
      failed,
    );
    const promise = new Promise<R>((resolve, reject) => {
      call.resolve = resolve;
      call.reject = reject;
    });
    try {
      beginRound(deadline, rounds);
    } catch (err) {
      call.rejected(err);
      return promise;
    }
    if (this.#d.otel) {
      this.request(method, params, opts, deadline, via).then(
        (result) => call.resolved(result),
        (err: unknown) => call.rejected(err),
      );
    } else {
      this.#d.connection.requestFor(method, call, sendOptions(opts, deadline));
    }
    return promise;
  }

  /** The rounds after a first round (`withInputThen`) that answered `input_required`. */
  continueAfter(call: FirstRound<unknown>, result: JsonObject): Promise<JsonObject> {
    const { method, opts, deadline, rounds, via } = call;
    const loop = this.#loop(method, call.requestParams as JsonObject, opts, deadline, rounds, via, undefined);
    return continueWithInput(this.#d.input, loop, result);
  }

  /** The input loop's view of one call: its params, options and deadline, and how a round is sent. */
  #loop(
    method: InputMethod,
    params: JsonObject,
    opts: RequestOptions,
    deadline: Deadline,
    rounds: { count: number },
    via: Via,
    accept: ReadonlySet<string> | undefined,
  ): LoopRequest {
    return {
      accept,
      params,
      opts,
      deadline,
      send: (p) =>
        method === "tools/call" && this.#d.toolHeaders
          ? withHeaderRefresh(
              () => this.#d.connection.session?.era === "modern",
              () => this.request(method, p, opts, deadline, via),
              (cursor) =>
                this.request(
                  "tools/list",
                  cursor === undefined ? {} : { cursor },
                  { signal: opts.signal },
                  deadline,
                ),
            )
          : this.request(method, p, opts, deadline, via),
      rounds,
    };
  }
}

/**
 * A request's params, shaped for the era when it is sent (OpenTelemetry off): the one object the
 * connection keeps for the request (see OpCaller); subclasses say what its answer settles.
 */
abstract class ShapedRequest implements OpCaller<Session> {
  readonly #shaper: RequestShaper;
  readonly requestParams: JsonObject | undefined;
  readonly #meta: Readonly<Record<string, unknown>> | undefined;
  readonly #trace: string | undefined;
  readonly #withTasks: boolean | undefined;

  constructor(shaper: RequestShaper, params: JsonObject | undefined, opts: RequestOptions, via: Via) {
    this.#shaper = shaper;
    this.requestParams = params;
    this.#meta = opts.meta;
    this.#trace = callerTraceOf(opts);
    this.#withTasks = via.withTasks;
  }

  params(session: Session, progressToken: number | undefined): JsonObject {
    return this.#shaper.params(
      this.requestParams,
      session,
      progressToken,
      this.#meta,
      this.#trace,
      this.#withTasks,
    );
  }

  abstract resolved(result: JsonObject): void;
  abstract rejected(error: unknown): void;
}

/** A request whose answer settles a promise as it is (`Requester.request`). */
class PromisedRequest extends ShapedRequest {
  readonly #resolve: (result: JsonObject) => void;
  readonly #reject: (error: unknown) => void;
  readonly #heard: Via["heard"];

  constructor(
    shaper: RequestShaper,
    params: JsonObject | undefined,
    opts: RequestOptions,
    via: Via,
    resolve: (result: JsonObject) => void,
    reject: (error: unknown) => void,
  ) {
    super(shaper, params, opts, via);
    this.#resolve = resolve;
    this.#reject = reject;
    this.#heard = via.heard;
  }

  source(text: string, id: RequestId): void {
    this.#heard?.(text, id);
  }

  resolved(result: JsonObject): void {
    this.#resolve(result);
  }

  rejected(error: unknown): void {
    this.#reject(error);
  }
}

/**
 * The first round of `withInputThen`: a final answer goes through `done`, a failure through
 * `failed`, and what they make (or throw) settles the call's promise; `input_required` goes on
 * in the input loop.
 */
class FirstRound<R> extends ShapedRequest {
  resolve!: (value: R | PromiseLike<R>) => void;
  reject!: (error: unknown) => void;

  constructor(
    readonly requester: Requester,
    shaper: RequestShaper,
    readonly method: InputMethod,
    params: JsonObject,
    readonly opts: RequestOptions,
    readonly deadline: Deadline,
    readonly rounds: { count: number },
    readonly via: Via,
    readonly done: (result: JsonObject) => R | PromiseLike<R>,
    readonly failed: (error: unknown) => R | PromiseLike<R>,
  ) {
    super(shaper, params, opts, via);
  }

  resolved(result: JsonObject): void {
    let final: boolean;
    try {
      final = isFinal(result, undefined);
    } catch (err) {
      return this.rejected(err);
    }
    if (final) return settleWith(this.resolve, this.reject, this.done, result);
    this.resolve(
      this.requester.continueAfter(this as FirstRound<unknown>, result).then(this.done, this.failed),
    );
  }

  rejected(error: unknown): void {
    settleWith(this.resolve, this.reject, this.failed, error);
  }
}

/** Settles a promise with what `f` makes of `v`: its value (or promise), or what it threw. */
function settleWith<V, R>(
  resolve: (value: R | PromiseLike<R>) => void,
  reject: (error: unknown) => void,
  f: (v: V) => R | PromiseLike<R>,
  v: V,
): void {
  try {
    resolve(f(v));
  } catch (err) {
    reject(err);
  }
}

/** What the connection enforces of a request: its deadline and the caller's signal and progress. */
function sendOptions(opts: RequestOptions, deadline: Deadline): SendOptions {
  return {
    deadline,
    signal: opts.signal,
    onProgress: opts.onProgress,
    resetTimeoutOnProgress: opts.resetTimeoutOnProgress,
    // Server requests tied to this one (legacy) answer with these assigns.
    context: opts.assigns,
  };
}

/** The caller's own trace context, when it is a valid one. */
function callerTraceOf(opts: RequestOptions): string | undefined {
  return isValidTraceparent(opts.traceparent) ? opts.traceparent : undefined;
}

/** What a request is about, for its span: the tool, the prompt or the resource. */
function targetOf(method: string, params: JsonObject | undefined): RequestTarget {
  const name = typeof params?.name === "string" ? params.name : undefined;
  if (method === "tools/call") return { toolName: name };
  if (method === "prompts/get") return { promptName: name };
  const uri = typeof params?.uri === "string" ? params.uri : undefined;
  return uri === undefined ? {} : { resourceUri: uri };
}
