import type { Connection } from "../connection/connection.js";
import type { OpCaller, ProgressParams, SendOptions } from "../connection/types.js";
import type { CallerMeta, RequestShaper } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import { Deadline } from "../shared/deadline.js";
import type { JsonObject } from "../shared/guards.js";
import type { RequestId } from "../shared/jsonrpc.js";
import { isValidTraceparent } from "../shared/meta.js";
import type {
  OpenTelemetryBridge,
  RequestSpan,
  RequestTarget,
  ToolCallSpan,
} from "../telemetry/open-telemetry.js";
import type { InputService } from "./input/service.js";
import type { RequestOptions } from "./types.js";

/** What a request's way out needs of its client: made once per client (`Requester`). */
export interface RequestCore {
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

/** What the client's own code adds to a request beyond the caller's options. */
export interface Via {
  /** The request's deadline when it started earlier (else one is made from the options). */
  deadline?: Deadline | undefined;
  /** Declares the tasks extension in this request's capabilities (modern). */
  withTasks?: boolean | undefined;
  /** The `callTool` span this request belongs to (OpenTelemetry). */
  toolSpan?: ToolCallSpan | undefined;
  /** Hears the text the result was parsed from, when the transport gave it (OpCaller.source). */
  heard?: ((text: string, id: RequestId) => void) | undefined;
}

export const NO_VIA: Via = {};

/**
 * A promise's resolving functions, taken by one shared executor (it runs synchronously inside
 * `new Promise`): no closure and no context per request.
 */
const noop = (): void => {};
const captured: { resolve: (value: never) => void; reject: (error: unknown) => void } = {
  resolve: noop,
  reject: noop,
};
function capture(resolve: (value: never) => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve;
  captured.reject = reject;
}

/**
 * One request of the client, from its start to its answer: the one object the connection keeps
 * for it (its `OpCaller`, and its `SendOptions`: nothing else is built per request). It shapes
 * the params for the era when they are sent (again on a resend), and, when OpenTelemetry is on,
 * is its own request span's hook: the span opens when a round is sent, hears the id and version
 * when the params are built, and ends when the connection settles it. So a request takes one road
 * with tracing on or off. Subclasses say what an answer or a failure settles.
 */
export abstract class RequestCall<R> implements OpCaller<Session>, SendOptions, CallerMeta {
  // Declared, not defined: each is set once in the constructor (a defined field is set twice).
  declare readonly core: RequestCore;
  declare readonly method: string | ((s: Session) => string);
  declare readonly opts: RequestOptions;
  declare readonly deadline: Deadline;
  declare readonly withTasks: boolean | undefined;
  /** The `callTool` span this request belongs to (OpenTelemetry). */
  declare toolSpan: ToolCallSpan | undefined;
  /** Hears the source text of the answer (a listing page: the list cache's reuse). */
  declare readonly heard: Via["heard"];
  /** The params of the round being sent (later rounds add the answers to input requests). */
  declare requestParams: JsonObject | undefined;
  /** The span of the request in flight (OpenTelemetry on), ended when it settles. */
  declare protected span: RequestSpan | undefined;
  /**
   * The caller's promise's own resolving functions, called as they are from the receive path (no
   * frame of ours between the answer and the caller).
   */
  declare protected fulfil: (value: R | PromiseLike<R>) => void;
  declare protected fail: (error: unknown) => void;
  // SendOptions, what the connection enforces, and CallerMeta, what the request adds to its
  // `_meta`: plain fields copied from the caller's options, read once per send.
  declare readonly signal: AbortSignal | undefined;
  declare readonly onProgress: ((params: ProgressParams) => void) | undefined;
  declare readonly resetTimeoutOnProgress: boolean | undefined;
  /** Server requests tied to this one (legacy) answer with these assigns. */
  declare readonly context: unknown;
  declare readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The caller's valid traceparent, else the request span's context (set when a span opens). */
  declare traceparent: string | undefined;

