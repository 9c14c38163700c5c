import { Deadline } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";
import { type MessageSource, sameResult, sourceOf } from "../shared/message-source.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { Telemetry } from "../telemetry/events.js";
import { jsonEqual } from "../util/json-equal.js";
import { waitWithin } from "../util/wait.js";
import {
  type CacheKind,
  type CredentialIdentity,
  type Fetched,
  ListCache,
  readTtl,
} from "./cache/list-cache.js";
import { admitPrompts, admitResources, admitResourceTemplates, type Rejected } from "./intake.js";
import type { ListKind, ServerNotification } from "./notifications/fan-out.js";
import { readCursor, walkPages } from "./pagination.js";
import type { Prompt, RequestOptions, Resource, ResourceTemplate, Tool } from "./types.js";

/** What `listAll*` take: the request options, and `refresh` to bypass a fresh cached list. */
export interface ListAllOptions extends RequestOptions {
  refresh?: boolean;
}

/** The method of each list, by the key its result carries. */
export const LIST_METHODS = {
  tools: "tools/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
  prompts: "prompts/list",
} as const;

/** The method the client announces a changed tool definition with (to notification subscribers). */
export const TOOL_DEFINITION_CHANGED = "conduit-mcp/tool_definition_changed";

export interface ListsDeps {
  serverId: string;
  /** The client's `requestTimeout`: the deadline of a listing walked for the cache. */
  requestTimeout: number;
  /** The deadline of a caller's wait that starts now (its `timeout`, else the client's). */
  deadline: (options: RequestOptions) => Deadline;
  /** Deepest nesting a listed item may have (the client's `maxDepth`). */
  maxDepth: number;
  maxCacheTtl: number;
  identity: () => CredentialIdentity;
  credentialGeneration: () => number;
  telemetry: Telemetry;
  warn: (text: string) => void;
  /** One page of `kind`: the complete result of its list request. */
  fetchPage: (kind: CacheKind, cursor: string | undefined, deadline: Deadline) => Promise<JsonObject>;
  /** Admits a listing's tools (the client knows the transport's extra rules). */
  admitTools: (items: unknown[]) => { tools: Tool[]; rejected: Rejected[] };
  toolRejected: (r: Rejected) => void;
  announce: (n: ServerNotification) => void;
}

/**
 * The four lists behind `listAll*`, `cachedTools()` and `tool()`: each walk over every page
 * (with the pagination caps), its intake, its cache entry, and the watch on tool definitions.
 */
export class Lists {
  readonly #d: ListsDeps;
  readonly tools: ListCache<Tool>;
  readonly resources: ListCache<Resource>;
  readonly resourceTemplates: ListCache<ResourceTemplate>;
  readonly prompts: ListCache<Prompt>;
  /** The last listing of each tool, to notice a server swapping a definition. */
  readonly #definitions = new Map<string, Tool>();
  /** The names intake left out of the latest tool listing (as sent, when they were strings). */
  #rejectedNames = new Set<string>();
  /** Each tool listing's tools by name, built once per listing when a call first looks. */
  readonly #byName = new WeakMap<Tool[], Map<string, Tool>>();
  /** The latest tool listing's page texts and what its intake gave (to skip it for the same pages). */
  #lastIntake: { sources: Array<MessageSource | undefined>; tools: Tool[]; rejected: Rejected[] } | undefined;

