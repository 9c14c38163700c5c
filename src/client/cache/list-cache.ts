import { McpClientError } from "../../shared/errors.js";
import type { Telemetry } from "../../telemetry/events.js";

export type CacheKind = "tools" | "resources" | "resourceTemplates" | "prompts";

/**
 * Whose credentials a private result was fetched with. `none`: no credentials at all;
 * `id`: a digest naming them (never a token); `unknown`: an auth function that may return anyone's
 * token, so private results are never served from the cache.
 */
export type CredentialIdentity = { kind: "none" } | { kind: "id"; id: string } | { kind: "unknown" };

/** What one walk over every page brought back. */
export interface Fetched<T> {
  items: T[];
  pages: number;
  rejected: number;
  /** The smallest `ttlMs` over the pages (0 when any page had none or a bad one). */
  ttlMs: number;
  /** Public only when every page said `"public"`. */
  scope: "public" | "private";
}

interface Entry<T> {
  items: T[];
  fetchedAt: number;
  ttlMs: number;
  scope: "public" | "private";
  identity: string | null;
  stale: boolean;
}

export interface ListCacheOptions {
  maxCacheTtl: number;
  identity: () => CredentialIdentity;
  /** Changes whenever the credentials do (even back to earlier ones). */
  credentialGeneration: () => number;
  telemetry: Telemetry;
  /** Errors of background refreshes (nobody waits for them) go here. */
  warn: (text: string) => void;
}

/** Walks per refresh when list_changed keeps arriving during them. */
const MAX_WALKS = 3;

const identityKey = (i: CredentialIdentity): string | null => (i.kind === "id" ? i.id : null);

/**
 * The client's lists, read synchronously. A list is fresh for its `ttlMs` (clamped to
 * `maxCacheTtl`); one refresh runs at a time per kind, shared by every caller, and completes
 * even when its callers stop waiting. Nothing polls.
 */
export class ListCache<T> {
  readonly #kind: CacheKind;
  readonly #o: ListCacheOptions;
  /** `shared`: a list the store holds may be served (false: only the server's word will do). */
  readonly #fetch: (shared: boolean) => Promise<Fetched<T>>;
  /** The next refresh must ask the server (refresh: true, list_changed), not a shared store. */
  #bypass = false;
  #entry: Entry<T> | undefined;
  #refreshing: Promise<T[]> | undefined;
  #everFetched = false;
  #generation = 0;
  /** Counts list_changed notifications: a walk that saw one arrive is out of date when it ends. */
  #changes = 0;

  /** Which list this is. */
  get kind(): CacheKind {
    return this.#kind;
  }

  constructor(kind: CacheKind, options: ListCacheOptions, fetch: (shared: boolean) => Promise<Fetched<T>>) {
    this.#kind = kind;
    this.#o = options;
    this.#fetch = fetch;
  }

  /** True once a listing of this kind was asked for: its changes are worth hearing about. */
  get everFetched(): boolean {
    return this.#everFetched;
  }