  constructor(core: RequestCore, method: string | ((s: Session) => string), opts: RequestOptions, via: Via) {
    this.core = core;
    this.method = method;
    this.opts = opts;
    this.deadline =
      via.deadline ??
      new Deadline(opts.timeout ?? core.requestTimeout, opts.maxTotalTimeout ?? core.maxTotalTimeout);
    this.withTasks = via.withTasks;
    this.toolSpan = via.toolSpan;
    this.heard = via.heard;
    this.requestParams = undefined;
    this.span = undefined;
    this.fulfil = noop;
    this.fail = noop;
    this.signal = opts.signal;
    this.onProgress = opts.onProgress;
    this.resetTimeoutOnProgress = opts.resetTimeoutOnProgress;
    this.context = opts.assigns;
    this.meta = opts.meta;
    this.traceparent = callerTrace(opts);
  }

  /** The promise the caller holds (made before the first round is sent). */
  protected promise(): Promise<R> {
    const promise = new Promise<R>(capture);
    this.fulfil = captured.resolve as (value: R | PromiseLike<R>) => void;
    this.fail = captured.reject;
    // Not kept past this call: a module-level reference would keep the last caller alive.
    captured.resolve = captured.reject = noop;
    return promise;
  }

  /**
   * Sends one round (one request, one span) with these params. The first round of a call inlines
   * this (a frame fewer between the caller and the transport).
   */
  protected send(params: JsonObject | undefined): void {
    this.requestParams = params;
    if (this.core.otel) this.openSpan();
    this.core.connection.requestFor(this.method, this, this);
  }

  /** The span of the round about to be sent: a child of the tool call's span, or of the caller's context. */
  protected openSpan(): void {
    const { otel, connection } = this.core;
    const m = this.method;
    const session = connection.session;
    const name = typeof m === "string" ? m : session ? m(session) : "ping";
    const span = otel!.startRequest(name, targetOf(name, this.requestParams), this.toolSpan?.context);
    this.span = span;
    // The caller's traceparent (the option) wins; else this round's span's context.
    if (callerTrace(this.opts) === undefined) this.traceparent = span.traceparent();
  }

  params(session: Session, progressToken: number | undefined, id: number): JsonObject {
    const span = this.span;
    if (span)
      span.sent(id, session.version, typeof this.method === "string" ? undefined : this.method(session));
    return this.core.shaper.params(this.requestParams, session, progressToken, this);
  }

  /** The round's span hears its answer (called only while one is open). */
  protected spanAnswered(result: JsonObject): void {
    const span = this.span!;
    this.span = undefined;
    span.end({ result });
    if (result.resultType === "input_required") this.toolSpan?.inputRequired();
  }

  /** The round's span hears its failure (called only while one is open). */
  protected spanFailed(error: unknown): void {
    const span = this.span!;
    this.span = undefined;
    const signal = this.opts.signal;
    span.end({ error, cancelled: signal?.aborted === true && error === signal.reason });
  }

  /** An answer arrived, from inside the receive path: settle, or send the next round. Must not throw. */
  abstract resolved(result: JsonObject): void;
  /** The request failed: settle, or retry. Must not throw. */
  abstract rejected(error: unknown): void;
}

/** A request whose answer settles the caller's promise as it is (`Requester.request`). */
export class PromisedRequest extends RequestCall<JsonObject> {
  start(params: JsonObject | undefined): Promise<JsonObject> {
    const promise = this.promise();
    this.requestParams = params;
    if (this.core.otel) this.openSpan();
    this.core.connection.requestFor(this.method, this, this);
    return promise;
  }

  source(text: string, id: RequestId): void {
    this.heard?.(text, id);
  }

  resolved(result: JsonObject): void {
    if (this.span) this.spanAnswered(result);
    this.fulfil(result);
  }

  rejected(error: unknown): void {
    if (this.span) this.spanFailed(error);
    this.fail(error);
  }
}

/** The caller's own trace context, when it is a valid one. */
function callerTrace(opts: RequestOptions): string | undefined {
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