  constructor(deps: ListsDeps) {
    this.#d = deps;
    const o = {
      maxCacheTtl: deps.maxCacheTtl,
      identity: deps.identity,
      credentialGeneration: deps.credentialGeneration,
      telemetry: deps.telemetry,
      warn: deps.warn,
    };
    this.tools = new ListCache("tools", o, () =>
      this.#walk("tools", (items, sources) => this.#intakeTools(items, sources)),
    );
    this.resources = new ListCache("resources", o, () =>
      this.#walk("resources", (items) => ({
        items: admitResources(items, deps.serverId, deps.maxDepth),
        rejected: 0,
      })),
    );
    this.resourceTemplates = new ListCache("resourceTemplates", o, () =>
      this.#walk("resourceTemplates", (items) => ({
        items: admitResourceTemplates(items, deps.serverId, deps.maxDepth),
        rejected: 0,
      })),
    );
    this.prompts = new ListCache("prompts", o, () =>
      this.#walk("prompts", (items) => ({
        items: admitPrompts(items, deps.serverId, deps.maxDepth),
        rejected: 0,
      })),
    );
  }

  /** Serves a list through its cache within the caller's deadline (its timeout) and signal. */
  all<T>(cache: ListCache<T>, options: ListAllOptions | undefined, deadline?: Deadline): Promise<T[]> {
    const o = options ?? {};
    const left = (deadline ?? this.#d.deadline(o)).left();
    return waitWithin(cache.get(o.refresh === true), left, o.signal);
  }

  /** The cached tools, never asking the server. */
  cachedTools(): Tool[] {
    const tools = this.tools.peek();
    if (!tools) throw new McpClientError("not_found", "not_cached");
    return tools;
  }

  /** One cached tool by name, never asking the server. */
  tool(name: string): Tool {
    const found = this.#index(this.cachedTools()).get(name);
    if (!found) throw new McpClientError("not_found", "unknown_tool");
    return found;
  }

  /**
   * What the listings say of a tool about to be called, without I/O: its definition in the
   * latest listing; `undefined` when that listing lacks a tool that intake rejected or that an
   * earlier listing had (withdrawn: see {@link callable}); `null` otherwise (no listing, or a name
   * no listing ever mentioned), so the call goes out as asked, as it does for a client that
   * never lists.
   */
  listed(name: string): Tool | null | undefined {
    const tools = this.tools.peek();
    if (!tools) return null;
    const found = this.#index(tools).get(name);
    if (found) return found;
    return this.#rejectedNames.has(name) || this.#definitions.has(name) ? undefined : null;
  }

  /**
   * A rejected or withdrawn tool about to be called: the list is refreshed once when it is
   * stale (a list_changed, a reconnect, its ttlMs passed); then the tool is there (the server
   * fixed or restored it) or the call is refused with `not_found` (`tool_rejected`,
   * `tool_withdrawn`), so a rejected or withdrawn definition is never acted on.
   */
  async callable(name: string, options: RequestOptions, deadline: Deadline): Promise<Tool> {
    const tools = await this.all(this.tools, options, deadline);
    const found = this.#index(tools).get(name);
    if (found) return found;
    throw new McpClientError("not_found", this.#rejectedNames.has(name) ? "tool_rejected" : "tool_withdrawn");
  }

  #index(tools: Tool[]): Map<string, Tool> {
    let index = this.#byName.get(tools);
    if (!index) {
      index = new Map(tools.map((t) => [t.name, t]));
      this.#byName.set(tools, index);
    }
    return index;
  }

  /** A list_changed of `kind` was delivered. */
  changed(kind: ListKind): void {
    if (kind === "tools") this.tools.changed();
    else if (kind === "prompts") this.prompts.changed();
    else {
      this.resources.changed();
      this.resourceTemplates.changed();
    }
  }

  /** Whether anyone asked for a list of `kind` (its changes are worth listening for). */
  interest(kind: ListKind): boolean {
    if (kind === "tools") return this.tools.everFetched;
    if (kind === "prompts") return this.prompts.everFetched;
    return this.resources.everFetched || this.resourceTemplates.everFetched;
  }

  markStale(): void {
    for (const c of this.#all()) c.markStale();
  }

  dropPrivate(): void {
    for (const c of this.#all()) c.dropPrivate();
  }

  #all(): Array<ListCache<unknown>> {
    return [this.tools, this.resources, this.resourceTemplates, this.prompts] as Array<ListCache<unknown>>;
  }

  /** Every page within one deadline (the client's request timeout), with the cache hints. */
  async #walk<T>(
    kind: CacheKind,
    admit: (items: unknown[], sources: Array<MessageSource | undefined>) => { items: T[]; rejected: number },
  ): Promise<Fetched<T>> {
    // The cache's own fetch, shared by every waiter: the client's timeout, not any caller's.
    const deadline = Deadline.after(this.#d.requestTimeout);
    let pages = 0;
    let ttlMs = Number.POSITIVE_INFINITY;
    let allPublic = true;
    const sources: Array<MessageSource | undefined> = [];
    const raw = await walkPages(async (cursor) => {
      if (deadline.expired()) throw new McpClientError("timeout", "deadline_exceeded");
      const result = await this.#d.fetchPage(kind, cursor, deadline);
      const items = result[kind];
      if (!Array.isArray(items)) throw new McpClientError("protocol", "invalid_list_result");
      pages += 1;
      ttlMs = Math.min(ttlMs, readTtl(result.ttlMs));
      if (result.cacheScope !== "public") allPublic = false;
      sources.push(sourceOf(result));
      return { items, nextCursor: readCursor(result.nextCursor) };
    });
    const { items, rejected } = admit(raw, sources);
    return {
      items,
      pages,
      rejected,
      ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0,
      scope: allPublic ? "public" : "private",
    };
  }

  /**
   * A tool listing's intake. When every page is the same text as the last listing's (see
   * {@link sameResult}: the same JSON, key order included), intake would give what it gave then
   * and the compare would find no change: the last listing's tools are served again (in a new
   * array) and its rejections reported again, as a full intake would.
   */
  #intakeTools(
    raw: unknown[],
    sources: Array<MessageSource | undefined>,
  ): { items: Tool[]; rejected: number } {
    const last = this.#lastIntake;
    if (last !== undefined && samePages(last.sources, sources)) {
      this.#lastIntake = { sources, tools: last.tools, rejected: last.rejected };
      for (const r of last.rejected) this.#d.toolRejected(r);
      return { items: last.tools.slice(), rejected: last.rejected.length };
    }
    const { tools, rejected } = this.#d.admitTools(raw);
    this.#rejectedNames = new Set(rejected.flatMap((r) => (r.wireName === undefined ? [] : [r.wireName])));
    for (const r of rejected) this.#d.toolRejected(r);
    for (const tool of tools) {
      const name = tool.name;
      // Compared with the last listing's object, key by key (no string written, no copy): the
      // same JSON in another key order, or a new serverId or _meta, is no change. The objects are
      // the ones the cache hands out, which callers must not change (governance and output
      // validation read them too).
      const before = this.#definitions.get(name);
      this.#definitions.set(name, tool);
      if (before !== undefined && before !== tool && !jsonEqual(before, tool, NOT_THE_DEFINITION)) {
        const toolName = sanitizeText(name, { maxLength: 128 });
        this.#d.telemetry.emit("tool:definition_changed", () => ({ toolName }));
        this.#d.announce({ method: TOOL_DEFINITION_CHANGED, params: { name } });
      }
    }
    // Our own copy of the array: callers may reorder the one they are handed.
    this.#lastIntake = { sources, tools: tools.slice(), rejected };
    return { items: tools, rejected: rejected.length };
  }
}

/** Every page the same result as the last listing's page at its place (all pages with a source). */
function samePages(before: Array<MessageSource | undefined>, now: Array<MessageSource | undefined>): boolean {
  if (before.length !== now.length) return false;
  for (let i = 0; i < now.length; i++) {
    const a = before[i];
    const b = now[i];
    if (a === undefined || b === undefined || !sameResult(a, b)) return false;
  }
  return true;
}

/** What a tool carries that is not its definition: whose it is, and its `_meta`. */
const NOT_THE_DEFINITION = ["serverId", "meta"] as const;
