/**
 * OpenAI Responses tool search with `execution: "client"`: deferred function tools
 * (`defer_loading: true`), a `tool_search` tool, and `answerToolSearch`, which answers each
 * `tool_search_call` item with the `tool_search_output` item of the tools the source's own
 * `searchTools` finds (converted as `openaiResponsesTools` converts them, strict mode included).
 */
import type { CatalogEntry, CatalogOptions, ToolSource } from "./catalog.js";
import { checkOptions } from "./catalog.js";
import { rememberRoutes } from "./route.js";
import {
  deferChecks,
  findEntries,
  SEARCH_DESCRIPTION,
  SEARCH_PARAMETERS,
  searchArguments,
} from "./search-entries.js";
import { chooseSchema, isStrictMode, type SchemaChoice, type StrictMode } from "./strict-mode.js";

/** A Responses `FunctionTool`. */
export interface OpenAIResponsesFunctionTool {
  type: "function";
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
  strict: boolean;
  /** Loaded only when a tool search finds it (`openaiResponsesTools(source, { defer })`). */
  defer_loading?: true;
}

/** The Responses `ToolSearchTool`, executed by the client (conduit). */
export interface OpenAIToolSearchTool {
  type: "tool_search";
  execution: "client";
  description: string;
  parameters: Record<string, unknown>;
}

/** A `tool_search_call` output item (`ResponseToolSearchCall`), as the model returns it. */
export interface OpenAIToolSearchCall {
  type?: "tool_search_call";
  id?: string;
  call_id: string | null;
  arguments: unknown;
  execution?: "server" | "client";
}

/** The `tool_search_output` input item (`ResponseToolSearchOutputItemParam`). */
export interface OpenAIToolSearchOutput {
  type: "tool_search_output";
  call_id: string | null;
  execution: "client";
  status: "completed";
  tools: OpenAIResponsesFunctionTool[];
}

export interface AnswerToolSearchOptions extends CatalogOptions {
  strict?: StrictMode;
}

export function responsesFunctionTool(
  entry: CatalogEntry,
  choice: SchemaChoice,
): OpenAIResponsesFunctionTool {
  return {
    type: "function",
    name: entry.modelName,
    ...(entry.description === undefined ? {} : { description: entry.description }),
    parameters: choice.parameters,
    strict: choice.strict,
  };
}

export function toolSearchTool(): OpenAIToolSearchTool {
  return {
    type: "tool_search",
    execution: "client",
    description: SEARCH_DESCRIPTION,
    parameters: structuredClone(SEARCH_PARAMETERS) as unknown as Record<string, unknown>,
  };
}

export const responsesDeferChecks = deferChecks;

/**
 * Answers a `tool_search_call` (client execution) with its `tool_search_output`: the tools found
 * for the model's query, as strict as `openaiResponsesTools` makes them. Arguments the model got
 * wrong give an output with no tools (the model searches again).
 */
export async function answerToolSearch(
  source: ToolSource,
  call: OpenAIToolSearchCall,
  options: AnswerToolSearchOptions = {},
): Promise<OpenAIToolSearchOutput> {
  checkOptions(options, { strict: isStrictMode });
  const { strict = "auto", ...catalog } = options;
  const out: OpenAIToolSearchOutput = {
    type: "tool_search_output",
    call_id: typeof call?.call_id === "string" ? call.call_id : null,
    execution: "client",
    status: "completed",
    tools: [],
  };
  const args = searchArguments(call?.arguments);
  if (typeof args === "string") return out;
  const found = await findEntries(source, args.query, args.limit, catalog);
  rememberRoutes(source, found);
  out.tools = found.map((e) => responsesFunctionTool(e, chooseSchema(e, strict, source, "openai")));
  return out;
}
