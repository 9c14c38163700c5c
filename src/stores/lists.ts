/**
 * The list store: the raw pages of a server's tool, resource, template and prompt lists, with
 * their expiry (`ttlMs`), `cacheScope` and whose credentials fetched them. Each client still
 * runs its own intake over the pages (its own rules); the store only saves the server a listing.
 */

type Awaitable<T> = T | Promise<T>;

export type ListKind = "tools" | "resources" | "resourceTemplates" | "prompts";

/** One list of one server, for one identity (`null`: public, anyone may read it). */
export interface ListKey {
  /**
   * Names the server: the client's `serverId` and where it connects (its URL, or its command),
   * so two servers given the same id never share a list.
   */
  server: string;
  kind: ListKind;
  /** The credential identity (a digest, never a token) a private list was fetched with. */
  identity: string | null;
}

/** A complete walk over every page of one list. */
export interface StoredList {
  /** Each page's result as the server sent it (JSON). */
  pages: Array<Record<string, unknown>>;
  /** Epoch milliseconds. */
  fetchedAt: number;
  /** How long it is fresh; the store may forget it after that. */
  ttlMs: number;
  scope: "public" | "private";
}

/** Who changed or dropped a list: `origin` names the client that did, so it can skip its own news. */
export type ListChangeListener = (key: ListKey, origin: string) => void;

export interface ListCacheStore {
  /** The list under `key` while it is fresh. */
  get(key: ListKey): Awaitable<StoredList | undefined>;
  /**
   * Keeps a list until its `ttlMs` passes (a list with `ttlMs` 0 is not kept). With `origin`
   * (the list changed, not merely fetched), the store's readers are told.
   */
  set(key: ListKey, list: StoredList, origin?: string): Awaitable<void>;
  /** Forgets a list and tells the other readers of the store. */
  delete(key: ListKey, origin: string): Awaitable<void>;
  /** Hears sets and deletes made by anyone; returns the function that stops hearing. */
  watch(listener: ListChangeListener): () => void;
  /**
   * Optional: one listing per fleet. Called on a miss, before the server is asked: resolves a
   * release function when the caller should list (it holds the claim for `ms`, and releases it
   * when done, whatever happened), null once another holder's list landed, the claim was
   * released or lapsed, or `ms` passed (the caller reads the store again, and lists itself on a
   * second miss). `key.identity` is the caller's own (the list's scope is not known yet).
   */
  claim?(key: ListKey, ms: number): Promise<(() => void) | null>;
}

const slot = (k: ListKey): string => JSON.stringify([k.server, k.kind, k.identity]);

/** Lists in a Map of this process; clients given the same one share listings and changes. */
export class MemoryListCacheStore implements ListCacheStore {
  readonly #lists = new Map<string, StoredList>();
  readonly #listeners = new Set<ListChangeListener>();

  get(key: ListKey): StoredList | undefined {
    const s = slot(key);
    const l = this.#lists.get(s);
    if (l && Date.now() >= l.fetchedAt + l.ttlMs) {
      this.#lists.delete(s);
      return undefined;
    }
    return l;
  }

  set(key: ListKey, list: StoredList, origin?: string): void {
    if (list.ttlMs > 0) this.#lists.set(slot(key), list);
    if (origin !== undefined) this.#tell(key, origin);
  }

  delete(key: ListKey, origin: string): void {
    this.#lists.delete(slot(key));
    this.#tell(key, origin);
  }

  watch(listener: ListChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #tell(key: ListKey, origin: string): void {
    for (const l of this.#listeners) l(key, origin);
  }
}
