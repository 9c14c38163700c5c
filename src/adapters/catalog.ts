import type { ListAllOptions } from "../client/lists.js";
import type { CallableTool, ToolCaller } from "../client/tool-caller.js";
import type { Tool } from "../client/types.js";
import type { Provenance } from "../shaping/llm-result.js";
import { sanitizeText } from "../shared/sanitize.js";
import { displayName, MODEL_TOOL_NAME, qualifyToolName } from "./names.js";

/**
 * A tool definition as any MCP SDK lists it (`@modelcontextprotocol/client`'s `listTools`): no
 * `serverId`, which ours adds. Without one, the tool keeps its own name (`qualify` has no server to
 * qualify it with).
 */
export interface McpTool {
  name: string;
  description?: string;
  inputSchema: { [key: string]: unknown };
  serverId?: string;
  [key: string]: unknown;
}

/** What an adapter takes: a `Client` or a `Hub` (anything that lists and calls), or a list. */
export type ToolSource = ToolCaller | readonly (Tool | McpTool | CallableTool)[];

export interface CatalogOptions {
  /**
   * Name a client's tools `mcp__<serverId>__<tool>` (names a caller already gives qualified, as a
   * hub does, are kept). Default false: a tool whose name the model APIs cannot take is an error.
   */
  qualify?: boolean;
  /** Longest tool description handed to a model, in characters. Default 1 024. */
  maxDescriptionLength?: number;
  /** For the listing: bypass a fresh cached list, deadline, abort. */
  refresh?: boolean;
  timeout?: number;
  signal?: AbortSignal;
}

/** One tool as a model will see it, and how to call it back. */
export interface CatalogEntry {
  /** The name the model sees and calls. */
  modelName: string;
  /** The name to give the caller's `callTool`. */
  callName: string;
  tool: Tool;
  /** Sanitised and clamped, or undefined when the tool has none. */
  description: string | undefined;
  provenance: Provenance;
}

export const MAX_DESCRIPTION = 1024;

export function isToolCaller(source: unknown): source is ToolCaller {
  return (
    typeof source === "object" &&
    source !== null &&
    typeof (source as ToolCaller).listCallableTools === "function" &&
    typeof (source as ToolCaller).callTool === "function"
  );
}

const CATALOG_KEYS = new Set(["qualify", "maxDescriptionLength", "refresh", "timeout", "signal"]);

/** Throws a `TypeError` naming the first option that is unknown or of the wrong type. */
export function checkOptions(options: unknown, extra: Record<string, (v: unknown) => boolean>): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null)
    throw new TypeError("conduit-mcp: options must be an object");
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const check = extra[key];
    const ok = check
      ? check(value)
      : !CATALOG_KEYS.has(key)
        ? false
        : key === "qualify" || key === "refresh"
          ? typeof value === "boolean"
          : key === "signal"
            ? value instanceof AbortSignal
            : typeof value === "number" && Number.isFinite(value) && value > 0;
    if (!ok) {
      throw new TypeError(
        check || CATALOG_KEYS.has(key)
          ? `conduit-mcp: option "${key}" has the wrong type`
          : `conduit-mcp: unknown option "${key}"`,
      );
    }
  }
}

function callables(
  source: ToolSource,
  options: CatalogOptions,
): Promise<readonly CallableTool[]> | CallableTool[] {
  if (isToolCaller(source)) {
    const list: ListAllOptions = {};
    if (options.refresh !== undefined) list.refresh = options.refresh;
    if (options.timeout !== undefined) list.timeout = options.timeout;
    if (options.signal !== undefined) list.signal = options.signal;
    return source.listCallableTools(list);
  }
  if (!Array.isArray(source)) {
    throw new TypeError("conduit-mcp: expected a Client, a Hub (a ToolCaller) or a list of tools");
  }
  return source.map((t, i) => {
    const item = t as Partial<CallableTool> & Partial<Tool>;
    if (item.tool !== undefined && typeof item.name === "string" && typeof item.serverId === "string") {
      return item as CallableTool;
    }
    if (
      typeof item.name !== "string" ||
      (item.serverId !== undefined && typeof item.serverId !== "string") ||
      typeof item.inputSchema !== "object" ||
      item.inputSchema === null
    ) {
      throw new TypeError(`conduit-mcp: tools[${i}] is not a Tool or a CallableTool`);
    }
    // A plain MCP tool: no server; "" stands for none (it is never qualified, see listEntries).
    const serverId = item.serverId ?? "";
    return {
      name: item.name,
      serverId,
      tool: (item.serverId === undefined ? { ...item, serverId } : item) as Tool,
    };
  });
}

/**
 * The tools of a source as a model will see them, sorted by model-facing name. Throws a `TypeError` for a name the model
 * APIs cannot take (with advice to qualify), and for two tools that end up with one name
 * (`skipInvalid` leaves them out instead: for routing a call, where only one tool matters).
 */
export async function listEntries(
  source: ToolSource,
  options: CatalogOptions = {},
  skipInvalid = false,
): Promise<CatalogEntry[]> {
  const maxDescription = options.maxDescriptionLength ?? MAX_DESCRIPTION;
  const tools = await callables(source, options);
  const entries: CatalogEntry[] = [];
  const seen = new Map<string, CatalogEntry>();
  for (const c of tools) {
    // A caller that already names a tool differently from its server (a hub) has qualified it.
    const qualifiedByCaller = c.name !== c.tool.name;
    // A tool with no server (a plain MCP tool) keeps its name: there is nothing to qualify it with.
    const unqualifiable = qualifiedByCaller || c.serverId === "";
    const qualifiedName = unqualifiable ? c.name : qualifyToolName(c.serverId, c.tool.name);
    const modelName = options.qualify && !unqualifiable ? qualifiedName : c.name;
    if (!MODEL_TOOL_NAME.test(modelName)) {
      if (skipInvalid) continue;
      throw new TypeError(
        `conduit-mcp: tool "${displayName(modelName)}" of server "${displayName(c.serverId)}" has a name the model ` +
          "APIs refuse (they take ^[a-zA-Z0-9_-]{1,64}$); pass qualify: true to name tools mcp__<server>__<tool>",
      );
    }
    const other = seen.get(modelName);
    if (other !== undefined) {
      if (skipInvalid) continue;
      throw new TypeError(
        `conduit-mcp: two tools would both be named "${modelName}" for the model (servers ` +
          `"${displayName(other.provenance.serverId)}" and "${displayName(c.serverId)}")`,
      );
    }
    const raw = typeof c.tool.description === "string" ? c.tool.description : undefined;
    const entry: CatalogEntry = {
      modelName,
      callName: c.name,
      tool: c.tool,
      description:
        raw === undefined ? undefined : sanitizeText(raw, { keepNewlines: true, maxLength: maxDescription }),
      provenance: { serverId: c.serverId, tool: c.tool.name, qualifiedName },
    };
    seen.set(modelName, entry);
    entries.push(entry);
  }
  // One order whatever server answered first or came first in a config: the same tools give a
  // byte-identical list to the model, so a provider's prompt cache keeps hitting.
  return entries.sort((a, b) => (a.modelName < b.modelName ? -1 : a.modelName > b.modelName ? 1 : 0));
}
