/**
 * OAuth tokens in Redis, one refresh for the fleet. A refresh takes the key's lock (`SET NX PX`,
 * a random value, at most 30 s); the others wait for the holder's notice (or poll) and take its
 * tokens instead of spending a refresh token that was just rotated out. Writes are
 * compare-and-swap on a version the value carries (a Lua script), so a newer token is never
 * overwritten or deleted; the lock is released only by its holder (compare-and-delete). A
 * holder that dies leaves a lock that expires, and the next worker refreshes.
 */
import { randomUUID } from "node:crypto";
import { Secret } from "../shared/secret.js";
import type { StoredTokens, TokenEndpointAuthMethod, TokenKey, TokenStore } from "../stores/tokens.js";
import { RELEASE, type RedisConn, unavailable } from "./conn.js";
import { type Keys, tokenTag } from "./keys.js";
import { seal, unseal } from "./seal.js";

const WRITE = `local cur = redis.call('GET', KEYS[1])
local v = 0
if cur then v = tonumber(string.match(cur, '^(%d+):')) or 0 end
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= v then return -1 end
redis.call('SET', KEYS[1], (v + 1) .. ':' .. ARGV[2], 'PX', ARGV[3])
return v + 1`;

const DELETE = `local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local v = tonumber(string.match(cur, '^(%d+):')) or 0
if ARGV[1] ~= '' and tonumber(ARGV[1]) ~= v then return -1 end
redis.call('DEL', KEYS[1])
return 1`;

export interface TokenStoreOptions {
  /** How long a refresh lock lasts (at most 30 000 ms). */
  lockMs: number;
  /** How long tokens that can be refreshed are kept. */
  tokenTtlMs: number;
  /** How often a waiting worker looks again when no notice came. */
  pollMs: number;
  key: Buffer | undefined;
}

interface Versioned {
  tokens: StoredTokens;
  version: number;
}

export class RedisTokenStore implements TokenStore {
  readonly #c: RedisConn;
  readonly #k: Keys;
  readonly #o: TokenStoreOptions;
  /** The version this process last read of each key: a delete never removes a newer write. */
  readonly #seen = new Map<string, number>();
  readonly #waiters = new Map<string, Set<() => void>>();

  constructor(conn: RedisConn, keys: Keys, o: TokenStoreOptions) {
    this.#c = conn;
    this.#k = keys;
    this.#o = o;
    conn.onNotice((n) => {
      if (n.t !== "tok" || typeof n.k !== "string") return;
      for (const wake of this.#waiters.get(n.k) ?? []) wake();
    });
  }

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    return (await this.#read(key))?.tokens;
  }

  async set(key: TokenKey, tokens: StoredTokens): Promise<void> {
    await this.#write(key, tokens, undefined);
  }

  async delete(key: TokenKey): Promise<void> {
    const name = this.#k.token(key);
    const seen = this.#seen.get(name);
    await this.#c.run((c) =>
      c.eval(DELETE, { keys: [name], arguments: [seen === undefined ? "" : String(seen)] }),
    );
    this.#seen.delete(name);
  }

  async refreshOnce(
    key: TokenKey,
    stale: StoredTokens,
    refresh: (current: StoredTokens) => Promise<StoredTokens>,
  ): Promise<StoredTokens | undefined> {
    const lock = this.#k.tokenLock(key);
    const giveUp = Date.now() + 2 * this.#o.lockMs + 5_000;
    for (;;) {
      const cur = await this.#read(key);
      if (cur && newer(cur.tokens, stale)) return cur.tokens;
      const me = randomUUID();
      const got = await this.#c.run((c) =>
        c.set(lock, me, { expiration: { type: "PX", value: this.#o.lockMs }, condition: "NX" }),
      );
      if (got === "OK") return this.#refreshHolding(key, lock, me, stale, refresh);
      if (Date.now() >= giveUp) throw unavailable("refresh_wait");
      await this.#wait(tokenTag(key));
    }
  }

  async #refreshHolding(
    key: TokenKey,
    lock: string,
    me: string,
    stale: StoredTokens,
    refresh: (current: StoredTokens) => Promise<StoredTokens>,
  ): Promise<StoredTokens> {
    try {
      // Read again under the lock: a holder may have written between our read and our lock.
      const cur = await this.#read(key);
      if (cur && newer(cur.tokens, stale)) return cur.tokens;
      const fresh = await refresh(cur?.tokens ?? stale);
      try {
        await this.#write(key, fresh, cur?.version ?? 0);
      } catch {
        // Ours are good tokens still: used here, and written when Redis answers again (unless
        // a newer write got there first: the version check).
        this.#c.write("tokens", (c) => this.#writeCommand(c, key, fresh, cur?.version ?? 0));
      }
      return fresh;
    } finally {
      this.#c
        .run((c) => c.eval(RELEASE, { keys: [lock], arguments: [me] }))
        .catch(() => {
          // Not released: it expires by itself within lockMs.
        });
    }
  }

  /** Until a notice about this key arrives, or the poll interval passes. */
  #wait(tag: string): Promise<void> {
    return new Promise((resolve) => {
      let set = this.#waiters.get(tag);
      if (!set) {
        set = new Set();
        this.#waiters.set(tag, set);
      }
      const done = () => {
        clearTimeout(timer);
        set.delete(done);
        if (set.size === 0) this.#waiters.delete(tag);
        resolve();
      };
      const timer = setTimeout(done, this.#o.pollMs);
      set.add(done);
    });
  }

  async #read(key: TokenKey): Promise<Versioned | undefined> {
    const name = this.#k.token(key);
    const raw = await this.#c.read("tokens", name);
    if (raw === undefined) return undefined;
    // `<version>:<value>`, as WRITE makes it: anything else is not this store's.
    const m = /^(\d{1,15}):/.exec(raw);
    const text = m ? unseal(this.#o.key, raw.slice(m[0].length), name) : undefined;
    const tokens = text === undefined ? undefined : fromJson(text);
    if (!tokens) {
      this.#c.reject("tokens", "malformed");
      return undefined;
    }
    const version = Number(m?.[1]);
    this.#seen.set(name, version);
    return { tokens, version };
  }

  async #write(key: TokenKey, tokens: StoredTokens, expected: number | undefined): Promise<void> {
    const v = await this.#c.run((c) => this.#writeCommand(c, key, tokens, expected));
    if (typeof v === "number" && v > 0) {
      this.#seen.set(this.#k.token(key), v);
      await this.#c.notify({ t: "tok", k: tokenTag(key) }).catch(() => {});
    }
  }

