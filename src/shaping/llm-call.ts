import type { Task } from "../client/tasks.js";
import type { CallToolOptions, ToolResult } from "../client/types.js";
import { McpClientError } from "../shared/errors.js";
import { findPrototypeKey } from "../shared/keys.js";
import { sanitizeText } from "../shared/sanitize.js";
import { fail, optBoolean, optInt, optOneOf } from "../util/option-check.js";
import {
  type LlmResult,
  type LlmShapeOptions,
  llmError,
  type Provenance,
  toLlmResult,
} from "./llm-result.js";

/**
 * A call's answer shaped for a model (toLlmResult): `callForModel` (any ToolCaller) and the hub's
 * `callTool(name, args, { shape: "llm" })`. Shaping wraps the whole call, governance included, so
 * hooks and telemetry see the `ToolResult` and only the caller gets the shaped one.
 */

/** How a shaped outcome is made: the text limits, and whether a failed call rejects. */
export interface LlmOutcomeOptions extends LlmShapeOptions {
  /** Reject with the `McpClientError` instead of returning an error result. Default false. */
  throwOnError?: boolean;
}

/** `callTool`'s options with `shape: "llm"`. A task cannot be returned: the result is shaped. */
export interface LlmCallToolOptions extends Omit<CallToolOptions, "task">, LlmOutcomeOptions {
  shape: "llm";
  task?: "await";
}

const SHAPE_KEYS = ["shape", "maxTextLength", "maxImageBytes", "throwOnError"] as const;

/**
 * Marks a caller whose own `callTool(name, args, { shape: "llm" })` shapes a call for a model (a
 * hub: it knows the route behind a name even when its list hides the tool), so `callForModel`
 * hands the call to it rather than guessing the provenance from a listing.
 */
export const SHAPES_FOR_MODEL: unique symbol = Symbol("conduit-mcp.shapesForModel");

/** Whether options ask for a shaped result (checked fully by `splitLlmOptions`). */
export function wantsLlmShape(options: unknown): boolean {
  return (
    typeof options === "object" && options !== null && (options as { shape?: unknown }).shape !== undefined
  );
}

/**
 * The shaping options checked and taken off; the rest is left for `callTool`'s own check.
 * A `TypeError` (OptionError) names a bad one.
 */
export function splitLlmOptions(options: Record<string, unknown>): {
  call: CallToolOptions;
  shape: LlmOutcomeOptions;
} {
  optOneOf(options.shape, "shape", ["llm"] as const);
  if (options.task === "return") fail("task", '"await" or absent with shape: "llm" (a task is not a result)');
  const shape: LlmOutcomeOptions = {};
  const maxTextLength = optInt(options.maxTextLength, "maxTextLength", 1);
  const maxImageBytes = optInt(options.maxImageBytes, "maxImageBytes", 0);
  const throwOnError = optBoolean(options.throwOnError, "throwOnError");
  if (maxTextLength !== undefined) shape.maxTextLength = maxTextLength;
  if (maxImageBytes !== undefined) shape.maxImageBytes = maxImageBytes;
  if (throwOnError !== undefined) shape.throwOnError = throwOnError;
  const call: Record<string, unknown> = { ...options };
  for (const key of SHAPE_KEYS) delete call[key];
  return { call: call as CallToolOptions, shape };
}

/**
 * A client's or a hub's `callTool` with `shape: "llm"`: the shaping options taken off, the call
 * made through `call` (the caller's own `callTool` path, governance and all), its outcome shaped.
 * `provenance` is asked once the call has settled (a hub knows the route only then).
 */
