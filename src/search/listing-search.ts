/**
 * Search over a live listing (a hub's or a client's): every search first takes the listing as the
 * owner gives it (cached, and filtered by its allow/deny rules), re-indexes only the servers whose
 * tools changed, and drops servers that are gone, so a tool the listing hides is never found and
 * a `list_changed` reaches the index with the next search.
 */
import { OptionError } from "../shared/option-error.js";
import type { Tool } from "../shared/tool.js";
import { blendedSearch, type EmbedFunction } from "./blend.js";
import { type SearchItem, ToolSearchIndex } from "./tool-search-index.js";

/** `searchTools` options. The listing options (`timeout`, `signal`, `refresh`, filters) pass on. */
export interface SearchToolsOptions {
  /** How many results at most. Default 10 (1 to 1 000). */
  limit?: number;
  /** Only these servers' tools. Default: every server. */
  servers?: readonly string[];
  /** Semantic ranking blended with the lexical one (docs/tool-search.md). Default: none. */
  embed?: EmbedFunction;
}

export interface ToolSearchResult<T> {
  tool: T;
  score: number;
}

export const DEFAULT_SEARCH_LIMIT = 10;
const MAX_LIMIT = 1_000;
const MAX_QUERY = 4_096;

interface Listed {
  name: string;
  serverId: string;
  tool: Tool;
}

/**
 * How long a listing is reused for plain searches when the owner reports its changes: a hub's
 * listing of thousands of tools costs tens of milliseconds even from cache, the ranking well
 * under one; a change event drops it at once, and this bounds how long a change the server
 * never announced (a cache that expired) can go unseen.
 */
export const LISTING_REUSE_MS = 1_000;

/**
 * The owner's list state, cheaply: a list of values (its servers and their last listings, by
 * identity) that stays the same while the listing would give the same tools, or null when it
 * cannot say (a server changed, is listing, or is down). Then a held listing is reused past
 * `LISTING_REUSE_MS`, with no listing at all while nothing changed.
 */
export type ListingState = () => readonly unknown[] | null;

interface Held<T> {
  tools: T[];
  visible: Set<string>;
  at: number;
  state: readonly unknown[] | null;
}

export class ListingSearch<T extends Listed> {
  readonly #index = new ToolSearchIndex<T>();
  readonly #list: (options: Record<string, unknown>) => Promise<T[]>;
  readonly #watch: ((changed: () => void) => void) | undefined;
  readonly #state: ListingState | undefined;
  #watching = false;
  /** Change events heard: a listing that ran while one came is not reused. */
  #changes = 0;
  #reuse: Held<T> | null = null;

  /**
   * `watch`, when given, subscribes to the owner's change events (then listings are reused);
   * `state` lets a held listing outlive `LISTING_REUSE_MS` while the owner's state is the same.
   */
  constructor(
    list: (options: Record<string, unknown>) => Promise<T[]>,
    watch?: (changed: () => void) => void,
    state?: ListingState,
  ) {
    this.#list = list;
    this.#watch = watch;
    this.#state = state;
  }

  async search(
    query: string,
    options?: SearchToolsOptions & Record<string, unknown>,
  ): Promise<ToolSearchResult<T>[]> {
    if (typeof query !== "string" || query.length > MAX_QUERY) {
      throw new TypeError(`conduit-mcp: the query must be a string of at most ${MAX_QUERY} characters`);
    }
    const { limit = DEFAULT_SEARCH_LIMIT, servers, embed, ...listing } = checkSearchOptions(options);
    const { visible } = await this.#listing(listing);
    const rank = {
      ...(servers ? { servers: new Set(servers) } : {}),
      keep: (item: T) => visible.has(item.name),
    };
    const found = embed
      ? await blendedSearch(this.#index, query, embed, { ...rank, limit })
      : this.#index.search(query, limit, rank);
    return found.map((r) => ({ tool: r.item, score: r.score }));
  }

  /** The listing for this search: reused when nothing changed and the call adds no listing option. */
  async #listing(listing: Record<string, unknown>): Promise<{ tools: T[]; visible: Set<string> }> {
    const plain = Object.values(listing).every((v) => v === undefined);
    const held = this.#reuse;
    if (plain && held && (Date.now() - held.at < LISTING_REUSE_MS || this.#same(held.state))) return held;
    if (this.#watch && !this.#watching) {
      this.#watching = true;
      this.#watch(() => {
        this.#changes++;
        this.#reuse = null;
      });
    }
    const at = Date.now();
    const changes = this.#changes;
    const tools = await this.#list(listing);
    this.#sync(tools);
    // The listing is the truth: a tool it did not give (a filter of this call) is not found.
    const state = this.#state?.() ?? null;
    const fresh = { tools, visible: new Set(tools.map((t) => t.name)), at, state };
    // Only a plain listing stands for the next plain search, and only with change events heard.
    if (plain && this.#watching && changes === this.#changes) this.#reuse = fresh;
    return fresh;
  }

  /** Whether the owner's state is still `held` (never, when either is unknown). */
  #same(held: readonly unknown[] | null): boolean {
    if (held === null) return false;
    const now = this.#state?.() ?? null;
    return now !== null && now.length === held.length && now.every((v, i) => v === held[i]);
  }

  #sync(tools: readonly T[]): void {
    const byServer = new Map<string, SearchItem<T>[]>();
    for (const t of tools) {
      const list = byServer.get(t.serverId) ?? [];
      list.push({ name: t.name, serverId: t.serverId, tool: t.tool, item: t });
      byServer.set(t.serverId, list);
    }
    for (const id of this.#index.serverIds()) if (!byServer.has(id)) this.#index.removeServer(id);
    for (const [id, items] of byServer) this.#index.setServer(id, items);
  }
}

function checkSearchOptions(o: unknown): SearchToolsOptions & Record<string, unknown> {
  if (o === undefined) return {};
  if (typeof o !== "object" || o === null || Array.isArray(o)) {
    throw new OptionError("options", "invalid", "an object");
  }
  const r = o as SearchToolsOptions & Record<string, unknown>;
  if (r.limit !== undefined && (!Number.isSafeInteger(r.limit) || r.limit < 1 || r.limit > MAX_LIMIT)) {
    throw new OptionError("limit", "invalid", `an integer from 1 to ${MAX_LIMIT}`);
  }
  if (
    r.servers !== undefined &&
    (!Array.isArray(r.servers) || !r.servers.every((s) => typeof s === "string"))
  ) {
    throw new OptionError("servers", "invalid", "an array of server ids");
  }
  if (r.embed !== undefined && typeof r.embed !== "function") {
    throw new OptionError("embed", "invalid", "a function (texts) => Promise<number[][]>");
  }
  return r;
}
