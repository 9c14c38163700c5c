/**
 * `conduit-mcp/anthropic`: MCP tools as Anthropic Messages API tools, and a model's `tool_use`
 * run and answered with a `tool_result` block. Plain objects in the shapes of the
 * `@anthropic-ai/sdk` types; the package itself is not loaded.
 */
import type { ToolCaller } from "../client/tool-caller.js";
import type { LlmResult } from "../shaping/llm-result.js";
import { type AnthropicTool, anthropicInputSchema } from "./anthropic-schema.js";
import {
  type AnthropicSearchTool,
  type AnthropicToolSearchOptions,
  anthropicSearchTools,
} from "./anthropic-search.js";
import { type CatalogOptions, checkOptions, listEntries, type ToolSource } from "./catalog.js";
import { type RunOptions, rememberRoutes, runToolCall } from "./route.js";

export { type LlmResult, type Provenance, toLlmResult } from "../shaping/llm-result.js";
export { type AnthropicInputSchema, type AnthropicTool, anthropicInputSchema } from "./anthropic-schema.js";
export {
  ANTHROPIC_SEARCH_TOOL,
  type AnthropicSearchMode,
  type AnthropicSearchTool,
  type AnthropicToolReference,
  type AnthropicToolSearchOptions,
  type AnthropicToolSearchResult,
  toAnthropicToolSearchResult,
} from "./anthropic-search.js";
export type { McpTool, ToolSource } from "./catalog.js";

export interface AnthropicToolUse {
  type?: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

export type AnthropicResultBlock =
  | { type: "text"; text: string }
  | {
      type: "image";
      source: {
        type: "base64";
        media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
        data: string;
      };
    };

export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicResultBlock[];
  is_error: boolean;
}

/**
 * Messages API tools (`Anthropic.Tool[]`). With `defer` (or `search`), deferred tools carry
 * `defer_loading: true` and a search tool is added: Anthropic's
 * own (`search: "bm25"`, the default, or `"regex"`), or with `search: "client"` conduit's, whose
 * calls `toAnthropicToolSearchResult` answers (docs/tool-search.md).
 */
export async function anthropicTools(source: ToolSource, options?: CatalogOptions): Promise<AnthropicTool[]>;
export async function anthropicTools(
  source: ToolSource,
  options: AnthropicToolSearchOptions,
): Promise<Array<AnthropicTool | AnthropicSearchTool>>;
export async function anthropicTools(
  source: ToolSource,
  options: AnthropicToolSearchOptions = {},
): Promise<Array<AnthropicTool | AnthropicSearchTool>> {
  const o = options as AnthropicToolSearchOptions;
  if (o && typeof o === "object" && (o.defer !== undefined || o.search !== undefined || o.alwaysLoaded)) {
    return anthropicSearchTools(source, o);
  }
  checkOptions(options, {});
  const entries = await listEntries(source, options);
  rememberRoutes(source, entries);
  return entries.map((e) => ({
    name: e.modelName,
    ...(e.description === undefined ? {} : { description: e.description }),
    input_schema: anthropicInputSchema(e.tool.inputSchema),
  }));
}

const runChecks = {
  throwOnError: (v: unknown) => typeof v === "boolean",
  maxTextLength: (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0,
  maxImageBytes: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0,
};

/** A shaped result as `tool_result` content blocks: text and images, `is_error` for errors. */
export function toAnthropicContent(result: LlmResult): AnthropicResultBlock[] {
  return result.content.map((p) =>
    p.type === "text"
      ? { type: "text", text: p.text }
      : {
          type: "image",
          source: {
            type: "base64",
            media_type: p.mimeType as "image/png" | "image/jpeg" | "image/gif" | "image/webp",
            data: p.data,
          },
        },
  );
}

/** Runs a `tool_use` block and returns the `tool_result` block that answers it. */
export async function toAnthropicToolResult(
  caller: ToolCaller,
  toolUse: AnthropicToolUse,
  options: RunOptions = {},
): Promise<AnthropicToolResult & { result: LlmResult }> {
  checkOptions(options, runChecks);
  const result = await runToolCall(caller, toolUse?.name, toolUse?.input, options);
  const block = {
    type: "tool_result" as const,
    tool_use_id: String(toolUse?.id ?? ""),
    content: toAnthropicContent(result),
    is_error: result.isError,
  };
  Object.defineProperty(block, "result", { value: result, enumerable: false });
  return block as AnthropicToolResult & { result: LlmResult };
}
