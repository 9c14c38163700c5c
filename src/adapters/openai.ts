/**
 * `conduit-mcp/openai`: MCP tools as OpenAI tools (Chat Completions and Responses), and a model's
 * tool call run and answered. Plain objects in the shapes of the `openai` package's types; the
 * package itself is not loaded.
 */
import type { ToolCaller } from "../client/tool-caller.js";
import { type LlmResult, llmText } from "../shaping/llm-result.js";
import { type CatalogOptions, checkOptions, listEntries, type ToolSource } from "./catalog.js";
import {
  type OpenAIResponsesFunctionTool,
  type OpenAIToolSearchTool,
  responsesFunctionTool,
  toolSearchTool,
} from "./openai-search.js";
import { type RunOptions, rememberRoutes, runToolCall } from "./route.js";
import { type DeferOptions, deferChecks, deferredBy } from "./search-entries.js";
import { chooseSchema, isStrictMode, type StrictMode } from "./strict-mode.js";

export { type LlmResult, type Provenance, toLlmResult } from "../shaping/llm-result.js";
export type { McpTool, ToolSource } from "./catalog.js";
export {
  type AnswerToolSearchOptions,
  answerToolSearch,
  type OpenAIResponsesFunctionTool,
  type OpenAIToolSearchCall,
  type OpenAIToolSearchOutput,
  type OpenAIToolSearchTool,
} from "./openai-search.js";
export type { StrictMode } from "./strict-mode.js";

export interface OpenAIToolsOptions extends CatalogOptions {
  /** `"auto"` (default), `true` or `false`: see docs/adapters.md#strict-mode. */
  strict?: StrictMode;
}

export interface OpenAIFunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict: boolean };
}

/** `openaiResponsesTools` options: with `defer`, tool search (docs/tool-search.md). */
export interface OpenAIResponsesToolsOptions extends OpenAIToolsOptions, DeferOptions {}

export interface OpenAIToolCallOptions extends RunOptions {
  /**
   * Accepted for compatibility, and no longer needed: the nulls strict mode makes a model send
   * are read from the tool's original schema, whatever mode the tools were handed out with.
   */
  strict?: StrictMode;
}

/** A Chat Completions tool call, as the model returns it in `message.tool_calls`. */
export interface OpenAIToolCall {
  id: string;
  type?: "function";
  function: { name: string; arguments: string };
}

/** A Responses `function_call` output item. */
export interface OpenAIFunctionCall {
  type?: "function_call";
  call_id: string;
  name: string;
  arguments: string;
}

export interface OpenAIToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

export type OpenAIResponsesOutputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" };

export interface OpenAIFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: OpenAIResponsesOutputPart[];
}

const strictCheck = { strict: isStrictMode };
const runChecks = {
  strict: isStrictMode,
  throwOnError: (v: unknown) => typeof v === "boolean",
  maxTextLength: (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0,
  maxImageBytes: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0,
};

async function build(source: ToolSource, options: OpenAIToolsOptions) {
  checkOptions(options, strictCheck);
  const mode = options.strict ?? "auto";
  const entries = await listEntries(source, options);
  const routes = entries.map((e) => ({ entry: e, choice: chooseSchema(e, mode, source, "openai") }));
  rememberRoutes(
    source,
    routes.map((r) => r.entry),
  );
  return routes;
}

/** Chat Completions function tools (`ChatCompletionFunctionTool[]`). */
export async function openaiTools(
  source: ToolSource,
  options: OpenAIToolsOptions = {},
): Promise<OpenAIFunctionTool[]> {
  return (await build(source, options)).map(({ entry, choice }) => ({
    type: "function",
    function: {
      name: entry.modelName,
      ...(entry.description === undefined ? {} : { description: entry.description }),
      parameters: choice.parameters,
      strict: choice.strict,
    },
  }));
}

/**
 * Responses API function tools (`FunctionTool[]`). With `defer`, the deferred ones carry
 * `defer_loading: true` and a `tool_search` tool with
 * `execution: "client"` is added, whose calls `answerToolSearch` answers.
 */
export async function openaiResponsesTools(
  source: ToolSource,
  options?: OpenAIToolsOptions,
): Promise<OpenAIResponsesFunctionTool[]>;
export async function openaiResponsesTools(
  source: ToolSource,
  options: OpenAIResponsesToolsOptions,
): Promise<Array<OpenAIResponsesFunctionTool | OpenAIToolSearchTool>>;
export async function openaiResponsesTools(
  source: ToolSource,
  options: OpenAIResponsesToolsOptions = {},
): Promise<Array<OpenAIResponsesFunctionTool | OpenAIToolSearchTool>> {
  const { defer, alwaysLoaded, ...rest } = (options ?? {}) as OpenAIResponsesToolsOptions;
  checkOptions({ defer, alwaysLoaded }, deferChecks);
  const built = await build(source, rest);
  if (defer === undefined && alwaysLoaded === undefined) {
    return built.map(({ entry, choice }) => responsesFunctionTool(entry, choice));
  }
  const deferred = deferredBy({ defer: defer ?? true, ...(alwaysLoaded ? { alwaysLoaded } : {}) });
  const tools: Array<OpenAIResponsesFunctionTool | OpenAIToolSearchTool> = built.map(({ entry, choice }) => ({
    ...responsesFunctionTool(entry, choice),
    ...(deferred(entry.modelName) ? { defer_loading: true as const } : {}),
  }));
  tools.push(toolSearchTool());
  return tools;
}

function run(
  caller: ToolCaller,
  name: unknown,
  args: unknown,
  options: OpenAIToolCallOptions,
): Promise<LlmResult> {
  checkOptions(options, runChecks);
  return runToolCall(caller, name, args, options, true);
}

/**
 * Runs a Chat Completions tool call and returns the `tool` message that answers it. The chat API
 * takes text only in tool messages: images are described, an error is marked by its first line.
 */
export async function toOpenAIToolMessage(
  caller: ToolCaller,
  toolCall: OpenAIToolCall,
  options: OpenAIToolCallOptions = {},
): Promise<OpenAIToolMessage & { result: LlmResult }> {
  const result = await run(caller, toolCall?.function?.name, toolCall?.function?.arguments, options);
  const message = {
    role: "tool" as const,
    tool_call_id: String(toolCall?.id ?? ""),
    content: llmText(result),
  };
  // `result` is not enumerable: the message serialises as the API wants it.
  Object.defineProperty(message, "result", { value: result, enumerable: false });
  return message as OpenAIToolMessage & { result: LlmResult };
}

/** Runs a Responses `function_call` and returns the `function_call_output` input item. */
export async function toOpenAIFunctionCallOutput(
  caller: ToolCaller,
  call: OpenAIFunctionCall,
  options: OpenAIToolCallOptions = {},
): Promise<OpenAIFunctionCallOutput & { result: LlmResult }> {
  const result = await run(caller, call?.name, call?.arguments, options);
  const output: OpenAIResponsesOutputPart[] = result.content.map((p) =>
    p.type === "text"
      ? { type: "input_text", text: p.text }
      : { type: "input_image", image_url: `data:${p.mimeType};base64,${p.data}`, detail: "auto" },
  );
  const item = { type: "function_call_output" as const, call_id: String(call?.call_id ?? ""), output };
  Object.defineProperty(item, "result", { value: result, enumerable: false });
  return item as OpenAIFunctionCallOutput & { result: LlmResult };
}
