import { Deadline } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";
import type { RequestId } from "../shared/jsonrpc.js";
import { type MessageSource, sameResult } from "../shared/message-source.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { StoredList } from "../stores/lists.js";
import type { Telemetry } from "../telemetry/events.js";
import { jsonEqual } from "../util/json-equal.js";
import { waitWithin } from "../util/wait.js";
import {
  type CacheKind,
  type CredentialIdentity,
  type Fetched,
  ListCache,
  type ListCacheOptions,
  readTtl,
} from "./cache/list-cache.js";
import {
  dropShared,
  type SharedLists,
  sharedIdentity,
  sharedOrClaim,
  storedItems,
  writeShared,
} from "./cache/shared-lists.js";
import {
  admitPrompts,
  admitResources,
  admitResourceTemplates,
  type PageIntake,
  type Rejected,
  TOOL_NAME,
  type ToolIntake,
} from "./intake.js";
import type { ListKind, ServerNotification } from "./notifications/fan-out.js";
import { type ListLimits, readCursor, walkPages } from "./pagination.js";
import type { Prompt, RequestOptions, Resource, ResourceTemplate, Tool } from "./types.js";

/** A list's intake: the items of every page, each page's source text and item count. */
type Admit<T> = (
  items: unknown[],
  sources: Array<MessageSource | undefined>,
  sizes: number[],
) => { items: T[]; rejected: number };

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

const NO_NAMES: ReadonlySet<string> = new Set();
const BY_NAME = new WeakMap<Tool[], Map<string, Tool>>();

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
  /** The client's `maxListPages` and `maxListItems`. */
  listLimits: ListLimits;
  /** The client's `callUnlistedTools`: a name no listing mentioned is called unchecked. */
  callUnlistedTools: boolean;
  identity: () => CredentialIdentity;
  credentialGeneration: () => number;
  telemetry: Telemetry;
  warn: (text: string) => void;
  /** One page; `heard` hears the text the transport parsed it from, when it had it. */
  fetchPage: (
    kind: CacheKind,
    cursor: string | undefined,
    deadline: Deadline,
    heard: (text: string, id: RequestId) => void,
  ) => Promise<JsonObject>;
  /**
   * Admits a listing's tools, page by page, taking `known[i]` as the intake of page `i` where it
   * is given (the client knows the transport's extra rules): `admitToolPages`.
   */
  admitTools: (pages: unknown[][], known: Array<PageIntake | undefined>) => ToolIntake;
  toolRejected: (r: Rejected) => void;
  announce: (n: ServerNotification) => void;
  /** The list store shared with other clients (`stores.lists`), if any. */
  shared?: SharedLists | undefined;
}

/**
 * The four lists behind `listAll*`, `cachedTools()` and `tool()`: each walk over every page
 * (with the pagination caps), its intake, its cache entry, and the watch on tool definitions.
 */
export class Lists {
  readonly #d: ListsDeps;
  readonly tools: ListCache<Tool>;
  // The other three are made on first use: most clients only call tools (~150 B each per client).
  // One never made has nothing to mark stale, drop or count changes for.
  #resources: ListCache<Resource> | undefined;
  #resourceTemplates: ListCache<ResourceTemplate> | undefined;
  #prompts: ListCache<Prompt> | undefined;
  readonly #cacheOptions: ListCacheOptions;
  /** The last listing of each tool, to notice a server swapping a definition. */
  readonly #definitions = new Map<string, Tool>();
  /** The names intake left out of the latest tool listing (as sent, when they were strings). */
  #rejectedNames: ReadonlySet<string> = NO_NAMES;
  /** Each tool listing's tools by name, built once per listing when a call first looks. */
  readonly #byName = BY_NAME; // one table for every client (keys are each listing's own array)
  /** The latest tool listing's page texts and what its intake gave (to skip it for the same pages). */
  #lastIntake:
    | { sources: Array<MessageSource | undefined>; pages: PageIntake[]; tools: Tool[]; rejected: Rejected[] }
    | undefined;
  /** Stops hearing the shared store's change notices. */
  #unwatch: (() => void) | undefined;
  /** The identities this client kept private lists under in the shared store (dropped on setAuth). */
  readonly #sharedPrivate = new Set<string>();
  /** The intake of the walk under way found a tool definition changed. */
  #definitionChanged = false;