  #writeCommand(
    c: { eval(s: string, o: { keys: string[]; arguments: string[] }): Promise<unknown> },
    key: TokenKey,
    tokens: StoredTokens,
    expected: number | undefined,
  ): Promise<unknown> {
    const name = this.#k.token(key);
    const ttl =
      tokens.refreshToken || tokens.expiresAt === undefined
        ? this.#o.tokenTtlMs
        : Math.max(1_000, tokens.expiresAt - Date.now() + 60_000);
    const value = seal(this.#o.key, toJson(tokens), name);
    if (!this.#c.fits("tokens", value)) return Promise.resolve(0);
    return c.eval(WRITE, {
      keys: [name],
      arguments: [expected === undefined ? "" : String(expected), value, String(Math.round(ttl))],
    });
  }

  toJSON(): { store: string } {
    return { store: "redis" };
  }
}

/** Other tokens than the stale ones: another holder refreshed (or authorized) since. */
function newer(t: StoredTokens, stale: StoredTokens): boolean {
  return t.accessToken.reveal() !== stale.accessToken.reveal();
}

function toJson(t: StoredTokens): string {
  return JSON.stringify({
    a: t.accessToken.reveal(),
    r: t.refreshToken?.reveal(),
    y: t.tokenType,
    e: t.expiresAt,
    s: t.scope,
    c: t.client && {
      i: t.client.clientId,
      s: t.client.clientSecret?.reveal(),
      m: t.client.tokenEndpointAuthMethod,
    },
  });
}

/** What a token may hold: it goes into an `Authorization` header as it is (as grants.ts checks). */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;
const METHODS: readonly unknown[] = ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"];

/** The JSON a token value holds (short names: it is sealed whole). */
interface Sealed {
  a?: unknown;
  r?: unknown;
  y?: unknown;
  e?: unknown;
  s?: unknown;
  c?: { i?: unknown; s?: unknown; m?: unknown };
}

function fromJson(text: string): StoredTokens | undefined {
  try {
    const o = JSON.parse(text) as Sealed;
    if (typeof o !== "object" || o === null) return undefined;
    if (typeof o.a !== "string" || !VISIBLE_ASCII.test(o.a)) return undefined;
    if (o.y !== "Bearer" && o.y !== "DPoP") return undefined;
    if (o.c && (typeof o.c.i !== "string" || !METHODS.includes(o.c.m))) return undefined;
    return {
      accessToken: new Secret(o.a),
      ...(typeof o.r === "string" && VISIBLE_ASCII.test(o.r) ? { refreshToken: new Secret(o.r) } : {}),
      tokenType: o.y as "Bearer" | "DPoP",
      ...(typeof o.e === "number" && Number.isFinite(o.e) ? { expiresAt: o.e } : {}),
      ...(typeof o.s === "string" ? { scope: o.s } : {}),
      ...(o.c && typeof o.c.i === "string"
        ? {
            client: {
              clientId: o.c.i as string,
              ...(typeof o.c.s === "string" ? { clientSecret: new Secret(o.c.s) } : {}),
              tokenEndpointAuthMethod: o.c.m as TokenEndpointAuthMethod,
            },
          }
        : {}),
    };
  } catch {
    return undefined;
  }
}
