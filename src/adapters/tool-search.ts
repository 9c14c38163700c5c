/**
 * `conduit-mcp/tool-search`: tool search for any model provider. `portableToolSearch(source)`
 * gives two meta-tools in a neutral shape (name, description, JSON Schema `parameters`,
 * `execute`): `search_tools` finds tools by what the model wants to do and returns their names,
 * descriptions and schemas (sanitised); `call_tool` runs a found tool by name, its arguments
 * checked against the tool's own schema before anything is sent, through the source's
 * `callTool` (so a hub's governance applies). `toolManifestTokens` says what a tool list costs.
 */
import type { ToolCaller } from "../client/tool-caller.js";
import { unknownProvenance } from "../shaping/llm-call.js";
import { type LlmResult, llmError } from "../shaping/llm-result.js";
import { type CatalogOptions, checkOptions, isToolCaller } from "./catalog.js";
import { type RunOptions, rememberRoutes, runToolCall } from "./route.js";
import { sanitizeSchemaText } from "./schema-text.js";
import { findEntries, SEARCH_DESCRIPTION, SEARCH_PARAMETERS, searchArguments } from "./search-entries.js";

export { type LlmResult, type Provenance, toLlmResult } from "../shaping/llm-result.js";
export { type ManifestProvider, type ManifestTokensOptions, toolManifestTokens } from "./manifest-tokens.js";

/** A tool in no provider's shape: convert it with a few lines for yours (docs/tool-search.md). */
export interface PortableTool<I, O> {
  name: string;
  description: string;
  /** JSON Schema of the input. */
  parameters: Record<string, unknown>;
  execute(input: I, options?: { signal?: AbortSignal }): Promise<O>;
}

/** One tool found, as `search_tools` returns it to the model. */
export interface FoundTool {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export interface PortableToolSearch {
  search_tools: PortableTool<unknown, { tools: FoundTool[] } | { error: string }>;
  call_tool: PortableTool<unknown, LlmResult>;
}

export const CALL_TOOL_PARAMETERS = {
  type: "object",
  properties: {
    name: { type: "string", description: "The exact name of a tool that search_tools returned." },
    arguments: { type: "object", description: "The tool's arguments, as its parameters describe them." },
  },
  required: ["name"],
  additionalProperties: false,
} as const;

export type PortableToolSearchOptions = CatalogOptions & RunOptions;

const runChecks = {
  throwOnError: (v: unknown) => typeof v === "boolean",
  maxTextLength: (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0,
  maxImageBytes: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0,
};

/** The `search_tools` / `call_tool` pair over a `Hub` or a `Client`. */
export function portableToolSearch(
  source: ToolCaller,
  options: PortableToolSearchOptions = {},
): PortableToolSearch {
  if (!isToolCaller(source)) throw new TypeError("conduit-mcp: expected a Client or a Hub (a ToolCaller)");
  checkOptions(options, runChecks);
  return {
    search_tools: {
      name: "search_tools",
      description: SEARCH_DESCRIPTION,
      parameters: structuredClone(SEARCH_PARAMETERS) as unknown as Record<string, unknown>,
      async execute(input, run = {}) {
        const args = searchArguments(input);
        if (typeof args === "string") return { error: args };
        const found = await findEntries(source, args.query, args.limit, withSignal(options, run.signal));
        rememberRoutes(source, found);
        return {
          tools: found.map((e) => ({
            name: e.modelName,
            ...(e.description === undefined ? {} : { description: e.description }),
            parameters: sanitizeSchemaText(e.tool.inputSchema),
          })),
        };
      },
    },
    call_tool: {
      name: "call_tool",
      description:
        "Call a tool that search_tools found, by its exact name, with arguments that match its parameters.",
      parameters: structuredClone(CALL_TOOL_PARAMETERS) as unknown as Record<string, unknown>,
      execute(input, run = {}) {
        const text = typeof input === "string" ? inputText(input) : undefined;
        if (text !== undefined && !text.ok) {
          const serverId = (source as { serverId?: unknown }).serverId;
          const who = unknownProvenance(typeof serverId === "string" ? serverId : undefined, "call_tool");
          return Promise.resolve(llmError("invalid_arguments", text.problem, who));
        }
        const o = (text !== undefined ? text.value : input) as {
          name?: unknown;
          arguments?: unknown;
        };
        const args = o?.arguments === undefined ? {} : o.arguments;
        return runToolCall(source, o?.name, args, withSignal(options, run.signal));
      },
    },
  };
}

function withSignal<T extends CatalogOptions>(options: T, signal: AbortSignal | undefined): T {
  return signal ? { ...options, signal } : options;
}

/** Largest `call_tool` input text parsed, in characters (the arguments' own limit, and the name). */
const MAX_INPUT_CHARS = 1024 * 1024 + 1024;

/**
 * `call_tool`'s input given as JSON text, or what to tell the model: text that is not JSON was
 * read as `{}` and the model told "There is no tool named """, which sends it looking for a
 * tool rather than fixing its JSON.
 */
function inputText(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (text.length > MAX_INPUT_CHARS) {
    return {
      ok: false,
      problem: `The call_tool input is ${text.length} characters long, over the limit of ${MAX_INPUT_CHARS}; no tool was called.`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return {
      ok: false,
      problem:
        'The call_tool input is not valid JSON, so no tool was called. Send {"name": "...", "arguments": {...}}.',
    };
  }
}
