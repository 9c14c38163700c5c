import type { Connection } from "../connection/connection.js";
import { legacyToolTasks } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import { validateJson } from "../schema/validator.js";
import { McpClientError } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";
import {
  type CallEvents,
  type CallTool,
  carryTask,
  composeInterceptors,
  handBack,
  startedTask,
  type ToolCall,
  type ToolCallInterceptor,
  type ToolSource,
} from "../shared/tool-call.js";
import type { ToolCallSpan } from "../telemetry/open-telemetry.js";
import {
  type ToolCallOutcome,
  type ToolCallTracing,
  type TracedCall,
  traceToolCall,
  tracingOn,
} from "../telemetry/tool-call.js";
import type { Budget } from "./budget.js";
import type { Lists } from "./lists.js";
import type { Requester } from "./requester.js";
import type { Task, Tasks } from "./tasks.js";
import { type ToolCallHost, ToolCallOp } from "./tool-call-op.js";
import type { CallToolOptions, Tool, ToolResult } from "./types.js";

export interface ToolCallsDeps {
  serverId: string;
  principal: string | null;
  requestTimeout: number;
  validateOutput: boolean;
  /**
   * The client's `maxInFlight` and `maxQueued` (a first call goes beside its listing only with
   * room for both) and its transport's kind (over HTTP only in the modern era: see `#lookUp`).
   */
  limits: { maxInFlight: number; maxQueued: number; transportKind: string };
  connection: Connection<Session>;
  requester: Requester;
  lists: Lists;
  /** The client's tasks, made on first use. */
  tasks: () => Tasks;
  /** The caller's interceptors (the `interceptors` option), first = outermost. */
  interceptors: readonly ToolCallInterceptor[];
  tracing: ToolCallTracing;
  /** The client's events: governance's `policy:decision` and retries go there too. */
  events: CallEvents;
  /** The tool's listed definition, for the layers that judge it (governance). */
  tools: ToolSource;
  /** The client's `rateLimit`, when it has one. */
  budget?: Budget | undefined;
  /** The client's `stores.grants`, for governance (it never imports it: the call carries it). */
  grants?: object | undefined;
}

/**
 * What a traced call reports (its span and stop event read it when it ends): the requests sent,
 * and what the layers filled in (`CallReport`). Made by the tracing step only when tracing is on.
 */
class CallTrace implements TracedCall<ToolResult> {
  attempts = 1;
  decision: "allow" | "deny" | "ask" | null = null;
  readonly rounds = { count: 0 };
  /** The call's span, parent of each round's request span (OpenTelemetry on). */
  span: ToolCallSpan | undefined = undefined;

  constructor(
    readonly call: ToolCall,
    readonly steps: (call: ToolCall) => Promise<ToolResult>,
  ) {}

  outcome(result: ToolResult): ToolCallOutcome | null {
    return outcomeOf(result);
  }

  run(span: ToolCallSpan | undefined): Promise<ToolResult> {
    this.span = span;
    return this.steps(this.call);
  }
}

/**
 * The way of one `callTool` after its arguments were checked, as a chain composed once: the
 * tracing step (its span and events; nothing when tracing is off), the caller's interceptors in
 * order, then the core step: the listing's word on the tool (withdrawn, rejected, its output
 * schema), and the call itself, as a task when asked for and the server makes one
 * (`Tasks.route`).
 */
export class ToolCalls {
  readonly #d: ToolCallsDeps;
  /** The caller's interceptors around the core step; the tracing step stands in front. */
  readonly #chain: CallTool | null;
  /** The steps inside the tracing step: the interceptors, else the core step (made when tracing first runs). */
  #inner: ((call: ToolCall) => Promise<ToolResult>) | undefined;
  readonly #principal: string | undefined;
  /** What each call object needs of this client (tool-call-op.ts): one object, its methods on a prototype. */
  readonly #host: ToolCallHost;

