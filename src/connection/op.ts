import type { Deadline } from "../shared/deadline.js";
import type { ParamsBuilder, ProgressParams, SendOptions } from "./types.js";

/** One request, from the caller's call until it settles: queued, then sent (maybe twice). */
export class Op<S> {
  id: number | undefined;
  settled = false;
  retried = false;
  /** Carries the timeout, the pauses for server input, and the total cap (see SendOptions). */
  readonly deadline: Deadline;
  onAbort: (() => void) | undefined;
  traced = false;

  /** The method as sent; for an era-dependent one (ping), known once it is sent. */
  method: string;
  /** The newest progress not yet handed to `onProgress` (a burst is delivered as its latest). */
  progress: ProgressParams | undefined;
  progressQueued = false;
  /**
   * Its place in the connection's deadline watch (deadline-timers.ts): a list threaded through
   * the ops, so watching one allocates nothing.
   */
  timerWatched = false;
  timerPrev: Op<S> | undefined;
  timerNext: Op<S> | undefined;

  constructor(
    readonly methodFor: string | ((session: S) => string),
    readonly build: ParamsBuilder<S>,
    readonly opts: SendOptions,
    readonly resolve: (result: Record<string, unknown>) => void,
    readonly reject: (error: unknown) => void,
    readonly internal: boolean,
  ) {
    this.deadline = opts.deadline;
    this.method = typeof methodFor === "string" ? methodFor : "";
  }

  /** Whether it takes one of the caller's `maxInFlight` slots (the client's own requests do not). */
  get budgeted(): boolean {
    return !this.internal && this.opts.background !== true;
  }
}
