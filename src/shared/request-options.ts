/** The options of a request and of a tool call: shared, as a tool call's pipeline carries them. */

/** A `notifications/progress` the server sent for a request. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
  [key: string]: unknown;
}

/** Options every request function takes. */
export interface RequestOptions {
  /**
   * Milliseconds before the request is cancelled (`kind: "timeout"`). Default: `requestTimeout`.
   * `Infinity`: no time limit of the library's own (end the request with `signal`).
   */
  timeout?: number;
  /** Aborting cancels the request on the wire; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Called with each `notifications/progress` for this request. */
  onProgress?: (progress: ProgressParams) => void;
  /** Restart `timeout` on each progress notification, up to `maxTotalTimeout`. Default false. */
  resetTimeoutOnProgress?: boolean;
  /** The ceiling for `resetTimeoutOnProgress`. Default: the client's `maxTotalTimeout` (300 000). */
  maxTotalTimeout?: number;
  /** Merged into the request's `_meta`; reserved keys are dropped. */
  meta?: Record<string, unknown>;
  /** W3C trace context for a modern request's `_meta`; dropped unless well formed. */
  traceparent?: string;
  /** `ctx.assigns` for the handler callbacks answering input requests of this call. Default: the client's `assigns`. */
  assigns?: Record<string, unknown>;
}

/** `callTool`'s options: the request options, and how to run the call as a server task. */
export interface CallToolOptions extends RequestOptions {
  /**
   * `"return"`: a `Task` when the server makes one. `"await"`: poll the task to its end and return
   * the result, `timeout` bounding the whole wait. Absent: no task (a legacy tool whose
   * `execution.taskSupport` is `"required"` is still run as one, and awaited).
   */
  task?: "return" | "await";
  /** Legacy: the `task.ttl` (ms) to ask for. */
  taskTtl?: number;
  /** Governance: whose call this is (grants are keyed by it). Default: the client's `principal`. */
  principal?: string;
  /** Governance: shown to the policy, the hooks and the approver; never sent. */
  context?: Record<string, unknown>;
  /** Governance: `"idempotent"` lets a failed call be sent again (see docs/governance.md). */
  retry?: "idempotent";
}
