/**
 * `callForModel(caller, name, args, options)`: one tool call whose answer is shaped for a model
 * (toLlmResult), failures included, on any `ToolCaller` (a `Client`, a `Hub`, or your own). It
 * stands on the caller's public `callTool`, so everything the caller runs for a call (its
 * interceptors, governance, tracing) sees the plain `ToolResult`; only this caller gets the
 * shaped one. The client knows nothing of it (model shaping is a floor above the client).
 */
import { checkToolCall } from "../client/options.js";
import type { ToolCaller } from "../client/tool-caller.js";
import type { CallToolOptions } from "../client/types.js";
import { qualifyToolName } from "../util/qualify.js";
import { callShaped, type LlmCallToolOptions, SHAPES_FOR_MODEL, unknownProvenance } from "./llm-call.js";
import type { LlmResult, Provenance } from "./llm-result.js";

/** A caller marked `SHAPES_FOR_MODEL`: its `callTool` takes `shape: "llm"` (a hub). */
interface SelfShaping {
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: LlmCallToolOptions,
  ): Promise<LlmResult>;
}

/** `callForModel`'s options: `callTool`'s (no task to return) and the shaping's. */
export type ModelCallOptions = Omit<LlmCallToolOptions, "shape">;

/**
 * Calls `name` through `caller` and shapes the outcome for a model: a result as `toLlmResult`
 * makes it, an `McpClientError` as a short error result of its kind (or a rejection with
 * `throwOnError`). Arguments that could reach a prototype are refused with an error result and
 * nothing is sent. Provenance: a `Client` (it has a `serverId`) is the server and `name` its
 * tool; a hub shapes the call itself (its route names the server and tool, listed or hidden); any
 * other caller is asked its listing once the call has settled, for the server and tool behind
 * the public `name`.
 */
export async function callForModel(
  caller: ToolCaller,
  name: string,
  args?: Record<string, unknown>,
  options: ModelCallOptions = {},
): Promise<LlmResult> {
  checkToolCall(name, args);
  // A `shape` of the caller's own is checked with the rest (anything but "llm" is a TypeError).
  const shaped: LlmCallToolOptions = { shape: "llm", ...options };
  if ((caller as { [SHAPES_FOR_MODEL]?: unknown })[SHAPES_FOR_MODEL] === true)
    return (caller as unknown as SelfShaping).callTool(name, args, shaped);
  const serverId = (caller as { serverId?: unknown }).serverId;
  if (typeof serverId === "string") {
    const own = { serverId, tool: name, qualifiedName: qualifyToolName(serverId, name) };
    // A server's -32602 names no reason to trust: a fresh listing says whether the tool is there.
    const exists = () =>
      caller.listCallableTools({ refresh: true }).then((tools) => tools.some((t) => t.name === name));
    return callShaped(
      (o) => caller.callTool(name, args, o),
      args,
      shaped,
      () => own,
      exists,
    );
  }
  let found: Provenance | undefined;
  const call = async (o: CallToolOptions) => {
    try {
      return await caller.callTool(name, args, o);
    } finally {
      found = await routeOf(caller, name);
    }
  };
  return callShaped(call, args, shaped, () => found ?? unknownProvenance(undefined, name));
}

/** The server and tool a caller's listing puts behind a public name (undefined: not listed). */
async function routeOf(caller: ToolCaller, name: string): Promise<Provenance | undefined> {
  try {
    const listed = (await caller.listCallableTools()).find((t) => t.name === name);
    return listed && { serverId: listed.serverId, tool: listed.tool.name, qualifiedName: name };
  } catch {
    return undefined;
  }
}
