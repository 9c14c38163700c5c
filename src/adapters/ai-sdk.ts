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