  constructor(deps: ToolCallsDeps) {
    this.#d = deps;
    this.#principal = deps.principal ?? undefined;
    // No interceptors: the core step is called as it is (no closure between).
    this.#chain =
      deps.interceptors.length === 0
        ? null
        : composeInterceptors(deps.interceptors, (call) => this.#core(call));
    // Methods, not four closures: ~300 B less per client (issue 26).
    this.#host = new CallHost(this);
  }

  /** For CallHost: the result checked against the tool's output schema. */
  checkOutputFor(tool: Tool | null, result: ToolResult): ToolResult | Promise<ToolResult> {
    return this.#checkOutput(tool, result);
  }

  /** For CallHost: the call as a task. */
  routeAsTask(op: ToolCallOp): Promise<ToolResult | Task> {
    return this.#routed(op);
  }

  /** For CallHost: the client's requester. */
  get requester(): ToolCallsDeps["requester"] {
    return this.#d.requester;
  }

  /** One call, made once into the object every step sees. A task handed back leaves as itself. */
  call(name: string, args: Record<string, unknown>, opts: CallToolOptions): Promise<ToolResult | Task> {
    const d = this.#d;
    // One object of one shape for every call (every option named, none spread): it is made per
    // call on the hot path, and what the checked options may hold is known.
    const call: ToolCall = {
      name,
      arguments: args,
      serverId: d.serverId,
      timeout: opts.timeout ?? d.requestTimeout,
      signal: opts.signal,
      onProgress: opts.onProgress,
      resetTimeoutOnProgress: opts.resetTimeoutOnProgress,
      maxTotalTimeout: opts.maxTotalTimeout,
      meta: opts.meta,
      traceparent: opts.traceparent,
      assigns: opts.assigns,
      task: opts.task,
      taskTtl: opts.taskTtl,
      // The principal comes from the call's options or the client's option, never the arguments.
      principal: opts.principal ?? this.#principal,
      context: opts.context,
      retry: opts.retry,
      tools: d.tools,
      events: d.events,
      report: undefined,
      grants: d.grants,
    };
    const done = this.#traced(call);
    return opts.task === "return" ? done.then(handBack<Task>) : done;
  }

  /** The tracing step, outermost: with tracing off, the chain as it is. */
  #traced(call: ToolCall): Promise<ToolResult> {
    const tracing = this.#d.tracing;
    if (!tracingOn(tracing)) return this.#chain ? this.#intercepted(call) : this.#core(call);
    this.#inner ??= this.#chain ? (c) => this.#intercepted(c) : (c) => this.#core(c);
    const trace = new CallTrace(call, this.#inner);
    call.report = trace;
    return traceToolCall(tracing, trace);
  }

  /**
   * The caller's interceptors (their code): one that throws at once, or hands back a value that
   * is not a promise, still ends the call as a promise (a native one is passed on as it is).
   */
  #intercepted(call: ToolCall): Promise<ToolResult> {
    try {
      return Promise.resolve(this.#chain!(call));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * The core step, innermost: the call as the layers above left it, within its own deadline.
   * One attempt, made once into its call object (its deadline starts now), then the listing's
   * word on the tool and the call. Not an async function: the call's own promise is handed back
   * (an async one would add a turn).
   */
  #core(call: ToolCall): Promise<ToolResult> {
    let done: Promise<ToolResult | Task>;
    try {
      const trace = call.report instanceof CallTrace ? call.report : undefined;
      const op = trace
        ? new ToolCallOp(this.#host, call, trace.rounds, trace.span)
        : new ToolCallOp(this.#host, call, undefined, undefined);
      // Over the `rateLimit`, the call waits for its token (an in-memory bucket answers at once,
      // and a call without a limit goes on here). Either way #listed is one frame below this one.
      const gate = this.#d.budget?.admit(op.deadline, call.signal);
      done = gate === undefined ? this.#listed(op, call) : this.#gated(gate, op, call);
    } catch (err) {
      done = Promise.reject(err);
    }
    // Only a task: "return" call can end in a task; it travels the chain as a result holding it.
    return call.task === "return" ? done.then(carryTask) : (done as Promise<ToolResult>);
  }

  /** After the `rateLimit` wait (a method of its own: a closure in #core costs every call a context). */
  #gated(gate: Promise<void>, op: ToolCallOp, call: ToolCall): Promise<ToolResult | Task> {
    return gate.then(() => this.#listed(op, call));
  }

  /**
   * The listing's word on the tool, then the call. What it throws becomes the call's rejection
   * where it is called (#core's catch, or the `then` of #gated).
   */
  #listed(op: ToolCallOp, call: ToolCall): Promise<ToolResult | Task> {
    // A name the held listing has goes out at once. Any other is looked up (listing once when
    // none is held or it is stale) or refused with not_found; with callUnlistedTools, a name no
    // listing mentioned goes out as asked (null).
    const tool = this.#d.lists.listed(call.name);
    if (tool === undefined) return this.#lookUp(op, call);
    op.tool = tool;
    // The common case: no task wanted, and none the server could insist on. Sent at once; a
    // final answer is made the result where it is received, so the caller hears it one turn later.
    if (call.task === undefined && !legacyToolTasks(this.#d.connection.session)) return op.run();
    return this.#routed(op);
  }

  /**
   * A name the held listing lacks: looked up (listing when needed), then called or refused. The
   * first listing a plain call waits for has the call sent beside it (`#alongside`).
   */
  #lookUp(op: ToolCallOp, call: ToolCall): Promise<ToolResult | Task> {
    const lists = this.#d.lists;
    // Over HTTP the pool writes the call right behind the listing on its connection
    // (transport/http/pipeline.ts), rather than open a second connection for it. Not in the
    // legacy era: its standalone GET stream holds the warm connection, and a server may send a
    // call's own requests there (the official SDK's push API), so the call must not overtake it.
    const alongside =
      (this.#d.limits.transportKind !== "http" || this.#d.connection.session?.era === "modern") &&
      op.opts.task === undefined &&
      !legacyToolTasks(this.#d.connection.session) &&
      lists.sendsAlongside(op.name) &&
      this.#roomForTwo();
    // The listing is asked for first, so it goes out (or is queued) before the call.
    const listing = lists.callable(op.name, op.opts, op.deadline);
    return alongside ? this.#alongside(op, listing, call) : listing.then((found) => this.#call(op, found));
  }

  /**
   * Whether the listing and the call both fit now (`maxInFlight` when sent at once, `maxQueued`
   * while waiting for the connection): the call beside the listing must not be refused for a slot
   * the listing took. Without room, the call waits for the listing as before.
   */
  #roomForTwo(): boolean {
    const c = this.#d.connection;
    const { maxInFlight, maxQueued } = this.#d.limits;
    if (c.state === "ready" && c.queued === 0) return c.inFlight + 2 <= maxInFlight;
    return c.queued + 2 <= maxQueued;
  }

  /**
   * The first call, sent beside the first listing instead of after it (requests.md, "The first
   * call and the first listing"): one round trip instead of two. Nothing is handed out before the
   * listing has judged the tool: a tool it has gets the call's answer, checked against its output
   * schema here (the call went out knowing none); one it lacks or left out rejects with
   * `not_found` and `data.sent: true` (the call is cancelled on the wire if still unanswered, and
   * may have run); a listing that fails fails the call with its error, the call cancelled too.
   */
  #alongside(op: ToolCallOp, listing: Promise<Tool>, call: ToolCall): Promise<ToolResult | Task> {
    const withdraw = op.withdrawable(listing);
    const sent = op.run();
    // Judged by the listing first, whenever the answer came: a rejection waiting is not unhandled.
    sent.catch(noop);
    return listing.then(
      (tool) =>
        sent.then(
          (result) => this.#checkOutput(tool, result as ToolResult),
          // Known not to have run: it never left (the server went away: over HTTP the listing
          // waits for the reconnection, a second request in flight may not), or it went in the
          // shape of an era the listing's renegotiation left. Sent again the ordinary way.
          (err: unknown) => {
            const moved = op.sentEra !== undefined && this.#d.connection.session?.era !== op.sentEra;
            if (!moved && !unrun(err)) throw err;
            return this.#call(this.#again(op, call), tool);
          },
        ),
      (err: unknown) => {
        const error = McpClientError.is(err, "not_found")
          ? new McpClientError("not_found", err.reason, { sent: true })
          : err;
        withdraw(error);
        throw error;
      },
    );
  }

  /** A new attempt of `op`'s call (its rounds and span go on), for `#alongside`'s fallback. */
  #again(op: ToolCallOp, call: ToolCall): ToolCallOp {
    return new ToolCallOp(this.#host, call, op.rounds, op.toolSpan);
  }

  /** The call of a tool the listing was asked about (or that no listing mentioned). */
  #call(op: ToolCallOp, tool: Tool | null): Promise<ToolResult | Task> {
    op.tool = tool;
    if (op.opts.task === undefined && !legacyToolTasks(this.#d.connection.session)) return op.run();
    return this.#routed(op);
  }

  /** The call as a task when asked for and the server makes one (`Tasks.route`), else as a call. */
  async #routed(op: ToolCallOp): Promise<ToolResult | Task> {
    const routed = await this.#d.tasks().route(op);
    return "task" in routed ? routed.task : this.#checkOutput(op.tool, routed.result);
  }

  /**
   * A tool result checked against the tool's `outputSchema` when the listing gave one (and
   * `validateOutput` is on): `structuredContent` must be an object that matches it, else
   * `protocol` / `output_schema_mismatch`. Results with `isError` are not checked. Synchronous
   * (no extra tick) when there is nothing to check.
   */
  #checkOutput(tool: Tool | null, result: ToolResult): ToolResult | Promise<ToolResult> {
    const schema = tool?.outputSchema;
    if (schema === undefined || !this.#d.validateOutput || result.isError) return result;
    const s = result.structured;
    if (typeof s !== "object" || s === null || Array.isArray(s)) {
      const why = s === null ? "structuredContent is missing" : "structuredContent is not an object";
      throw new McpClientError("protocol", "output_schema_mismatch", { errors: [why] });
    }
    return validateJson(schema, s).then((outcome) => {
      if (outcome.valid) return result;
      throw new McpClientError("protocol", "output_schema_mismatch", { errors: outcome.errors });
    });
  }
}

function noop(): void {}

/** A request that never left this process (fetcher.ts: nothing could be connected to). */
function unrun(err: unknown): boolean {
  return McpClientError.is(err, "transport") && (err.data as { sent?: unknown } | undefined)?.sent === false;
}

/** What the span and the stop event say of a call's end: a result's parts, or null for a task. */
function outcomeOf(result: ToolResult): ToolCallOutcome | null {
  if (startedTask(result) !== undefined) return null;
  return { content: result.content, isError: result.isError, structuredContent: result.structured };
}

/** What each call object needs of its client (ToolCallHost), as methods over the ToolCalls. */
class CallHost implements ToolCallHost {
  constructor(readonly calls: ToolCalls) {}

  get core(): ToolCallHost["core"] {
    return this.calls.requester.core;
  }

  checkOutput(tool: Tool | null, result: ToolResult): ToolResult | Promise<ToolResult> {
    return this.calls.checkOutputFor(tool, result);
  }

  asTask(op: ToolCallOp): Promise<ToolResult | Task> {
    return this.calls.routeAsTask(op);
  }

  listPage(cursor: string | undefined, op: ToolCallOp): Promise<JsonObject> {
    return this.calls.requester.toolsPage(cursor, op.opts.signal, op.deadline);
  }
}
