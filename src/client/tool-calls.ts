import type { Connection } from "../connection/connection.js";
import { legacyToolTasks } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import { validateJson } from "../schema/validator.js";
import type { Deadline } from "../shared/deadline.js";
import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import type { ToolCallSpan } from "../telemetry/open-telemetry.js";
import { type ToolCallOutcome, type ToolCallTracing, traceToolCall } from "../telemetry/tool-call.js";
import { type GovernedStats, type Governor, governedCall } from "./governed.js";
import type { ListAllOptions, Lists } from "./lists.js";
import type { Requester, Via } from "./requester.js";
import { expectComplete, toToolResult } from "./results.js";
import type { Task, Tasks } from "./tasks.js";
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

const NO_VIA: Via = {};

/**
 * The way of one `callTool` after its arguments were checked: its span and events, the governor
 * when there is one, the listing's word on the tool (withdrawn, rejected, its output schema), and
 * the call itself, as a task when asked for and the server makes one (`Tasks.route`). Features
 * that are off cost a null check.
 */
export class ToolCalls {
  readonly #d: ToolCallsDeps;

  constructor(deps: ToolCallsDeps) {
    this.#d = deps;
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
    const via = span === undefined ? NO_VIA : { toolSpan: span };
    const g = this.#d.governor;
    if (!g) return this.#attempt(name, args, opts, this.#d.requester.deadline(opts), rounds, via);
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
    const requester = this.#d.requester;
    return g.run(
      call,
      (a, at) => this.#attempt(name, a, opts, requester.deadline(opts, at.timeout), rounds, via),
      stats,
    );
  }

  /** One attempt within its deadline: the listing's word on the tool, then the call. */
  #attempt(
    name: string,
    args: Record<string, unknown>,
    opts: CallToolOptions,
    deadline: Deadline,
    rounds: { count: number },
    via: Via,
  ): Promise<ToolResult | Task> {
    // Not an async function: the call's own promise is handed back (an async one would add a turn).
    try {
      // A name the held listing has goes out at once. Any other is looked up (listing once when
      // none is held or it is stale) or refused with not_found; with callUnlistedTools, a name no
      // listing mentioned goes out as asked (null).
      const { lists } = this.#d;
      const tool = lists.listed(name);
      if (tool === undefined) {
        return lists
          .callable(name, opts, deadline)
          .then((found) => this.#call(found, name, args, opts, deadline, rounds, via));
      }
      return this.#call(tool, name, args, opts, deadline, rounds, via);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The call of a tool the listing allows (or never listed). */
  #call(
    tool: Tool | null,
    name: string,
    args: Record<string, unknown>,
    opts: CallToolOptions,
    deadline: Deadline,
    rounds: { count: number },
    via: Via,
  ): Promise<ToolResult | Task> {
    const params: JsonObject = { name, arguments: args };
    const { connection } = this.#d;
    if (opts.task !== undefined || legacyToolTasks(connection.session)) {
      return this.#routed(tool, name, params, opts, deadline, rounds, via);
    }
    // The common case: no task wanted, and none the server could insist on. Sent at once; a final
    // answer is made the result where it is received, so the caller hears it one turn later.
    return this.#d.requester.withInputThen(
      "tools/call",
      params,
      opts,
      deadline,
      rounds,
      via,
      (wire) => this.#checkOutput(tool, toToolResult(expectComplete(wire))),
      (err) => {
        // Made before the handshake, to a legacy server whose tool must run as a task: it refused
        // with -32601 (so nothing ran), and now that its capabilities are known, it is a task.
        if (jsonRpcCode(err) !== ErrorCodes.methodNotFound || !legacyToolTasks(connection.session)) throw err;
        return this.#routed(tool, name, params, opts, deadline, rounds, via);
      },
    );
  }

  /** The call as a task when asked for and the server makes one (`Tasks.route`), else as a call. */
  async #routed(
    tool: Tool | null,
    name: string,
    params: JsonObject,
    opts: CallToolOptions,
    deadline: Deadline,
    rounds: { count: number },
    via: Via,
  ): Promise<ToolResult | Task> {
    const routed = await this.#d.tasks.route(name, params, opts, deadline, rounds, via);
    return "task" in routed ? routed.task : this.#checkOutput(tool, routed.result);
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
