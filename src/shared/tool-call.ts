/**
 * The tool-call pipeline (docs/architecture.md): one call as an object, and the chain of
 * interceptors it runs through. A `Client` composes its chain once when it is built: its
 * tracing step outermost, the caller's interceptors in order, its core step (the listing's word
 * on the tool, tasks, the request) innermost. A `Hub` runs each call through a chain of the same
 * kind. Shared vocabulary: governance and the hub stand on it without importing the client.
 */
import type { CallToolOptions } from "./request-options.js";
import type { Tool, ToolResult } from "./tool.js";

/**
 * One tool call on its way down the chain: the `callTool` options, and what the call is. An
 * interceptor that changes a call passes on a copy (`next({ ...call, arguments })`), so the
 * fields it does not know travel with it.
 */
export interface ToolCall extends CallToolOptions {
  /** The tool's name on its server (through a hub: the routed server's name, not the qualified one). */
  name: string;
  arguments: Record<string, unknown>;
  /** The server the call goes to (the client's `serverId`). */
  serverId: string;
  /**
   * Where the tool's listed definition is looked up (policy and approval judge it). Set by the
   * one who made the call: a client looks in its listing, a hub gives the routed definition.
   */
  tools?: ToolSource;
  /** Where a layer's events go (the client's telemetry: `policy:decision`, `tool_call:retry`...). */
  events?: CallEvents;
  /** What the call's trace reports when it ends; set by the tracing step when tracing is on. */
  report?: CallReport;
  /**
   * The client's `stores.grants` (a `GrantStore`), passed along for governance: it keeps grants
   * there when its own options name no `grants`. Typed loosely: this layer knows no stores.
   */
  grants?: object | undefined;
}

/** One step of the chain: makes the call (or refuses it) and resolves with its result. */
export type CallTool = (call: ToolCall) => Promise<ToolResult>;

/**
 * A layer around the call: given the rest of the chain (`next`), the step that stands in front
 * of it. The first interceptor in a list is the outermost: it sees the call first and the
 * result last.
 */
export type ToolCallInterceptor = (next: CallTool) => CallTool;

/** The definition of a tool by its name on the server, or undefined when it is not listed. */
export interface ToolSource {
  find(name: string, options: { timeout: number; signal?: AbortSignal }): Promise<Tool | undefined>;
}

/** An event sink (the client's `Telemetry` is one); fields are built only when someone listens. */
export interface CallEvents {
  emit(name: string, fields?: () => Record<string, unknown>): void;
}

/**
 * Facts about one call that its `tool_call` span and stop event report, filled in by the layers
 * as the call goes (governance counts attempts and says its decision).
 */
export interface CallReport {
  /** Attempts made (1 unless a layer retries; 0 when the call was refused before any). */
  attempts: number;
  /** The policy's decision, when governance decided one. */
  decision: "allow" | "deny" | "ask" | null;
}

/** Composes `interceptors` around `core` once: the first one is the outermost. */
export function composeInterceptors(interceptors: readonly ToolCallInterceptor[], core: CallTool): CallTool {
  let next = core;
  for (let i = interceptors.length - 1; i >= 0; i--) next = interceptors[i]!(next);
  return next;
}

const TASK: unique symbol = Symbol("conduit-mcp.task");

/**
 * A `task: "return"` call the server made a task of resolves through the chain as this: a
 * result with no content and `isError: false` that carries the task; `callTool` hands back the
 * task itself. (Governance refuses such calls when it has `afterCall` hooks: they would judge an
 * empty result.)
 */
export function taskStarted(task: object): ToolResult {
  return { content: [], structured: null, isError: false, meta: null, extra: {}, [TASK]: task } as ToolResult;
}

/** The task a result of `taskStarted` carries, else undefined. */
export function startedTask(result: ToolResult): object | undefined {
  return (result as { [TASK]?: object })[TASK];
}

/** What a `task: "return"` call's inner step made, as it travels up the chain: a result as it is, a task carried. */
export function carryTask<T extends object>(made: ToolResult | T): ToolResult {
  return "content" in made ? (made as ToolResult) : taskStarted(made);
}

/** What a `task: "return"` call hands its caller at the top of the chain: the carried task, else the result. */
export function handBack<T extends object>(result: ToolResult): ToolResult | T {
  return (startedTask(result) as T | undefined) ?? result;
}
