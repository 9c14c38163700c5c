import type { Connection } from "../connection/connection.js";
import { legacyToolTasks } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import { validateJson } from "../schema/validator.js";
import { McpClientError } from "../shared/errors.js";
import type { ToolCallSpan } from "../telemetry/open-telemetry.js";
import { type ToolCallOutcome, type ToolCallTracing, traceToolCall } from "../telemetry/tool-call.js";
import { type GovernedStats, type Governor, governedCall } from "./governed.js";
import type { ListAllOptions, Lists } from "./lists.js";
import type { Requester } from "./requester.js";
import type { Task, Tasks } from "./tasks.js";
import { type ToolCallHost, type ToolCallInput, ToolCallOp } from "./tool-call-op.js";
import type { CallToolOptions, Tool, ToolResult } from "./types.js";

export interface ToolCallsDeps {
  serverId: string;
  principal: string | null;
  requestTimeout: number;
  validateOutput: boolean;
  connection: Connection<Session>;
  requester: Requester;
  lists: Lists;
  tasks: Tasks;
  governor: Governor | null;
  tracing: ToolCallTracing;
  listAllTools(options?: ListAllOptions): Promise<Tool[]>;
}

/**
 * The way of one `callTool` after its arguments were checked: its span and events, the governor
 * when there is one, the listing's word on the tool (withdrawn, rejected, its output schema), and
 * the call itself, as a task when asked for and the server makes one (`Tasks.route`). Features
 * that are off cost a null check.
 */
export class ToolCalls {
  readonly #d: ToolCallsDeps;

  /** What each call object needs of this client (tool-call-op.ts). */
  readonly #host: ToolCallHost;

  constructor(deps: ToolCallsDeps) {
    this.#d = deps;
    const requester = deps.requester;
    this.#host = {
      core: requester.core,
      checkOutput: (tool, result) => this.#checkOutput(tool, result),
      asTask: (op) => this.#routed(op),
      listPage: (cursor, op) =>
        requester.request(
          "tools/list",
          cursor === undefined ? {} : { cursor },
          { signal: op.opts.signal },
          {
            deadline: op.deadline,
          },
        ),
    };
  }

  call(name: string, args: Record<string, unknown>, opts: CallToolOptions): Promise<ToolResult | Task> {
    const rounds = { count: 0 };
    const stats: GovernedStats = { attempts: 1, decision: null };
    return traceToolCall(this.#d.tracing, name, args, opts.signal, { rounds, stats }, outcomeOf, (span) =>
      this.#governed(name, args, opts, rounds, stats, span),
    );
  }

  /** A call through the governor when the client has one (docs/governance.md), else sent as is. */
  #governed(
    name: string,
    args: Record<string, unknown>,
    opts: CallToolOptions,
    rounds: { count: number },
    stats: GovernedStats,
    span: ToolCallSpan | undefined,
  ): Promise<ToolResult | Task> {
    const g = this.#d.governor;
    if (!g) return this.#attempt({ ...opts, name, arguments: args }, rounds, span);
    if (opts.task === "return" && g.hasAfterHooks) {
      // A rejection, not a throw: the span and the events see it end like any failed call.
      return Promise.reject(
        new TypeError('conduit-mcp: task: "return" would hand back a task that afterCall hooks never see'),
      );
    }
    const call = governedCall(name, args, opts, {
      serverId: this.#d.serverId,
      principal: this.#d.principal,
      requestTimeout: this.#d.requestTimeout,
      listAllTools: (o) => this.#d.listAllTools(o),
    });
    return g.run(
      call,
      (a, at) => this.#attempt({ ...opts, name, arguments: a, timeout: at.timeout }, rounds, span),
      stats,
    );
  }

  /**
   * One attempt, made once into its call object (its deadline starts now): the listing's word on
   * the tool, then the call.
   */
  #attempt(
    call: ToolCallInput,
    rounds: { count: number },
    span: ToolCallSpan | undefined,
  ): Promise<ToolResult | Task> {
    // Not an async function: the call's own promise is handed back (an async one would add a turn).
    try {
      const op = new ToolCallOp(this.#host, call, rounds, span);
      // A name the held listing has goes out at once. Any other is looked up (listing once when
      // none is held or it is stale) or refused with not_found; with callUnlistedTools, a name no
      // listing mentioned goes out as asked (null).
      const { lists } = this.#d;
      const tool = lists.listed(call.name);
      if (tool === undefined) return this.#lookUp(op);
      op.tool = tool;
      // The common case: no task wanted, and none the server could insist on. Sent at once; a
      // final answer is made the result where it is received, so the caller hears it one turn later.
      if (call.task === undefined && !legacyToolTasks(this.#d.connection.session)) return op.run();
      return this.#routed(op);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A name the held listing lacks: looked up (listing when needed), then called or refused. */
  #lookUp(op: ToolCallOp): Promise<ToolResult | Task> {
    return this.#d.lists.callable(op.name, op.opts, op.deadline).then((found) => this.#call(op, found));
  }

  /** The call of a tool the listing was asked about (or that no listing mentioned). */
  #call(op: ToolCallOp, tool: Tool | null): Promise<ToolResult | Task> {
    op.tool = tool;
    if (op.opts.task === undefined && !legacyToolTasks(this.#d.connection.session)) return op.run();
    return this.#routed(op);
  }

  /** The call as a task when asked for and the server makes one (`Tasks.route`), else as a call. */
  async #routed(op: ToolCallOp): Promise<ToolResult | Task> {
    const routed = await this.#d.tasks.route(op);
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

/** What the span and the stop event say of a call's end: a result's parts, or null for a task. */
function outcomeOf(result: ToolResult | Task): ToolCallOutcome | null {
  if (!("content" in result)) return null;
  return { content: result.content, isError: result.isError, structuredContent: result.structured };
}
