/**
 * `conduit-mcp/ai-sdk`: MCP tools as a Vercel AI SDK (`ai` 7) `ToolSet`, built with the SDK's
 * own `tool()` and `jsonSchema()`, so `generateText({ tools })` and `streamText({ tools })` take
 * it as it is. `ai` is an optional peer dependency, loaded by the first `aiSdkTools()` call (so
 * a missing one is an error naming it, not a failed import of this module).
 */
import type { JSONSchema7, Tool, ToolSet } from "ai";
import { type LlmResult, llmText } from "../shaping/llm-result.js";
import { dependencyMissing } from "../shared/errors.js";
import type { CatalogOptions } from "./catalog.js";
import { checkOptions, isToolCaller, listEntries, type ToolSource } from "./catalog.js";
import { putOwn } from "./own-property.js";
import { type RunOptions, rememberRoutes, runToolCall } from "./route.js";
import { findEntries, SEARCH_DESCRIPTION, SEARCH_PARAMETERS, searchArguments } from "./search-entries.js";
import { chooseSchema, isStrictMode, type StrictMode } from "./strict-mode.js";

export { type LlmResult, type Provenance, toLlmResult } from "../shaping/llm-result.js";
export type { McpTool, ToolSource } from "./catalog.js";
export type { StrictMode } from "./strict-mode.js";

export interface AiSdkToolsOptions extends CatalogOptions, Omit<RunOptions, keyof CatalogOptions> {
  /**
   * `false` (default): each tool's original schema (texts sanitised). `"auto"` or `true`: OpenAI's
   * strict subset where it converts, with the tool's `strict: true` (for providers that take it).
   */
  strict?: StrictMode;
}

/** The AI SDK's `ToolResultOutput` (not exported by `ai` itself). */
export type ToolResultOutput = Awaited<ReturnType<NonNullable<Tool["toModelOutput"]>>>;

