import { legacyToolTasks } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import { jsonRpcCode } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import type { ToolCallSpan } from "../telemetry/open-telemetry.js";
import { isHeaderMismatch, relistTools } from "./header-refresh.js";
import { beginRound, isFinal, nextRound, type RoundState } from "./input/mrtr.js";
import { NO_VIA, RequestCall, type RequestCore } from "./request-call.js";
import { expectComplete, toToolResult } from "./results.js";
import type { Task } from "./tasks.js";
import type { CallToolOptions, Tool, ToolResult } from "./types.js";

/**
 * A tool call as the core step gets it: the call's options with its name and arguments. Its
 * `timeout` starts the call's deadline when the call object is made (a governor's attempt sets
 * its own).
 */
export interface ToolCallInput extends CallToolOptions {
  name: string;
  arguments: Record<string, unknown>;
}

/** What a tool call needs of its client, made once per client (`ToolCalls`). */
export interface ToolCallHost {
  readonly core: RequestCore;
  /** The result checked against the tool's output schema (synchronous when nothing to check). */
  checkOutput(tool: Tool | null, result: ToolResult): ToolResult | Promise<ToolResult>;
  /** The call as a task (`Tasks.route`): a legacy server refused it before its capabilities were known. */
  asTask(call: ToolCallOp): Promise<ToolResult | Task>;
  /** One page of `tools/list`, for a header refresh, within the call's deadline. */
  listPage(cursor: string | undefined, call: ToolCallOp): Promise<JsonObject>;
}

/**
 * One plain tool call (no task asked for, none the server could insist on), made once: it holds
 * its params, options, deadline, rounds and the tool's listing, and is the request the connection
 * settles (request-call.ts). A final answer becomes the result inside the receive path, so the
 * caller hears it one microtask turn after it is read. `input_required` rounds are answered and
 * sent again from here (input/mrtr.ts), a header mismatch over HTTP relists the tools and sends
 * the round once more (header-refresh.ts), and a legacy server that refused the call before its
 * capabilities were known gets it as a task.
 */
export class ToolCallOp extends RequestCall<ToolResult | Task> implements RoundState {
  declare readonly opts: CallToolOptions;
  declare readonly name: string;
  /** The first round's params; later rounds add the answers to them. */
  declare readonly toolParams: JsonObject;
  declare readonly rounds: { count: number };
  /** The listing's word on the tool (its output schema), or null when it never listed it. */
  declare tool: Tool | null;
  declare private readonly host: ToolCallHost;
  /** The round whose header mismatch was refreshed: one refresh per round. */
  declare private refreshed: number;
  /** The era of the session its last round was shaped for (tool-calls.ts's first-call fallback). */
  declare sentEra: string | undefined;
  /** What an `input_required` round waits for before the handler hears it (see `withdrawable`). */
  declare private gate: Promise<unknown> | undefined;

  /**
   * `rounds` counts the requests sent, for the `tool_call:stop` event (a governor's attempts
   * share one); `toolSpan` is the call's span, parent of each round's request span.
   */
  constructor(
    host: ToolCallHost,
    call: ToolCallInput,
    rounds: { count: number } = { count: 0 },
    toolSpan?: ToolCallSpan,
  ) {
    super(host.core, "tools/call", call, NO_VIA);
    this.toolSpan = toolSpan;
    this.name = call.name;
    this.toolParams = { name: call.name, arguments: call.arguments };
    this.rounds = rounds;
    this.tool = null;
    this.host = host;
    this.refreshed = 0;
    this.gate = undefined;
    this.sentEra = undefined;
  }

  override params(session: Session, progressToken: number | undefined, id: number): JsonObject {
    this.sentEra = session.era;
    return super.params(session, progressToken, id);
  }

  /**
   * Lets the call be withdrawn before it is sent (the first call sent beside the first listing,
   * tool-calls.ts): the returned function aborts it with `reason` (cancelled on the wire if in
   * flight, rejected with `reason`), and rounds of `input_required` wait for `gate` first.
   */
  withdrawable(gate: Promise<unknown>): (reason: unknown) => void {
    this.gate = gate;
    const controller = new AbortController();
    const own = this.opts.signal;
    (this as { signal: AbortSignal | undefined }).signal = own
      ? AbortSignal.any([own, controller.signal])
      : controller.signal;
    return (reason) => controller.abort(reason);
  }

  /** Sends the first round; the promise settles where the final answer is received. */
  run(): Promise<ToolResult | Task> {
    const promise = this.promise();
    try {
      beginRound(this.deadline, this.rounds);
    } catch (err) {
      this.fail(err);
      return promise;
    }
    this.requestParams = this.toolParams;
    if (this.core.otel) this.openSpan();
    this.core.connection.requestFor("tools/call", this, this);
    return promise;
  }

  resolved(result: JsonObject): void {
    if (this.span) this.spanAnswered(result);
    try {
      if (isFinal(result, undefined)) {
        this.fulfil(this.host.checkOutput(this.tool, toToolResult(expectComplete(result))));
        return;
      }
    } catch (err) {
      this.fail(err);
      return;
    }
    this.#nextRound(result);
  }

  /** `input_required`: the handler answers, and the call is sent again with the answers. */
  #nextRound(result: JsonObject): void {
    if (this.gate) {
      // Sent beside the first listing: the caller's handler hears nothing of a tool not judged yet.
      const gate = this.gate;
      this.gate = undefined;
      gate.then(
        () => this.#nextRound(result),
        (err: unknown) => this.fail(err),
      );
      return;
    }
    nextRound(this.core.input, this, result).then(
      (extra) => {
        try {
          beginRound(this.deadline, this.rounds);
        } catch (err) {
          this.fail(err);
          return;
        }
        this.send({ ...this.toolParams, ...extra });
      },
      (err: unknown) => this.fail(err),
    );
  }

  rejected(error: unknown): void {
    if (this.span) this.spanFailed(error);
    const session = this.core.connection.session;
    if (
      this.core.toolHeaders &&
      this.refreshed !== this.rounds.count &&
      isHeaderMismatch(error) &&
      session?.era === "modern"
    ) {
      // The headers the transport mirrored may be stale: relist, then send this round once more.
      this.#refresh();
      return;
    }
    // Made before the handshake, to a legacy server whose tool must run as a task: it refused
    // with -32601 (so nothing ran), and now that its capabilities are known, it is a task.
    if (jsonRpcCode(error) === ErrorCodes.methodNotFound && legacyToolTasks(session)) {
      this.fulfil(this.host.asTask(this));
      return;
    }
    this.fail(error);
  }

  /**
   * A header mismatch: the tools are listed again, then this round is sent once more. A first call
   * sent beside the first listing (tool-calls.ts) waits for that listing instead: it brings the
   * `x-mcp-header` annotations the call went out without (one listing, not two).
   */
  #refresh(): void {
    this.refreshed = this.rounds.count;
    const params = this.requestParams;
    const listed = this.gate
      ? this.gate.then(noop, noop)
      : relistTools((cursor) => this.host.listPage(cursor, this));
    // Withdrawn meanwhile (the listing lacks the tool): nothing is sent again.
    listed.then(() => {
      const signal = this.signal;
      if (signal?.aborted) this.fail(signal.reason);
      else this.send(params);
    });
  }
}

function noop(): void {}
