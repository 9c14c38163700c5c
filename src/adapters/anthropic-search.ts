/**
 * Anthropic's tool search: deferred tools (`defer_loading: true`) and a search tool, either
 * Anthropic's server-side one (`tool_search_tool_bm25_20251119` / `_regex_`) or conduit's own
 * (`search: "client"`), whose `tool_use` blocks are answered with `tool_reference` blocks from
 * the source's `searchTools` (so a hub's visibility rules and ranking bounds hold).
 */

import { type AnthropicTool, anthropicInputSchema } from "./anthropic-schema.js";
import { type CatalogOptions, checkOptions, listEntries, type ToolSource } from "./catalog.js";
import { displayName } from "./names.js";
import { rememberRoutes } from "./route.js";
import {
  type DeferOptions,
  deferChecks,
  deferredBy,
  findEntries,
  SEARCH_DESCRIPTION,
  SEARCH_PARAMETERS,
  searchArguments,
} from "./search-entries.js";

export type AnthropicSearchMode = "bm25" | "regex" | "client";

export interface AnthropicToolSearchOptions extends CatalogOptions, DeferOptions {
  /** Who searches: Anthropic's `"bm25"` (default) or `"regex"` tool, or conduit (`"client"`). */
  search?: AnthropicSearchMode;
}

/** The name of conduit's own search tool (`search: "client"`). */
export const ANTHROPIC_SEARCH_TOOL = "search_tools";

export type AnthropicSearchTool =
  | { type: "tool_search_tool_bm25_20251119"; name: "tool_search_tool_bm25" }
  | { type: "tool_search_tool_regex_20251119"; name: "tool_search_tool_regex" }
  | AnthropicTool;

/** `Anthropic.ToolReferenceBlockParam`: loads a deferred tool for the model. */
export interface AnthropicToolReference {
  type: "tool_reference";
  tool_name: string;
}

export interface AnthropicToolSearchResult {
  type: "tool_result";
  tool_use_id: string;
  content: Array<AnthropicToolReference | { type: "text"; text: string }>;
  is_error: boolean;
}

const checks = {
  ...deferChecks,
  search: (v: unknown) => v === "bm25" || v === "regex" || v === "client",
};

export async function anthropicSearchTools(
  source: ToolSource,
  options: AnthropicToolSearchOptions,
): Promise<Array<AnthropicTool | AnthropicSearchTool>> {
  checkOptions(options, checks);
  const { defer, alwaysLoaded, search = "bm25", ...catalog } = options;
  const entries = await listEntries(source, catalog);
  rememberRoutes(source, entries);
  const deferred = deferredBy({ defer: defer ?? true, ...(alwaysLoaded ? { alwaysLoaded } : {}) });
  const tools: Array<AnthropicTool | AnthropicSearchTool> = entries.map((e) => ({
    name: e.modelName,
    ...(e.description === undefined ? {} : { description: e.description }),
    input_schema: anthropicInputSchema(e.tool.inputSchema),
    ...(deferred(e.modelName) ? { defer_loading: true as const } : {}),
  }));
  if (search === "client") {
    if (entries.some((e) => e.modelName === ANTHROPIC_SEARCH_TOOL)) {
      throw new TypeError(`conduit-mcp: a tool is already named "${ANTHROPIC_SEARCH_TOOL}"`);
    }
    tools.push({
      name: ANTHROPIC_SEARCH_TOOL,
      description: SEARCH_DESCRIPTION,
      input_schema: structuredClone(SEARCH_PARAMETERS) as unknown as AnthropicTool["input_schema"],
    });
  } else if (search === "regex") {
    tools.push({ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" });
  } else {
    tools.push({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
  }
  return tools;
}

/**
 * Answers a `tool_use` of conduit's search tool (`search: "client"`) with the `tool_result`
 * whose `tool_reference` blocks load the tools found. A bad query is an error result the model
 * can correct; no match is a text saying so.
 */
export async function toAnthropicToolSearchResult(
  source: ToolSource,
  toolUse: { id: string; name?: string; input: unknown },
  options: CatalogOptions = {},
): Promise<AnthropicToolSearchResult> {
  checkOptions(options, {});
  const id = String(toolUse?.id ?? "");
  if (toolUse?.name !== undefined && toolUse.name !== ANTHROPIC_SEARCH_TOOL) {
    throw new TypeError(`conduit-mcp: "${displayName(String(toolUse.name))}" is not the search tool`);
  }
  const args = searchArguments(toolUse?.input);
  if (typeof args === "string") {
    return { type: "tool_result", tool_use_id: id, content: [{ type: "text", text: args }], is_error: true };
  }
  const found = await findEntries(source, args.query, args.limit, options);
  const content: AnthropicToolSearchResult["content"] = found.map((e) => ({
    type: "tool_reference",
    tool_name: e.modelName,
  }));
  if (content.length === 0) content.push({ type: "text", text: "No tool matched. Try other words." });
  return { type: "tool_result", tool_use_id: id, content, is_error: false };
}