export async function callShaped(
  call: (options: CallToolOptions) => Promise<ToolResult | Task>,
  args: unknown,
  options: LlmCallToolOptions,
  provenance: () => Provenance,
  exists?: () => Promise<boolean>,
): Promise<LlmResult> {
  const split = splitLlmOptions(options as unknown as Record<string, unknown>);
  // A shaped call's arguments are a model's: refused, like the adapters', when they could
  // reach a prototype. An error result either way: the model wrote them and can fix them.
  const refused = prototypeKeyError(args, provenance);
  if (refused !== undefined) return refused;
  // Not a Task: `task: "return"` is refused above, and every other call ends in a result.
  const run = () => call(split.call) as Promise<ToolResult>;
  return shapeCall(run, provenance, { ...split.shape, signal: split.call.signal }, exists);
}

/**
 * The error result for arguments that hold a `__proto__`, `constructor` or `prototype` key at any
 * depth (shared/keys.ts), naming the key and where it is; undefined when they hold none.
 */
export function prototypeKeyError(args: unknown, provenance: () => Provenance): LlmResult | undefined {
  const at = findPrototypeKey(args);
  if (at === undefined) return undefined;
  const key = at.slice(at.lastIndexOf("/") + 1);
  const where = sanitizeText(at, { maxLength: 200 });
  return llmError(
    "invalid_arguments",
    `The arguments hold the key "${key}" (at ${where}), which is refused: it can reach an object's prototype. The tool was not called; send the arguments without that key.`,
    provenance(),
  );
}

/** What a model is told when it names a tool that does not exist. */
export function unknownToolError(name: string, provenance: Provenance): LlmResult {
  return llmError(
    "unknown_tool",
    `There is no tool named "${sanitizeText(name, { maxLength: 128 })}". Call one of the tools you were given, by its exact name.`,
    provenance,
  );
}

/** The reasons of a `not_found` that mean the tool is not there (unlisted, withdrawn, rejected). */
const NO_SUCH_TOOL = new Set(["unknown_tool", "tool_withdrawn", "tool_rejected"]);

/** Where a call came from when its tool could not be found: the name as given, made safe. */
export function unknownProvenance(serverId: string | undefined, name: string): Provenance {
  const shown = sanitizeText(name, { maxLength: 128 }) || "?";
  return { serverId: serverId ?? "?", tool: shown, qualifiedName: shown };
}

/**
 * Runs a call and shapes what came of it: a result with `toLlmResult`, an `McpClientError` as a
 * short error result of its kind (unless `throwOnError`). The caller's own abort, and anything
 * that is not an `McpClientError` (a bug, an option mistake), still reject. A call that failed
 * because the tool is not there is an `unknown_tool` result saying so: the caller said so
 * (`not_found`), or, when the server refused it (a -32602 names no reason we can trust),
 * `exists` (a look at the caller's listing) says the tool is not listed.
 */
export async function shapeCall(
  run: () => Promise<ToolResult>,
  provenance: () => Provenance,
  options: LlmOutcomeOptions & { signal?: AbortSignal | undefined },
  exists?: () => Promise<boolean>,
): Promise<LlmResult> {
  let result: ToolResult;
  try {
    result = await run();
  } catch (err) {
    const failure = llmFailure(err, options, provenance());
    if (failure.errorKind !== "protocol" || exists === undefined) return failure;
    const listed = await exists().catch(() => true);
    return listed ? failure : unknownToolError(provenance().tool, provenance());
  }
  return toLlmResult(result, provenance(), options);
}

/** A failed call as the model should see it, or the error rethrown (see `shapeCall`). */
export function llmFailure(
  err: unknown,
  options: LlmOutcomeOptions & { signal?: AbortSignal | undefined },
  provenance: Provenance,
): LlmResult {
  if (options.signal?.aborted === true && err === options.signal.reason) throw err;
  if (!(err instanceof McpClientError) || options.throwOnError === true) throw err;
  if (err.kind === "not_found" && NO_SUCH_TOOL.has(String(err.reason))) {
    return unknownToolError(provenance.tool, provenance);
  }
  // The message is safe by construction (kind and reason codes, sanitised, secrets redacted).
  return llmError(err.kind, `The tool call failed (${err.kind}): ${err.message}`, provenance);
}
