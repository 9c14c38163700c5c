/**
 * What the era store (`stores.eras`) holds of a server: read before a connect, so a client that
 * shares the store starts where another one left off (no probe), and written after a handshake.
 * A store that fails or is slow is as good as empty: the client probes, as it would alone.
 */
import type { Implementation, JsonObject } from "../shared/guards.js";
import { isImplementation, isObject } from "../shared/guards.js";
import type { EraRecord, EraStore } from "../stores/eras.js";
import { waitWithin } from "../util/wait.js";

/** A negotiated session as the negotiator keeps it (its `Session`, without importing it). */
export interface KnownSession {
  era: "modern" | "legacy";
  version: string;
  serverInfo: Implementation | null;
  capabilities: JsonObject;
  instructions: string | null;
  supportedVersions: string[] | null;
}

export interface KnownEras {
  store: EraStore;
  /** Names the server in the store (the client's `serverId`). */
  key: string;
}

/** How long a record is used when the server gave no `ttlMs`. */
export const DEFAULT_ERA_TTL = 3_600_000;
/** The longest a read may take before the client probes instead. */
const READ_TIMEOUT = 1_000;

/**
 * The record of the server, if the store has a usable one within the read timeout. `tries`: how
 * many reads a store that fails or is slow gets (a waiter whose holder has just written the
 * record asks again rather than probe on one slow read of a loaded host).
 */
export async function readEra(k: KnownEras, tries = 1): Promise<EraRecord | undefined> {
  let r: EraRecord | undefined | null = null;
  for (let i = 0; i < tries && r === null; i++) r = await readOnce(k);
  if (!r || (r.era !== "modern" && r.era !== "legacy") || typeof r.version !== "string") return undefined;
  if (Date.now() >= r.at + r.ttlMs || !isObject(r.capabilities)) return undefined;
  return r;
}

/** One read: the record, undefined when the store has none, null when it failed or was late. */
function readOnce(k: KnownEras): Promise<EraRecord | undefined | null> {
  return waitWithin(async () => k.store.get(k.key), READ_TIMEOUT).catch(() => null);
}

/**
 * One probe per fleet: the release function when this client should negotiate (no claims, a
 * failing store, or the claim is ours), null when another client's record is in (or its claim
 * ended): read again then. Bounded, whatever the store does.
 */
export async function claimEra(k: KnownEras, ms: number): Promise<(() => void) | null> {
  const claim = k.store.claim;
  if (!claim) return () => {};
  return waitWithin(async () => claim.call(k.store, k.key, ms), ms + READ_TIMEOUT).catch(() => () => {});
}

/** Keeps a negotiated session (nobody waits; a failed write only loses the sharing). */
export function writeEra(k: KnownEras, s: KnownSession, ttlMs: number | undefined): void {
  const record: EraRecord = {
    era: s.era,
    version: s.version,
    capabilities: s.capabilities,
    serverInfo: s.serverInfo,
    instructions: s.instructions,
    supportedVersions: s.supportedVersions,
    at: Date.now(),
    ttlMs: ttlMs !== undefined && Number.isSafeInteger(ttlMs) && ttlMs > 0 ? ttlMs : DEFAULT_ERA_TTL,
  };
  forget(() => k.store.set(k.key, record));
}

/** Drops a record the server contradicted. */
export function dropEra(k: KnownEras): void {
  forget(() => k.store.delete(k.key));
}

/** A modern session as the record has it: no request needed (server/discover is optional). */
export function sessionOf(r: EraRecord): KnownSession {
  return {
    era: "modern",
    version: r.version,
    serverInfo: isImplementation(r.serverInfo) ? (r.serverInfo as Implementation) : null,
    capabilities: r.capabilities as JsonObject,
    instructions: typeof r.instructions === "string" ? r.instructions : null,
    supportedVersions: Array.isArray(r.supportedVersions) ? r.supportedVersions : null,
  };
}

function forget(fn: () => unknown): void {
  try {
    const p = fn();
    if (p instanceof Promise) p.catch(() => {});
  } catch {
    // The store reports its own failures.
  }
}
