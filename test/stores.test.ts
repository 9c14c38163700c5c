/**
 * The stores a fleet shares (issue 27), in one process: the in-memory defaults shared between
 * clients, the `stores` and `rateLimit` options, and the Redis stores' own guarantees against a
 * real Redis server (one refresh for concurrent holders, a lock released only by its holder,
 * one atomic budget, keys that share a hash tag).
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { governance } from "../src/governance/index.js";
import {
  Client,
  McpClientError,
  MemoryBudgetStore,
  MemoryEraStore,
  MemoryGrantStore,
  MemoryListCacheStore,
  Secret,
  type StoredTokens,
} from "../src/index.js";
import { type RedisStores, redisStores } from "../src/redis/index.js";
import { Keys } from "../src/redis/keys.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { type RunningRedis, startRedis } from "./support/redis.js";

const FLEET_SERVER = fileURLToPath(new URL("./fixtures/fleet-server.mjs", import.meta.url));

let server: RunningServer;
let redis: RunningRedis;
const clients: Client[] = [];
const opened: RedisStores[] = [];

beforeAll(async () => {
  [server, redis] = await Promise.all([startHttpFixture(FLEET_SERVER, []), startRedis()]);
}, 30_000);
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(opened.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await Promise.all([server?.stop(), redis?.stop()]);
});

const bearer = () => ({ bearer: `tok_alice_${randomBytes(8).toString("hex")}` });
function client(options: Record<string, unknown>): Client {
  const c = new Client({
    name: "stores",
    serverId: "fleet",
    transport: { type: "http", url: server.url, auth: bearer() },
    ...options,
  });
  clients.push(c);
  return c;
}
const stats = async () =>
  (await (await fetch(`${server.origin}/admin/stats`)).json()) as {
    lists: Record<string, number>;
    discovers: Record<string, number>;
  };
const reset = () => fetch(`${server.origin}/admin/reset`, { method: "POST" });
async function stores(prefix = `u${randomBytes(6).toString("hex")}`): Promise<RedisStores> {
  const s = await redisStores({ url: redis.url }, { prefix });
  opened.push(s);
  return s;
}

describe("the in-memory stores, shared by clients of one process", () => {
  it("one listing and one discover for two clients given the same list and era stores", async () => {
    await reset();
    const shared = { lists: new MemoryListCacheStore(), eras: new MemoryEraStore() };
    await client({ stores: shared }).listAllTools();
    const b = client({ stores: shared });
    expect((await b.listAllTools()).map((t) => t.name)).toEqual(["echo"]);
    expect(b.era()).toBe("modern");
    expect(await stats()).toMatchObject({ lists: { alice: 1 }, discovers: { alice: 1 } });
    // Without them, each client lists and discovers on its own.
    await client({}).listAllTools();
    expect(await stats()).toMatchObject({ lists: { alice: 2 }, discovers: { alice: 2 } });
  });

  it("rateLimit: a call over the limit waits for its token, or fails rate_limited when it would not get one in time", async () => {
    const budgets = new MemoryBudgetStore();
    const a = client({ rateLimit: { requests: 2, perMs: 3_000 }, stores: { budgets } });
    const b = client({ rateLimit: { requests: 2, perMs: 3_000 }, stores: { budgets } });
    await a.listAllTools();
    await b.listAllTools();
    // The listings took the two tokens of the bucket both clients share (3 s per 2: a loaded host
    // does not refill one during the listings, as it did with 600 ms).
    const err = await a.callTool("echo", { message: "x" }, { timeout: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "rate_limited", reason: "rate_limit" });
    const t0 = Date.now();
    expect((await b.callTool("echo", { message: "y" })).isError).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
  });

  it("governance on a plain Client keeps its grants in stores.grants: an approval on one client holds on another", async () => {
    const asked: string[] = [];
    const governed = (grants: MemoryGrantStore | undefined, who: string) =>
      client({
        principal: "alice",
        stores: grants ? { grants } : {},
        interceptors: [
          governance({
            policy: [{ tool: "echo", decision: "ask" }],
            approve: () => {
              asked.push(who);
              return { allow: true, remember: "session" };
            },
          }),
        ],
      });
    const grants = new MemoryGrantStore();
    expect((await governed(grants, "a").callTool("echo", { message: "x" })).isError).toBe(false);
    expect((await governed(grants, "b").callTool("echo", { message: "y" })).isError).toBe(false);
    // b found a's grant in the shared store: one question for both.
    expect(asked).toEqual(["a"]);
    // Without the store each governor remembers alone (and its own grants option still wins).
    await governed(undefined, "c").callTool("echo", { message: "z" });
    expect(asked).toEqual(["a", "c"]);
    const own = new MemoryGrantStore();
    await client({
      principal: "alice",
      stores: { grants },
      interceptors: [
        governance({
          policy: [{ tool: "echo", decision: "ask" }],
          approve: () => {
            asked.push("d");
            return true;
          },
          grants: own,
        }),
      ],
    }).callTool("echo", { message: "w" });
    expect(asked).toEqual(["a", "c", "d"]);
  });

  it("checks the options", () => {
    expect(() => client({ stores: { lists: {} } })).toThrow(/stores\.lists/);
    expect(() => client({ rateLimit: { requests: 0, perMs: 10 } })).toThrow(/rateLimit\.requests/);
  });
});

describe("the Redis stores", () => {
  const key = { principal: "alice", issuer: "https://as.example", resource: "https://mcp.example/mcp" };
  const tokens = (access: string): StoredTokens => ({
    accessToken: new Secret(access),
    refreshToken: new Secret(`r-${access}`),
    tokenType: "Bearer",
    expiresAt: Date.now() - 1,
  });

  it("refreshes once for concurrent holders on separate connections; everyone gets the new tokens", async () => {
    const prefix = `u${randomBytes(6).toString("hex")}`;
    const holders = await Promise.all([stores(prefix), stores(prefix), stores(prefix)]);
    const stale = tokens("old");
    await holders[0]!.tokens.set(key, stale);
    let refreshes = 0;
    const refresh = async (current: StoredTokens) => {
      refreshes += 1;
      expect(current.refreshToken?.reveal()).toBe("r-old");
      await new Promise((r) => setTimeout(r, 100));
      return { ...tokens("new"), expiresAt: Date.now() + 3_600_000 };
    };
    const got = await Promise.all(
      holders.flatMap((h) => [1, 2].map(() => h.tokens.refreshOnce!(key, stale, refresh))),
    );
    expect(refreshes).toBe(1);
    for (const t of got) expect(t?.accessToken.reveal()).toBe("new");
    expect((await holders[1]!.tokens.get(key))?.accessToken.reveal()).toBe("new");
  });

  it("a refresh lock is released only by its holder, and lapses by itself", async () => {
    const keys = new Keys("x");
    // The token and its lock share a hash tag: one slot on a Cluster.
    expect(keys.token(key).match(/\{[^}]+\}/)?.[0]).toBe(keys.tokenLock(key).match(/\{[^}]+\}/)?.[0]);
    const prefix = `u${randomBytes(6).toString("hex")}`;
    const first = await redisStores({ url: redis.url }, { prefix, lockMs: 500 });
    const second = await redisStores({ url: redis.url }, { prefix, lockMs: 500 });
    opened.push(first, second);
    const stale = tokens("old");
    await first.tokens.set(key, stale);
    // A holder that does not finish in time: the other waits until its lock lapses, then refreshes.
    let release!: () => void;
    const stuck = first.tokens.refreshOnce!(
      key,
      stale,
      () =>
        new Promise<StoredTokens>(
          (r) => (release = () => r({ ...tokens("late"), expiresAt: Date.now() + 60_000 })),
        ),
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const fresh = await second.tokens.refreshOnce!(key, stale, async () => ({
      ...tokens("second"),
      expiresAt: Date.now() + 60_000,
    }));
    expect(fresh?.accessToken.reveal()).toBe("second");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
    // The first holder ends late: its compare-and-swap write is refused (a newer version is
    // there), and its release does not delete the lock it no longer holds.
    release();
    await stuck;
    expect((await first.tokens.get(key))?.accessToken.reveal()).toBe("second");
  });

  it("one token bucket for every holder (one Lua script)", async () => {
    const prefix = `u${randomBytes(6).toString("hex")}`;
    const [a, b] = await Promise.all([stores(prefix), stores(prefix)]);
    const limit = { requests: 5, perMs: 60_000 };
    const waits = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).budgets.take("srv", limit)),
    );
    expect(waits.filter((w) => w === 0)).toHaveLength(5);
    for (const w of waits.filter((w) => w > 0)) expect(w).toBeGreaterThan(1_000);
  });

  it("fails typed within the command timeout when Redis does not answer", async () => {
    const s = await redisStores({ url: redis.url }, { prefix: "down", commandTimeout: 100 });
    opened.push(s);
    // A script that keeps Redis busy for a second: every other command waits behind it.
    const { createClient } = await import("redis");
    const raw = createClient({ url: redis.url });
    await raw.connect();
    const spin =
      "local t = redis.call('TIME')[1] + 0 while redis.call('TIME')[1] + 0 < t + 2 do end return 1";
    const long = raw.eval(spin, { keys: [], arguments: [] }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    const err = await Promise.resolve(s.tokens.get(key)).catch((e) => e);
    expect(err).toMatchObject({ kind: "unavailable", reason: "store_unavailable" });
    expect(Date.now() - t0).toBeLessThan(900);
    await long;
    await raw.close();
  });

  it("a claim made while Redis is slow (a command past the 250 ms timeout) waits for the holder instead of filling too", async () => {
    const prefix = `u${randomBytes(6).toString("hex")}`;
    const [holder, late] = [await stores(prefix), await stores(prefix)];
    const server = "slow-server";
    const release = await holder.eras.claim?.(server, 5_000);
    expect(typeof release).toBe("function");
    // A Lua script that spins for 450 ms: Redis answers nothing else meanwhile (a loaded host).
    const { createClient } = await import("redis");
    const raw = createClient({ url: redis.url });
    await raw.connect();
    const spin = raw.eval(
      "local t = redis.call('TIME'); local s = t[1] * 1000000 + t[2]; repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - s > 450000; return 1",
    );
    await new Promise((r) => setTimeout(r, 20));
    const t0 = Date.now();
    const waiting = late.eras.claim?.(server, 5_000);
    await spin;
    await raw.close();
    await new Promise((r) => setTimeout(r, 300));
    holder.eras.set(server, {
      era: "legacy",
      version: "2025-11-25",
      capabilities: {},
      serverInfo: null,
      instructions: null,
      supportedVersions: null,
      at: Date.now(),
      ttlMs: 60_000,
    });
    // The late claim's SET timed out behind the script; it asked again, found the holder's lock
    // and waited for its record: null (read the store), not a release (fill it yourself).
    expect(await waiting).toBeNull();
    expect(Date.now() - t0).toBeLessThan(5_000);
    release?.();
  });
});
