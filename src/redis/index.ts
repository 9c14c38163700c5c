/**
 * `conduit-mcp/redis`: the stores a fleet shares (docs/fleet.md), on Redis through node-redis
 * (the `redis` package, an optional peer loaded here only, when a URL is given). Every store,
 * the tokens encrypted at rest when an `encryptionKey` is given; `close()` ends the connections
 * it opened (a client you gave stays yours, only its pub/sub duplicate is closed).
 */
import { McpClientError } from "../shared/errors.js";
import { OptionError } from "../shared/option-error.js";
import type { Stores } from "../stores/index.js";
import { RedisBudgetStore } from "./budget-store.js";
import { type RedisClientLike, RedisConn, type RedisStoreEvent } from "./conn.js";
import { RedisEraStore } from "./era-store.js";
import { RedisGrantStore } from "./grant-store.js";
import { Keys } from "./keys.js";
import { RedisListCacheStore } from "./list-store.js";
import { sealKey } from "./seal.js";
import { RedisTokenStore } from "./token-store.js";

export type { RedisStoreEvent } from "./conn.js";

/** Where Redis is: a URL (`redis://`, `rediss://`), or a node-redis client you made (connected or not). */
export type RedisTarget = { url: string } | { client: object };

export interface RedisStoresOptions {
  /** The application's key prefix: every key starts with `${prefix}:`. Required. */
  prefix: string;
  /** Encrypts tokens at rest (AES-256-GCM): 32 bytes, or a string of 16+ characters. Default: none. */
  encryptionKey?: string | Uint8Array;
  /** The longest one Redis command may take before it counts as failed. Default 250 ms. */
  commandTimeout?: number;
  /** How long a token refresh lock lasts. Default 10 000 ms; at most 30 000. */
  lockMs?: number;
  /** How long refreshable tokens are kept. Default 30 days. */
  tokenTtlMs?: number;
  /** How long grants are kept after a server's last one. Default 24 hours. */
  grantTtlMs?: number;
  /** Background retries of a failed write. Default 5. */
  maxWriteRetries?: number;
  /**
   * The longest value a store reads or writes (a tools listing, a token set), in bytes: a longer
   * value is not written, and one found in Redis is left there unread (`value_rejected`).
   * Default 32 MiB.
   */
  maxValueBytes?: number;
  /** How long connecting may take. Default 5 000 ms. */
  connectTimeout?: number;
}

/** Every store on Redis, and the connections they share. */
export interface RedisStores extends Required<Stores> {
  /** Hears failed and recovered writes and connection errors. Returns the unsubscribe function. */
  on(listener: (event: RedisStoreEvent) => void): () => void;
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

export async function redisStores(target: RedisTarget, options: RedisStoresOptions): Promise<RedisStores> {
  const o = checkOptions(target, options);
  const owned = "url" in target;
  const client = owned ? await fromUrl(target.url, o.connectTimeout) : (target.client as RedisClientLike);
  const keys = new Keys(options.prefix);
  let sub: RedisClientLike | undefined;
  const conn = (s: RedisClientLike | undefined) =>
    new RedisConn(
      client,
      s,
      {
        commandTimeout: o.commandTimeout,
        channel: keys.channel,
        maxWriteRetries: o.maxWriteRetries,
        maxValueBytes: o.maxValueBytes,
      },
      owned,
    );
  try {
    if (!owned && client.isOpen === false) await client.connect();
    sub = client.duplicate();
    sub.on("error", () => {});
    await withTimeout(sub.connect(), o.connectTimeout);
  } catch (err) {
    await conn(sub).close();
    throw new McpClientError(
      "unavailable",
      "store_unavailable",
      { store: "redis", why: "connect" },
      { cause: err },
    );
  }
  const c = conn(sub);
  const report = (err: unknown) =>
    c.emit({ type: "connection_error", error: err instanceof Error ? err.message : String(err) });
  client.on("error", report);
  sub.on("error", report);
  await c.listen();
  const key = options.encryptionKey === undefined ? undefined : sealKey(options.encryptionKey);
  const close = () => c.close();
  return {
    tokens: new RedisTokenStore(c, keys, { lockMs: o.lockMs, tokenTtlMs: o.tokenTtlMs, pollMs: 100, key }),
    grants: new RedisGrantStore(c, keys, o.grantTtlMs),
    lists: new RedisListCacheStore(c, keys),
    eras: new RedisEraStore(c, keys),
    budgets: new RedisBudgetStore(c, keys),
    on: (listener) => c.on(listener),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A node-redis client for `url` that fails commands at once while disconnected (no offline queue). */
async function fromUrl(url: string, connectTimeout: number): Promise<RedisClientLike> {
  let mod: typeof import("redis");
  try {
    mod = await import("redis");
  } catch (err) {
    throw new McpClientError("unavailable", "dependency_missing", undefined, {
      cause: err,
      detail: { package: "redis", install: "npm install redis" },
    });
  }
  let client: RedisClientLike;
  try {
    client = mod.createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout, reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2_000) },
    }) as unknown as RedisClientLike;
  } catch {
    // node-redis's own error (a bad port, bad percent-encoding) carries the URL, password and all.
    throw badUrl();
  }
  client.on("error", () => {});
  try {
    await withTimeout(client.connect(), connectTimeout);
  } catch (err) {
    client.destroy?.();
    throw new McpClientError(
      "unavailable",
      "store_unavailable",
      { store: "redis", why: "connect" },
      { cause: err },
    );
  }
  return client;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const int = (v: unknown, name: string, dflt: number, max = Number.MAX_SAFE_INTEGER): number => {
  if (v === undefined) return dflt;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 1 || v > max) {
    throw new TypeError(`conduit-mcp: redisStores option "${name}" must be an integer from 1 to ${max}`);
  }
  return v;
};

function checkOptions(target: RedisTarget, o: RedisStoresOptions) {
  const t = target as Record<string, unknown> | null;
  if (typeof t !== "object" || t === null || (typeof t.url !== "string" && typeof t.client !== "object")) {
    throw new TypeError("conduit-mcp: redisStores takes { url } or { client }");
  }
  if (typeof t.url === "string") checkUrl(t.url);
  if (typeof o?.prefix !== "string" || !/^[\w.-]{1,64}$/.test(o.prefix)) {
    throw new TypeError(
      'conduit-mcp: redisStores option "prefix" must be 1-64 letters, digits, "_", "." or "-"',
    );
  }
  return {
    commandTimeout: int(o.commandTimeout, "commandTimeout", 250),
    lockMs: int(o.lockMs, "lockMs", 10_000, 30_000),
    tokenTtlMs: int(o.tokenTtlMs, "tokenTtlMs", 30 * 86_400_000),
    grantTtlMs: int(o.grantTtlMs, "grantTtlMs", 86_400_000),
    maxWriteRetries: int(o.maxWriteRetries, "maxWriteRetries", 5),
    connectTimeout: int(o.connectTimeout, "connectTimeout", 5_000),
    maxValueBytes: int(o.maxValueBytes, "maxValueBytes", 32 * 1024 * 1024, 512 * 1024 * 1024),
  };
}

const badUrl = () => new OptionError("url", "invalid", "a redis:// or rediss:// URL");

/**
 * The URL parsed here, so a mistake is an `OptionError` that never quotes it: Node's `TypeError`
 * for an unparsable URL keeps the whole input (its password too) in `error.input`.
 */
function checkUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw badUrl();
  }
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw badUrl();
}