  constructor(deps: ListsDeps) {
    this.#d = deps;
    // The deps are the cache's options (their methods called on them: no copy, issue 26).
    this.#cacheOptions = deps;
    this.tools = new ListCache("tools", this.#cacheOptions, (shared) =>
      this.#walk("tools", shared, (items, sources, sizes) => this.#intakeTools(items, sources, sizes)),
    );
    this.open();
  }

  get resources(): ListCache<Resource> {
    this.#resources ??= this.#plain("resources", admitResources);
    return this.#resources;
  }

  get resourceTemplates(): ListCache<ResourceTemplate> {
    this.#resourceTemplates ??= this.#plain("resourceTemplates", admitResourceTemplates);
    return this.#resourceTemplates;
  }

  get prompts(): ListCache<Prompt> {
    this.#prompts ??= this.#plain("prompts", admitPrompts);
    return this.#prompts;
  }

  /** The cache of a list whose intake rejects nothing as a whole (all but tools). */
  #plain<T>(
    kind: Exclude<CacheKind, "tools">,
    admit: (items: unknown[], serverId: string, maxDepth: number) => T[],
  ): ListCache<T> {
    const { serverId, maxDepth } = this.#d;
    return new ListCache(kind, this.#cacheOptions, (shared) =>
      this.#walk(kind, shared, (items) => ({ items: admit(items, serverId, maxDepth), rejected: 0 })),
    );
  }

  /** Hears the shared store's change notices (again, after `close`). */
  open(): void {
    const s = this.#d.shared;
    if (!s || this.#unwatch) return;
    this.#unwatch = s.store.watch((key, origin) => {
      if (origin === s.origin || key.server !== s.server) return;
      if (key.identity !== null && key.identity !== sharedIdentity("private", this.#d.identity())) return;
      // A cache never made has nothing to mark stale.
      this.#made(key.kind)?.sharedChanged();
    });
  }

  close(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  #made(kind: CacheKind): ListCache<unknown> | undefined {
    return this.#all().find((c) => c.kind === kind);
  }

  /** Serves a list through its cache within the caller's deadline (its timeout) and signal. */
  all<T>(cache: ListCache<T>, options: ListAllOptions | undefined, deadline?: Deadline): Promise<T[]> {
    const o = options ?? {};
    const left = (deadline ?? this.#d.deadline(o)).left();
    return waitWithin(() => cache.get(o.refresh === true), left, o.signal);
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
   * listing the client holds (a complete walk of every page, for the current credentials, fresh
   * or not); else `undefined`, to be looked up ({@link callable}). With `callUnlistedTools`, a
   * name no listing ever mentioned (or any name while none is held) is `null` instead: the call
   * goes out as asked, unchecked.
   */
  listed(name: string): Tool | null | undefined {
    const tools = this.tools.peek();
    const found = tools && this.#index(tools).get(name);
    if (found) return found;
    if (!this.#d.callUnlistedTools) return undefined;
    if (!tools) return null;
    return this.#rejectedNames.has(name) || this.#definitions.has(name) ? undefined : null;
  }

  /** A call of `name` may go out beside the first listing (requests.md): none held ever, no store. */
  sendsAlongside(name: string): boolean {
    const never = this.#definitions.size === 0 && this.#rejectedNames === NO_NAMES && !this.tools.peek();
    return never && this.#d.shared === undefined && TOOL_NAME.test(name);
  }

  /**
   * A tool the held listing lacks (or with no listing held) about to be called: the list is
   * fetched once when none is held or the one held is stale (a list_changed, a reconnect, its
   * ttlMs passed; a refresh already under way is joined); then the tool is there (the server
   * added, fixed or restored it) or the call is refused with `not_found`: `tool_rejected`
   * (intake left it out), `tool_withdrawn` (an earlier listing had it) or `unknown_tool` (no
   * listing had it). Nothing is sent for a refused call.
   */
  async callable(name: string, options: RequestOptions, deadline: Deadline): Promise<Tool> {
    const tools = await this.all(this.tools, options, deadline);
    const found = this.#index(tools).get(name);
    if (found) return found;
    throw new McpClientError(
      "not_found",
      this.#rejectedNames.has(name)
        ? "tool_rejected"
        : this.#definitions.has(name)
          ? "tool_withdrawn"
          : "unknown_tool",
    );
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
    else if (kind === "prompts") this.#prompts?.changed();
    else {
      this.#resources?.changed();
      this.#resourceTemplates?.changed();
    }
  }

  /** Whether anyone asked for a list of `kind` (its changes are worth listening for). */
  interest(kind: ListKind): boolean {
    if (kind === "tools") return this.tools.everFetched;
    if (kind === "prompts") return this.#prompts?.everFetched === true;
    return this.#resources?.everFetched === true || this.#resourceTemplates?.everFetched === true;
  }

  markStale(): void {
    for (const c of this.#all()) c.markStale();
  }

  dropPrivate(): void {
    for (const c of this.#all()) c.dropPrivate();
    const s = this.#d.shared;
    if (!s) return;
    // The other clients of these credentials drop them too (they hear the delete).
    dropShared(s, this.#sharedPrivate, Object.keys(LIST_METHODS) as CacheKind[]);
    this.#sharedPrivate.clear();
  }

  /** The caches made so far. */
  #all(): Array<ListCache<unknown>> {
    const made = [this.tools, this.#resources, this.#resourceTemplates, this.#prompts] as Array<
      ListCache<unknown> | undefined
    >;
    return made.filter((c) => c !== undefined);
  }

  /** Every page within one deadline (the client's request timeout), with the cache hints. */
  async #walk<T>(kind: CacheKind, useShared: boolean, admit: Admit<T>): Promise<Fetched<T>> {
    const shared = this.#d.shared;
    const identity = this.#d.identity();
    const generation = this.#d.credentialGeneration();
    let release: (() => void) | undefined;
    if (shared && useShared) {
      // One listing per fleet: another client listing the same may be about to write it.
      const found = await sharedOrClaim(shared, kind, identity, this.#d.requestTimeout);
      const got = found.hit && this.#fromShared(kind, found.hit, identity, admit);
      if (got) return got;
      release = found.release;
    }
    try {
      return await this.#fromServer(kind, useShared, identity, generation, admit);
    } finally {
      release?.();
    }
  }

  /** Every page from the server; kept in the shared store when it may be. */
  async #fromServer<T>(
    kind: CacheKind,
    useShared: boolean,
    identity: CredentialIdentity,
    generation: number,
    admit: Admit<T>,
  ): Promise<Fetched<T>> {
    const shared = this.#d.shared;
    // The cache's own fetch, shared by every waiter: the client's timeout, not any caller's.
    const deadline = Deadline.after(this.#d.requestTimeout);
    const results: JsonObject[] = [];
    let pages = 0;
    let ttlMs = Number.POSITIVE_INFINITY;
    let allPublic = true;
    // Each page's source text and item count, for the tool intake to know the pages again.
    const sources: Array<MessageSource | undefined> = [];
    const sizes: number[] = [];
    const raw = await walkPages(async (cursor) => {
      if (deadline.expired()) throw new McpClientError("timeout", "deadline_exceeded");
      let source: MessageSource | undefined;
      const result = await this.#d.fetchPage(kind, cursor, deadline, (text, id) => {
        source = { text, id };
      });
      const items = result[kind];
      if (!Array.isArray(items)) throw new McpClientError("protocol", "invalid_list_result");
      if (shared) results.push(result);
      pages += 1;
      ttlMs = Math.min(ttlMs, readTtl(result.ttlMs));
      if (result.cacheScope !== "public") allPublic = false;
      sources.push(source);
      sizes.push(items.length);
      return { items, nextCursor: readCursor(result.nextCursor) };
    }, this.#d.listLimits);
    this.#definitionChanged = false;
    const { items, rejected } = admit(raw, sources, sizes);
    const scope = allPublic ? "public" : "private";
    const ttl = Number.isFinite(ttlMs) ? Math.min(ttlMs, this.#d.maxCacheTtl) : 0;
    const id = sharedIdentity(scope, identity);
    // Shared only when fresh for a while and fetched with the same credentials throughout.
    if (shared && ttl > 0 && id !== undefined && generation === this.#d.credentialGeneration()) {
      if (id !== null) this.#sharedPrivate.add(id);
      const list = { pages: results, fetchedAt: Date.now(), ttlMs: ttl, scope } as const;
      // A forced walk, or one that found a changed definition: the other clients hear of it.
      writeShared(shared, { kind, identity: id }, list, !useShared || this.#definitionChanged);
    }
    return { items, pages, rejected, ttlMs: Number.isFinite(ttlMs) ? ttlMs : 0, scope };
  }

  /** A list the store held, through this client's own intake; fresh for what is left of its ttl. */
  #fromShared<T>(
    kind: CacheKind,
    hit: StoredList,
    identity: CredentialIdentity,
    admit: Admit<T>,
  ): Fetched<T> | undefined {
    const stored = storedItems(hit, kind, this.#d.listLimits);
    if (!stored) return undefined;
    const { raw, sizes } = stored;
    const own = sharedIdentity("private", identity);
    if (hit.scope === "private" && typeof own === "string") this.#sharedPrivate.add(own);
    const { items, rejected } = admit(raw, new Array(sizes.length).fill(undefined), sizes);
    const left = Math.max(0, hit.fetchedAt + hit.ttlMs - Date.now());
    return { items, pages: hit.pages.length, rejected, ttlMs: left, scope: hit.scope };
  }

  /**
   * A tool listing's intake. A page that is the same text as the last listing's page at its
   * place (see {@link sameResult}: the same JSON, key order included) keeps what intake made of
   * it then: its items' own checks and their tools, which need no compare (they are the
   * definitions seen last). Repeated names are counted over every page again, and a tool made
   * now is compared with the definition seen before. When every page is the same, the last
   * listing's tools are served again at once (in a new array); its rejections are reported
   * again either way, as a full intake would.
   */
  #intakeTools(
    raw: unknown[],
    sources: Array<MessageSource | undefined>,
    sizes: number[],
  ): { items: Tool[]; rejected: number } {
    const last = this.#lastIntake;
    const known: Array<PageIntake | undefined> = [];
    let allKnown = last !== undefined && last.sources.length === sources.length;
    for (let i = 0; i < sources.length; i++) {
      const a = last?.sources[i];
      const b = sources[i];
      const same = a !== undefined && b !== undefined && sameResult(a, b);
      known.push(same ? last?.pages[i] : undefined);
      if (!same) allKnown = false;
    }
    if (last !== undefined && allKnown) {
      this.#lastIntake = { ...last, sources: sources.slice() };
      for (const r of last.rejected) this.#d.toolRejected(r);
      return { items: last.tools.slice(), rejected: last.rejected.length };
    }
    const pages: unknown[][] = [];
    let from = 0;
    for (const size of sizes) {
      pages.push(raw.slice(from, from + size));
      from += size;
    }
    const { tools, rejected, pages: intakes, made } = this.#d.admitTools(pages, known);
    const names = rejected.flatMap((r) => (r.wireName === undefined ? [] : [r.wireName]));
    // Most listings leave nothing out: one shared empty set then, not a new one per client.
    this.#rejectedNames = names.length === 0 ? NO_NAMES : new Set(names);
    for (const r of rejected) this.#d.toolRejected(r);
    for (const tool of made) {
      const name = tool.name;
      // Compared with the last listing's object, key by key (no string written, no copy): the
      // same JSON in another key order, or a new serverId or _meta, is no change. The objects are
      // the ones the cache hands out, which callers must not change (governance and output
      // validation read them too). A tool taken from a page's last intake is the object stored
      // here for its name then (each intake's names are unique), so it needs no compare.
      const before = this.#definitions.get(name);
      this.#definitions.set(name, tool);
      if (before !== undefined && before !== tool && !jsonEqual(before, tool, NOT_THE_DEFINITION)) {
        const toolName = sanitizeText(name, { maxLength: 128 });
        this.#d.telemetry.emit("tool:definition_changed", () => ({ toolName }));
        this.#definitionChanged = true;
        this.#d.announce({ method: TOOL_DEFINITION_CHANGED, params: { name } });
      }
    }
    // Our own copy of the array: callers may reorder the one they are handed.
    this.#lastIntake = { sources: sources.slice(), pages: intakes, tools: tools.slice(), rejected };
    return { items: tools, rejected: rejected.length };
  }
}

/** What a tool carries that is not its definition: whose it is, and its `_meta`. */
const NOT_THE_DEFINITION = ["serverId", "meta"] as const;