  /** The cached list when it may be served to the current credentials, fresh or not. */
  peek(): T[] | undefined {
    const e = this.#entry;
    if (!e || !this.#servable(e)) return undefined;
    return e.items;
  }

  /** Serves a fresh list, or refreshes (sharing a refresh already running). */
  get(refresh: boolean): Promise<T[]> {
    this.#everFetched = true;
    const e = this.#entry;
    if (!refresh && e && !e.stale && this.#servable(e) && Date.now() < e.fetchedAt + e.ttlMs) {
      return Promise.resolve(e.items);
    }
    if (refresh) this.#bypass = true;
    return this.refresh("demand");
  }

  /**
   * Starts (or joins) a refresh. It is shared and runs to its end even when every caller stops
   * waiting (a timeout, an abort), so it carries a handler of its own: a failure is each waiter's
   * to hear, and nobody's (never an unhandled rejection) when none waits any more.
   */
  refresh(trigger: "demand" | "list_changed"): Promise<T[]> {
    if (this.#refreshing) return this.#refreshing;
    const run: Promise<T[]> = this.#run(trigger).finally(() => {
      if (this.#refreshing === run) this.#refreshing = undefined;
    });
    run.catch(() => {});
    this.#refreshing = run;
    return run;
  }

  /** A list_changed arrived: stale now, and refreshed in the background if it was ever fetched. */
  changed(): void {
    this.#bypass = true;
    this.#changes += 1;
    if (this.#entry) this.#entry.stale = true;
    if (this.#everFetched) {
      this.refresh("list_changed").catch((err) => {
        this.#o.warn(`refreshing the ${this.#kind} list after list_changed failed: ${String(err)}`);
      });
    }
  }

  /**
   * Another client sharing the list store changed this list: stale now, and read again (from
   * the store, which holds the new one) if it was ever fetched.
   */
  sharedChanged(): void {
    if (this.#entry) this.#entry.stale = true;
    if (this.#everFetched) {
      this.refresh("list_changed").catch((err) => {
        this.#o.warn(`refreshing the ${this.#kind} list after a shared change failed: ${String(err)}`);
      });
    }
  }

  /** The connection was lost: what we hold may be out of date. */
  markStale(): void {
    if (this.#entry) this.#entry.stale = true;
  }

  /**
   * Credentials changed: private lists are deleted at once; a refresh in flight is ignored (what
   * it brings is kept by nobody) and the next caller starts a new one.
   */
  dropPrivate(): void {
    if (this.#entry?.scope === "private") this.#entry = undefined;
    this.#generation += 1;
    this.#refreshing = undefined;
  }

  #servable(e: Entry<T>): boolean {
    if (e.scope === "public") return true;
    const current = this.#o.identity();
    if (current.kind === "unknown") return false;
    return e.identity === identityKey(current);
  }

  async #run(trigger: "demand" | "list_changed"): Promise<T[]> {
    const tel = this.#o.telemetry;
    const generation = this.#generation;
    const credentials = this.#o.credentialGeneration();
    const identity = this.#o.identity();
    tel.emit("cache:refresh:start", () => ({ kind: this.#kind, trigger }));
    try {
      let fetched: Fetched<T>;
      let walks = 0;
      let shared = !this.#bypass;
      this.#bypass = false;
      for (;;) {
        const changes = this.#changes;
        fetched = await this.#fetch(shared);
        shared = false;
        walks += 1;
        if (changes === this.#changes) break;
        // A list_changed arrived during the walk: its pages may mix two versions of the list.
        // It is discarded and the list walked again (a bounded number of times: a server that
        // never stops changing gets its last walk served, uncached).
        if (walks >= MAX_WALKS) {
          tel.emit("cache:refresh:stop", () => ({
            kind: this.#kind,
            trigger,
            status: "ok",
            errorKind: null,
            count: fetched.items.length,
            pages: fetched.pages,
            rejected: fetched.rejected,
          }));
          return fetched.items;
        }
      }
      const ttlMs = Math.min(Math.max(0, fetched.ttlMs), this.#o.maxCacheTtl);
      // Private results of unknown credentials are never kept; nor is a refresh that started
      // under credentials that have since been replaced.
      const sameCredentials =
        generation === this.#generation && credentials === this.#o.credentialGeneration();
      const keep = sameCredentials && (fetched.scope === "public" || identity.kind !== "unknown");
      // A list built by push has room for more than it holds (16 more for a short one): the kept
      // one is a copy of its size, handed out from now on (~130 B per client, issue 26).
      const items = keep ? fetched.items.slice() : fetched.items;
      if (keep) {
        this.#entry = {
          items,
          fetchedAt: Date.now(),
          ttlMs,
          scope: fetched.scope,
          identity: identityKey(identity),
          stale: false,
        };
      }
      tel.emit("cache:refresh:stop", () => ({
        kind: this.#kind,
        trigger,
        status: "ok",
        errorKind: null,
        count: fetched.items.length,
        pages: fetched.pages,
        rejected: fetched.rejected,
      }));
      return items;
    } catch (err) {
      tel.emit("cache:refresh:stop", () => ({
        kind: this.#kind,
        trigger,
        status: "error",
        errorKind: err instanceof McpClientError ? err.kind : null,
        count: 0,
        pages: 0,
        rejected: 0,
      }));
      throw err;
    }
  }
}

/** `ttlMs` as the cache reads it: a missing, negative or non-integer value means 0. */
export function readTtl(v: unknown): number {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 0;
}