const checks = {
  strict: isStrictMode,
  throwOnError: (v: unknown) => typeof v === "boolean",
  maxTextLength: (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0,
  maxImageBytes: (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0,
};

type AiSdk = Pick<typeof import("ai"), "jsonSchema" | "tool">;
let aiSdk: Promise<AiSdk> | undefined;

/** `ai`, loaded once; `unavailable` / `dependency_missing` (naming it) when it is not installed. */
function loadAiSdk(): Promise<AiSdk> {
  aiSdk ??= import("ai").catch((err: unknown) => {
    aiSdk = undefined;
    throw dependencyMissing("ai", err);
  });
  return aiSdk;
}

/** A shaped result as the AI SDK's model output: content parts, or error text. */
export function toAiSdkOutput(result: LlmResult): ToolResultOutput {
  if (result.isError) return { type: "error-text", value: llmText(result) };
  return {
    type: "content",
    value: result.content.map((p) =>
      p.type === "text"
        ? { type: "text" as const, text: p.text }
        : { type: "file" as const, mediaType: p.mimeType, data: { type: "data" as const, data: p.data } },
    ),
  };
}

/**
 * One AI SDK tool per MCP tool. With a `Client` or a `Hub`, each tool's `execute` runs the call
 * (its abort signal cancels it on the wire) and returns the shaped `LlmResult`; `toModelOutput`
 * turns that into the model's content. With a plain list of tools there is nothing to call
 * them with: the tools have no `execute`, and the application runs the calls.
 */
export async function aiSdkTools(source: ToolSource, options: AiSdkToolsOptions = {}): Promise<ToolSet> {
  checkOptions(options, checks);
  const { jsonSchema, tool } = await loadAiSdk();
  const mode = options.strict ?? false;
  const entries = await listEntries(source, options);
  const caller = isToolCaller(source) ? source : null;
  const set: ToolSet = {};
  for (const entry of entries) {
    const choice = chooseSchema(entry, mode, source, "ai-sdk");
    const base = {
      ...(entry.description === undefined ? {} : { description: entry.description }),
      inputSchema: jsonSchema<Record<string, unknown>>(choice.parameters as JSONSchema7),
      ...(choice.strict ? { strict: true } : {}),
    };
    if (caller === null) {
      putOwn(set, entry.modelName, tool<Record<string, unknown>, never, Record<string, never>>(base));
      continue;
    }
    const name = entry.modelName;
    putOwn(
      set,
      name,
      tool<Record<string, unknown>, LlmResult, Record<string, never>>({
        ...base,
        execute: (input, { abortSignal }) =>
          runToolCall(caller, name, input, abortSignal ? { ...options, signal: abortSignal } : options),
        toModelOutput: ({ output }) => toAiSdkOutput(output),
      }),
    );
  }
  rememberRoutes(source, entries);
  return set;
}

export interface AiSdkToolSearchOptions extends AiSdkToolsOptions {
  /** Tool names the model always sees, besides `search_tools`. */
  alwaysLoaded?: readonly string[];
}

export interface AiSdkToolSearch {
  /** Every tool, and `search_tools`: pass as `tools`. */
  tools: ToolSet;
  /** What the first step sees: `search_tools` and `alwaysLoaded`. Pass as `activeTools`. */
  activeTools: string[];
  /** Pass as `prepareStep`: each step sees `activeTools` and every tool a search found so far. */
  prepareStep: (options: { steps: ReadonlyArray<{ toolResults: ReadonlyArray<unknown> }> }) => {
    activeTools: string[];
  };
}

/** The name of the search tool `aiSdkToolSearch` adds. */
export const AI_SDK_SEARCH_TOOL = "search_tools";

/**
 * Tool search for the AI SDK: every tool is in `tools`, but a step's `activeTools` (what the
 * model is sent) holds only `search_tools`, the `alwaysLoaded` ones and the tools earlier
 * searches found, added by `prepareStep` in name order (a stable list, for prompt caches).
 */
export async function aiSdkToolSearch(
  source: ToolSource,
  options: AiSdkToolSearchOptions = {},
): Promise<AiSdkToolSearch> {
  const { alwaysLoaded = [], ...rest } = options;
  if (!Array.isArray(alwaysLoaded) || !alwaysLoaded.every((n) => typeof n === "string")) {
    throw new TypeError('conduit-mcp: option "alwaysLoaded" has the wrong type');
  }
  const tools = await aiSdkTools(source, rest);
  if (Object.hasOwn(tools, AI_SDK_SEARCH_TOOL)) {
    throw new TypeError(`conduit-mcp: a tool is already named "${AI_SDK_SEARCH_TOOL}"`);
  }
  const { jsonSchema, tool } = await loadAiSdk();
  putOwn(
    tools,
    AI_SDK_SEARCH_TOOL,
    tool<
      unknown,
      { tools: Array<{ name: string; description?: string }> } | { error: string },
      Record<string, never>
    >({
      description: SEARCH_DESCRIPTION,
      inputSchema: jsonSchema<unknown>(structuredClone(SEARCH_PARAMETERS) as unknown as JSONSchema7),
      execute: async (input, { abortSignal }) => {
        const args = searchArguments(input);
        if (typeof args === "string") return { error: args };
        const found = await findEntries(
          source,
          args.query,
          args.limit,
          abortSignal ? { signal: abortSignal } : {},
        );
        return {
          tools: found.map((e) => ({
            name: e.modelName,
            ...(e.description === undefined ? {} : { description: e.description }),
          })),
        };
      },
    }),
  );
  const base = [AI_SDK_SEARCH_TOOL, ...alwaysLoaded.filter((n) => Object.hasOwn(tools, n))];
  return {
    tools,
    activeTools: [...base],
    prepareStep: ({ steps }) => {
      const found = new Set<string>();
      for (const step of steps) {
        for (const r of step.toolResults) {
          const res = r as { toolName?: unknown; output?: { tools?: Array<{ name?: unknown }> } };
          if (res.toolName !== AI_SDK_SEARCH_TOOL || !Array.isArray(res.output?.tools)) continue;
          for (const t of res.output.tools) {
            if (typeof t?.name === "string" && Object.hasOwn(tools, t.name)) found.add(t.name);
          }
        }
      }
      const more = [...found].filter((n) => !base.includes(n)).sort();
      return { activeTools: [...base, ...more] };
    },
  };
}
