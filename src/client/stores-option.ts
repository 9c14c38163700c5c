/**
 * The `stores` and `rateLimit` options: what a client shares with the other clients (and
 * workers) given the same stores. Checked once, when the client is made.
 */
import type { RateLimit, Stores } from "../stores/index.js";
import { checkObject, fail, isPlainObject } from "../util/option-check.js";

/** The methods each store must have (a missing store is the in-memory default). */
const METHODS = {
  tokens: ["get", "set", "delete"],
  grants: ["get", "latest", "put", "revoke"],
  lists: ["get", "set", "delete", "watch"],
  eras: ["get", "set", "delete"],
  budgets: ["take"],
} as const;

/** Checks `stores`: an object whose members, when given, have their store's methods. */
/** One for every client given no stores (read, never written). */
const NO_STORES: Stores = Object.freeze({});

export function resolveStores(v: unknown, path: string): Stores {
  if (v === undefined) return NO_STORES;
  const o = checkObject(v, path) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, methods] of Object.entries(METHODS)) {
    const s = o[name];
    if (s === undefined) continue;
    if (typeof s !== "object" || s === null) fail(`${path}.${name}`, `an object with ${methods.join(", ")}`);
    for (const m of methods) {
      if (typeof (s as Record<string, unknown>)[m] !== "function") {
        fail(`${path}.${name}`, `an object with ${methods.join(", ")}`);
      }
    }
    out[name] = s;
  }
  return out as Stores;
}

/**
 * How shared stores name a server: the serverId and where it connects (an HTTP URL, a stdio
 * command and its arguments), so two servers given one id never share lists or an era.
 */
export function storeKeyOf(serverId: string, transport: unknown): string {
  const t = isPlainObject(transport) ? transport : {};
  const where =
    t.type === "http" && typeof t.url === "string"
      ? t.url
      : t.type === "stdio"
        ? JSON.stringify([t.command, t.args ?? []])
        : "";
  const key = JSON.stringify([serverId, where]);
  // Clients of one server share the string (~100-160 B each, issue 26); bounded like a cache.
  const known = storeKeys.get(key);
  if (known !== undefined) return known;
  if (storeKeys.size >= 256) storeKeys.clear();
  storeKeys.set(key, key);
  return key;
}

const storeKeys = new Map<string, string>();

/** `{ requests, perMs }`: positive integers, or none. */
export function resolveRateLimit(v: unknown, path: string): RateLimit | null {
  if (v === undefined || v === null) return null;
  if (!isPlainObject(v)) fail(path, "{ requests, perMs } (positive integers)");
  const { requests, perMs } = v as Record<string, unknown>;
  for (const [k, n] of [
    ["requests", requests],
    ["perMs", perMs],
  ] as const) {
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1)
      fail(`${path}.${k}`, "a positive integer");
  }
  return { requests: requests as number, perMs: perMs as number };
}
