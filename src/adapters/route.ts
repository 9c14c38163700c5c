import type { ToolCaller } from "../client/tool-caller.js";
import { validateJson } from "../schema/validator.js";
import {
  type LlmOutcomeOptions,
  llmFailure,
  prototypeKeyError,
  shapeCall,
  unknownProvenance,
  unknownToolError,
} from "../shaping/llm-call.js";
import { type LlmResult, llmError } from "../shaping/llm-result.js";
import { withinDepth } from "../shared/depth.js";
import { type CatalogEntry, type CatalogOptions, isToolCaller, listEntries } from "./catalog.js";
import { stripOptionalNulls } from "./strip-nulls.js";

/** A tool handed to a model, and what is needed to run the model's call of it. */
export type Route = CatalogEntry;

/** The listing's options, and how the outcome is shaped (`throwOnError`, text and image limits). */
export interface RunOptions extends CatalogOptions, LlmOutcomeOptions {}

/** How src/schema/validator.ts words a schema it cannot apply (as opposed to a value it rejects). */
const SCHEMA_PROBLEM = /^(schema refused: |the schema )/;

/**
 * Deepest nesting of the arguments handed on (the client's `maxDepth` default): the JSON a model
 * sends may nest any depth, and sending thousands of levels fails in JSON.stringify (a stack
 * overflow the model would read as a transport failure and try again).
 */
const MAX_ARGUMENT_DEPTH = 64;

/** Largest arguments text parsed, in characters. */
const MAX_ARGUMENT_CHARS = 1024 * 1024;

// The routes each caller's tools were last handed out with, by model name. Weak: a caller
// that is dropped takes its routes with it.
const known = new WeakMap<object, Map<string, Route>>();

export function rememberRoutes(caller: ToolSource, routes: Route[]): void {
  if (!isToolCaller(caller)) return;
  let map = known.get(caller);
  if (map === undefined) {
    map = new Map();
    known.set(caller, map);
  }
  for (const r of routes) map.set(r.modelName, r);
}

type ToolSource = Parameters<typeof listEntries>[0];

/**
 * Runs a model's call of a tool and shapes the answer for the model. Every way the model can get
 * it wrong (an unknown name, arguments that are not JSON, not an object, hold a prototype key, or
 * do not match the tool's original schema) and every `McpClientError` of the call comes back as an error result
 * naming the problem, so the model can correct itself. An abort through `signal` rejects.
 */
export async function runToolCall(
  caller: ToolCaller,
  name: unknown,
  rawArgs: unknown,
  options: RunOptions,
  argumentsAreText = false,
): Promise<LlmResult> {
  if (!isToolCaller(caller)) throw new TypeError("conduit-mcp: expected a Client or a Hub (a ToolCaller)");
  const modelName = typeof name === "string" ? name : "";
  let route: Route | undefined;
  try {
    route = await findRoute(caller, modelName, options);
  } catch (err) {
    return llmFailure(err, options, callerProvenance(caller, modelName));
  }
  if (route === undefined) return unknownToolError(modelName, callerProvenance(caller, modelName));
  const args = parseArguments(rawArgs, argumentsAreText);
  if (typeof args === "string") return llmError("invalid_arguments", args, route.provenance);
  if (!withinDepth(args, MAX_ARGUMENT_DEPTH)) {
    return llmError(
      "invalid_arguments",
      `The arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels of objects and arrays; the tool was not called.`,
      route.provenance,
    );
  }
  const refused = prototypeKeyError(args, () => route.provenance);
  if (refused !== undefined) return refused;
  const stripped = stripOptionalNulls(args, route.tool.inputSchema) as Record<string, unknown>;
  const verdict = await validateJson(route.tool.inputSchema, stripped);
  if (!verdict.valid) {
    // The validator refuses a schema it cannot apply safely (a remote or missing $ref, too deep or
    // large, a pattern with a catastrophic shape): every value is then invalid. Said as what it
    // is, since no arguments the model can send would help; the tool is not called unchecked.
    const refused = verdict.errors.length === 1 && SCHEMA_PROBLEM.test(verdict.errors[0]!);
    if (refused) {
      return llmError(
        "unusable_schema",
        `The tool's input schema cannot be checked (${verdict.errors[0]}), so the tool was not called.`,
        route.provenance,
      );
    }
    const lines = verdict.errors.slice(0, 8).map((e) => `- ${e}`);
    return llmError(
      "invalid_arguments",
      `The arguments do not match the tool's input schema, so the tool was not called:\n${lines.join("\n")}`,
      route.provenance,
    );
  }
  const callOptions: { timeout?: number; signal?: AbortSignal } = {};
  if (options.timeout !== undefined) callOptions.timeout = options.timeout;
  if (options.signal !== undefined) callOptions.signal = options.signal;
  const provenance = route.provenance;
  // The caller's own `callTool`, shaped here: any ToolCaller will do, not only ours.
  // A tool the server no longer has (refused with an error) is looked for in a fresh listing.
  const callName = route.callName;
  return shapeCall(
    () => caller.callTool(callName, stripped, callOptions),
    () => provenance,
    options,
    () => caller.listCallableTools({ refresh: true }).then((tools) => tools.some((t) => t.name === callName)),
  );
}

async function findRoute(
  caller: ToolCaller,
  modelName: string,
  options: RunOptions,
): Promise<Route | undefined> {
  if (modelName === "") return undefined;
  const route = known.get(caller)?.get(modelName);
  if (route !== undefined) return route;
  // Not handed out by this process (or the list changed since): list, and build its route.
  const entries = await listEntries(caller, options, true);
  const entry = entries.find((e) => e.modelName === modelName);
  if (entry === undefined) return undefined;
  rememberRoutes(caller, [entry]);
  return entry;
}

/** The arguments as an object, or the message telling the model what is wrong with them. */
function parseArguments(raw: unknown, isText: boolean): Record<string, unknown> | string {
  let value = raw;
  if (raw === undefined || (isText && raw === "")) return {};
  if (isText && typeof raw === "string") {
    if (raw.length > MAX_ARGUMENT_CHARS) {
      return `The arguments are ${raw.length} characters long, over the limit of ${MAX_ARGUMENT_CHARS}; the tool was not called.`;
    }
    try {
      value = JSON.parse(raw);
    } catch {
      return "The arguments are not valid JSON, so the tool was not called. Send one JSON object.";
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return `The arguments must be a JSON object, not ${got}; the tool was not called.`;
  }
  return value as Record<string, unknown>;
}

function callerProvenance(caller: ToolCaller, modelName: string) {
  const serverId = (caller as { serverId?: unknown }).serverId;
  return unknownProvenance(typeof serverId === "string" ? serverId : undefined, modelName);
}
