/**
 * The client's side of a shared list store (`stores.lists`): where a list is read from before
 * the server is asked, where a walk is written after, and the key private lists go under. A
 * store that fails or is slow is a miss (the server is asked); a failed write loses nothing but
 * the sharing, so nobody waits for it.
 */
import type { ListCacheStore, ListKey, ListKind, StoredList } from "../../stores/lists.js";
import { waitWithin } from "../../util/wait.js";
import type { CredentialIdentity } from "./list-cache.js";

export interface SharedLists {
  store: ListCacheStore;
  /** Names this client in the store's change notices, so it skips its own. */
  origin: string;
  /** The lists' `server` key: the client's serverId and endpoint. */
  server: string;
}

/** The longest a list read from the store may take before the server is asked instead. */
export const SHARED_READ_TIMEOUT = 1_000;

/**
 * The key's identity of a list of `scope` fetched with `identity`: null for a public one, the
 * credential digest (or `"none"`) for a private one, undefined when it may not be shared (an
 * auth function without a declared id: whose list it is cannot be known).
 */
export function sharedIdentity(
  scope: "public" | "private",
  identity: CredentialIdentity,
): string | null | undefined {
  if (scope === "public") return null;
  if (identity.kind === "id") return identity.id;
  return identity.kind === "none" ? "none" : undefined;
}

/**
 * A fresh list the store holds for these credentials: the public one first, else their own.
 * `tries`: how many reads a store that fails or is slow gets.
 */
export async function readShared(
  s: SharedLists,
  kind: ListKind,
  identity: CredentialIdentity,
  tries = 1,
): Promise<StoredList | undefined> {
  let l: StoredList | undefined | null = null;
  for (let i = 0; i < tries && l === null; i++) l = await readOnce(s, kind, identity);
  if (!l || !Array.isArray(l.pages) || Date.now() >= l.fetchedAt + l.ttlMs) return undefined;
  return l;
}

/** One read: the list, undefined when the store has none, null when it failed or was late. */
async function readOnce(
  s: SharedLists,
  kind: ListKind,
  identity: CredentialIdentity,
): Promise<StoredList | undefined | null> {
  const own = sharedIdentity("private", identity);
  const get = async (id: string | null) => {
    const l = await s.store.get({ server: s.server, kind, identity: id });
    // A store must never hand a private list to a key it was not written under; checked anyway.
    if (l && id === null && l.scope !== "public") return undefined;
    return l;
  };
  const read = async () =>
    Promise.all([get(null), own === undefined ? undefined : get(own)]).then(([pub, priv]) => pub ?? priv);
  return waitWithin(read, SHARED_READ_TIMEOUT).catch(() => null);
}

/**
 * One listing per fleet: the list another client keeps, or the release of the claim this client
 * took to list it (neither: list without a claim, the store failing). A wait that ends with no
 * list (the lister slower than the wait, a slow read) claims again: a claim still held means
 * wait more. At most three rounds, none begun after half of `timeout`. A claim won is checked
 * against the store once more before listing.
 */
export async function sharedOrClaim(
  s: SharedLists,
  kind: ListKind,
  identity: CredentialIdentity,
  timeout: number,
): Promise<{ hit?: StoredList; release?: () => void }> {
  let hit = await readShared(s, kind, identity);
  const until = Date.now() + timeout / 2;
  for (let round = 0; !hit && round < 3 && (round === 0 || Date.now() < until); round++) {
    const lead = await claimShared(s, kind, identity, Math.min(timeout, 5_000));
    if (lead) {
      // Checked again under the claim: a lister may have written its list and released between
      // this client's read and its claim (a second listing otherwise).
      hit = await readShared(s, kind, identity);
      if (!hit) return { release: lead };
      lead();
      break;
    }
    hit = await readShared(s, kind, identity, 3);
  }
  return hit ? { hit } : {};
}

/**
 * One listing per fleet: the release function when this client should list (the store has no
 * claims, fails, or gave it the claim), null when another client's listing is in (or its claim
 * ended): read the store again then. Bounded, whatever the store does.
 */
export async function claimShared(
  s: SharedLists,
  kind: ListKind,
  identity: CredentialIdentity,
  ms: number,
): Promise<(() => void) | null> {
  const own = sharedIdentity("private", identity);
  const claim = s.store.claim;
  if (!claim || own === undefined) return () => {};
  const key = { server: s.server, kind, identity: own };
  return waitWithin(async () => claim.call(s.store, key, ms), ms + SHARED_READ_TIMEOUT).catch(() => () => {});
}

/** Keeps a walk in the store (nobody waits); `tell`: the other clients hear it changed. */
export function writeShared(
  s: SharedLists,
  key: Omit<ListKey, "server">,
  list: StoredList,
  tell: boolean,
): void {
  try {
    const done = s.store.set({ server: s.server, ...key }, list, tell ? s.origin : undefined);
    if (done instanceof Promise) done.catch(() => {});
  } catch {
    // The store reports its own failures; the list is still served from memory.
  }
}

/**
 * A stored list's items, page after page, and each page's item count; undefined when the store
 * holds what no client of these limits would have written (a page that is not an object or has no
 * such list, more pages or items than the client's limits): a miss, the server is asked. The
 * store is anyone's code and anyone with write access to it (docs/fleet.md).
 */
export function storedItems(
  hit: StoredList,
  kind: ListKind,
  limits: { maxPages: number; maxItems: number },
): { raw: unknown[]; sizes: number[] } | undefined {
  if (hit.pages.length > limits.maxPages) return undefined;
  const raw: unknown[] = [];
  const sizes: number[] = [];
  for (const page of hit.pages) {
    const items = typeof page === "object" && page !== null ? page[kind] : undefined;
    if (!Array.isArray(items) || raw.length + items.length > limits.maxItems) return undefined;
    for (const item of items) raw.push(item);
    sizes.push(items.length);
  }
  return { raw, sizes };
}

/** Deletes the private lists kept under `identities` (the other clients hear it); nobody waits. */
export function dropShared(s: SharedLists, identities: Iterable<string>, kinds: readonly ListKind[]): void {
  for (const identity of identities) {
    for (const kind of kinds) {
      Promise.resolve()
        .then(() => s.store.delete({ server: s.server, kind, identity }, s.origin))
        .catch(() => {});
    }
  }
}
