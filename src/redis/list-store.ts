/**
 * Lists in Redis, each under its server's hash tag, kept for its `ttlMs` (`PX`). A change is
 * published on the fleet's channel; every holder's `watch` listeners hear it. A failed read is
 * a miss (the client asks the server); a failed write is retried in the background.
 */
import type { ListCacheStore, ListChangeListener, ListKey, ListKind, StoredList } from "../stores/lists.js";
import type { RedisConn } from "./conn.js";
import type { Keys } from "./keys.js";

const KINDS: readonly ListKind[] = ["tools", "resources", "resourceTemplates", "prompts"];

export class RedisListCacheStore implements ListCacheStore {
  readonly #c: RedisConn;
  readonly #k: Keys;
  readonly #listeners = new Set<ListChangeListener>();

  constructor(conn: RedisConn, keys: Keys) {
    this.#c = conn;
    this.#k = keys;
    conn.onNotice((n) => {
      if (n.t !== "list" || typeof n.s !== "string" || typeof n.o !== "string") return;
      if (!KINDS.includes(n.k as ListKind) || (n.i !== null && typeof n.i !== "string")) return;
      const key: ListKey = { server: n.s, kind: n.k as ListKind, identity: n.i as string | null };
      for (const l of this.#listeners) l(key, n.o);
    });
  }

  async get(key: ListKey): Promise<StoredList | undefined> {
    const raw = await this.#c.read("lists", this.#k.list(key));
    if (raw === undefined) return undefined;
    const l = storedList(raw);
    if (!l) this.#c.reject("lists", "malformed");
    return l && Date.now() < l.fetchedAt + l.ttlMs ? l : undefined;
  }

  set(key: ListKey, list: StoredList, origin?: string): void {
    const name = this.#k.list(key);
    const ttl = Math.round(list.fetchedAt + list.ttlMs - Date.now());
    const value = ttl > 0 ? JSON.stringify(list) : undefined;
    if (value !== undefined && this.#c.fits("lists", value)) {
      this.#c.write("lists", (c) => c.set(name, value, { expiration: { type: "PX", value: ttl } }));
      // Wakes the workers waiting on a claim of this list (they read it now).
      const filled = JSON.stringify({ t: "filled", s: key.server, k: key.kind });
      this.#c.write("lists", (c) => c.publish(this.#k.channel, filled));
    }
    if (origin !== undefined) this.#tell(key, origin);
  }

  claim(key: ListKey, ms: number): Promise<(() => void) | null> {
    return this.#c.claim(
      this.#k.listClaim(key),
      (n) => n.t === "filled" && n.s === key.server && n.k === key.kind,
      ms,
    );
  }

  delete(key: ListKey, origin: string): void {
    const name = this.#k.list(key);
    this.#c.write("lists", (c) => c.del(name));
    this.#tell(key, origin);
  }

  watch(listener: ListChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** After the write (one connection, in order): whoever hears it reads the new list. */
  #tell(key: ListKey, origin: string): void {
    const notice = { t: "list", s: key.server, k: key.kind, i: key.identity, o: origin };
    this.#c.write("lists", (c) => c.publish(this.#k.channel, JSON.stringify(notice)));
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The list a value holds when it has the shape the store writes (pages of objects), else undefined. */
function storedList(raw: string): StoredList | undefined {
  let l: unknown;
  try {
    l = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isRecord(l) || !Array.isArray(l.pages) || !l.pages.every(isRecord)) return undefined;
  if (!Number.isFinite(l.fetchedAt) || !Number.isFinite(l.ttlMs)) return undefined;
  return l.scope === "public" || l.scope === "private" ? (l as unknown as StoredList) : undefined;
}
