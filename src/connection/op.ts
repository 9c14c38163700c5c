import type { Deadline } from "../shared/deadline.js";
import type { RequestId } from "../shared/jsonrpc.js";
import type { OpCaller, ParamsBuilder, ProgressParams, SendOptions } from "./types.js";

/**
 * One request, from the caller's call until it settles: queued, then sent (maybe twice).
 *
 * The caller's `SendOptions` are copied into it, not kept: the options object dies with the call
 * that made it, so with many requests in flight it never outlives a minor GC (kept, it did).
 */
export class Op<S> {
  id: number | undefined;
  settled = false;
  retried = false;
  /** Carries the timeout, the pauses for server input, and the total cap (see SendOptions). */
  readonly deadline: Deadline;
  readonly signal: AbortSignal | undefined;
  readonly onProgress: ((params: ProgressParams) => void) | undefined;
  readonly resetTimeoutOnProgress: boolean;
  /** Whether it takes one of the caller's `maxInFlight` slots (the client's own requests do not). */
  readonly budgeted: boolean;
  /** Opaque: handed back for server requests tied to this one (`SendOptions.context`). */
  readonly context: unknown;
  onAbort: (() => void) | undefined;
  /**
   * When the request was first sent with telemetry listening (ms since the epoch), else 0: its
   * own duration, since a deadline may be shared with the requests before it (MRTR rounds, task
   * polls, pages of one listing).
   */
  tracedAt = 0;

  /** The method as sent; for an era-dependent one (ping), known once it is sent. */
  method: string;
  /**
   * The progress of this event-loop turn not yet handed to `onProgress`, in order: the first
   * `PROGRESS_PER_TURN`, then one slot for the latest of the rest (dispatch.ts).
   */
  progress: ProgressParams[] | undefined;
  /**
   * Its place in the connection's deadline watch (deadline-timers.ts): a list threaded through
   * the ops, so watching one allocates nothing.
   */
  timerWatched = false;
  timerPrev: Op<S> | undefined;
  timerNext: Op<S> | undefined;

  constructor(
    readonly methodFor: string | ((session: S) => string),
    /** Builds the params when it is sent; hears once how it ended (see OpCaller). */
    readonly caller: OpCaller<S>,
    opts: SendOptions,
    readonly internal: boolean,
  ) {
    this.deadline = opts.deadline;
    this.signal = opts.signal;
    this.onProgress = opts.onProgress;
    this.resetTimeoutOnProgress = opts.resetTimeoutOnProgress === true;
    this.budgeted = !internal && opts.background !== true;
    this.context = opts.context;
    this.method = typeof methodFor === "string" ? methodFor : "";
  }

  /** The client's own long-lived stream (a modern listen), outside the caller's budget. */
  get background(): boolean {
    return !this.internal && !this.budgeted;
  }
}

/** An `OpCaller` made of a builder and a promise's resolvers (the connection's own requests). */
export class PromiseCaller<S> implements OpCaller<S> {
  constructor(
    readonly build: ParamsBuilder<S>,
    readonly resolved: (result: Record<string, unknown>) => void,
    readonly rejected: (error: unknown) => void,
    /** Hears the text the result was parsed from (`OpCaller.source`), for a caller that wants it. */
    readonly heard?: (text: string, id: RequestId) => void,
  ) {}

  params(session: S, progressToken: number | undefined, id: number): Record<string, unknown> {
    return this.build(session, progressToken, id);
  }

  source(text: string, id: RequestId): void {
    this.heard?.(text, id);
  }
}
