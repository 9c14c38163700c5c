/**
 * What the tool-search adapters share: which tools are deferred, and the model-facing entries a
 * query finds (through the source's own `searchTools` when it has one, so a hub's or client's
 * visibility rules hold; a plain list is indexed here).
 */
import type { CallableTool } from "../client/tool-caller.js";
import { ToolSearchIndex } from "../search/index.js";
import {
  type CatalogEntry,
  type CatalogOptions,
  checkOptions,
  listEntries,
  type ToolSource,
} from "./catalog.js";

export interface DeferOptions {
  /**
   * Which tools reach the model only through search: `true` every tool, or a function of the
   * tool's model-facing name. Default false (every tool loaded, as without search).
   */
  defer?: boolean | ((name: string) => boolean);
  /** Model-facing names always loaded, whatever `defer` says. */
  alwaysLoaded?: readonly string[];
}

export const deferChecks = {
  defer: (v: unknown) => typeof v === "boolean" || typeof v === "function",
  alwaysLoaded: (v: unknown) => Array.isArray(v) && v.every((n) => typeof n === "string"),
};

/** The default and the ceiling of a model's search: a few tools are what it needs, not fifty. */
export const SEARCH_LIMIT = 5;
export const MAX_SEARCH_LIMIT = 20;

/** Largest search arguments text parsed, in characters. */
const MAX_SEARCH_ARGUMENT_CHARS = 64 * 1024;

/** The search tool's arguments, as every provider's model is told to send them. */
export const SEARCH_PARAMETERS = {
  type: "object",
  properties: {
    query: {
      type: "string",
      description: "What you want to do, in a few words (for example: create a folder, send a message).",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      description: `How many tools to return (default ${SEARCH_LIMIT}).`,
    },
  },
  required: ["query"],
  additionalProperties: false,
} as const;

export const SEARCH_DESCRIPTION =
  "Search the available tools by what you want to do. Returns the best matching tools, which " +
  "you can then call. Search again with other words when none fits.";

export function deferredBy(options: DeferOptions): (name: string) => boolean {
  const always = new Set(options.alwaysLoaded ?? []);
  const d = options.defer;
  return (name) => !always.has(name) && (d === true || (typeof d === "function" && d(name) === true));
}

/** A model's search arguments (an object or JSON text) as `{ query, limit }`, or an error text. */
export function searchArguments(raw: unknown): { query: string; limit: number } | string {
  let v = raw;
  if (typeof raw === "string") {
    // The query is cut to 1 000 characters below: megabytes of JSON are not parsed for it.
    if (raw.length > MAX_SEARCH_ARGUMENT_CHARS)
      return "The search arguments are too long: send a short query.";
    try {
      v = JSON.parse(raw);
    } catch {
      return "The search arguments are not JSON.";
    }
  }
  const o = (typeof v === "object" && v !== null ? v : {}) as { query?: unknown; limit?: unknown };
  if (typeof o.query !== "string" || o.query.trim() === "") return 'The search needs a "query" text.';
  const limit =
    typeof o.limit === "number" && Number.isSafeInteger(o.limit)
      ? Math.min(Math.max(o.limit, 1), MAX_SEARCH_LIMIT)
      : SEARCH_LIMIT;
  return { query: o.query.slice(0, 1_000), limit };
}

interface Searchable {
  searchTools(query: string, options: Record<string, unknown>): Promise<Array<{ tool: CallableTool }>>;
}

function isSearchable(source: unknown): source is Searchable {
  return typeof (source as Partial<Searchable>)?.searchTools === "function";
}

const localIndexes = new WeakMap<object, ToolSearchIndex<CatalogEntry>>();

/** The entries a query finds, best first, at most `limit`. */
export async function findEntries(
  source: ToolSource,
  query: string,
  limit: number,
  options: CatalogOptions = {},
): Promise<CatalogEntry[]> {
  checkOptions(options, {});
  const entries = await listEntries(source, options, true);
  if (isSearchable(source)) {
    const byCall = new Map(entries.map((e) => [e.callName, e]));
    const listing: Record<string, unknown> = { limit };
    if (options.timeout !== undefined) listing.timeout = options.timeout;
    if (options.signal !== undefined) listing.signal = options.signal;
    const found = await source.searchTools(query, listing);
    return found.map((r) => byCall.get(r.tool.name)).filter((e): e is CatalogEntry => e !== undefined);
  }
  // A plain list: indexed once per list object.
  let index = localIndexes.get(source);
  if (!index) {
    index = new ToolSearchIndex<CatalogEntry>();
    const servers = new Map<string, CatalogEntry[]>();
    for (const e of entries)
      servers.set(e.provenance.serverId, [...(servers.get(e.provenance.serverId) ?? []), e]);
    for (const [id, list] of servers) {
      index.setServer(
        id,
        list.map((e) => ({ name: e.modelName, serverId: id, tool: e.tool, item: e })),
      );
    }
    localIndexes.set(source, index);
  }
  return index.search(query, limit).map((r) => r.item);
}
