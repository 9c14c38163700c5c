/**
 * A Redis whose values the stores did not write (another program, a tampered or corrupt value, a
 * huge one) on a real Redis server (test/support/redis.ts) with the official server behind
 * test/fixtures/fleet-server.mjs (its listing carries cache hints, so it is kept in the store).
 * Each value is planted with a plain node-redis client; the client must go on working from the
 * server, the value is reported (`value_rejected`), and never quoted.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { createClient } from "redis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { type RedisStoreEvent, redisStores } from "../src/redis/index.js";
import { OptionError } from "../src/shared/option-error.js";
import { Secret } from "../src/shared/secret.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { type RunningRedis, startRedis } from "./support/redis.js";

const FLEET_SERVER = fileURLToPath(new URL("./fixtures/fleet-server.mjs", import.meta.url));

let redis: RunningRedis;
let server: RunningServer;
let raw: ReturnType<typeof createClient>;

beforeAll(async () => {
  [redis, server] = await Promise.all([startRedis(), startHttpFixture(FLEET_SERVER, [])]);
  raw = createClient({ url: redis.url });
  await raw.connect();
}, 30_000);
afterAll(async () => {
  await raw?.quit();
  await Promise.all([redis?.stop(), server?.stop()]);
});

async function fleet(extra: Record<string, unknown> = {}) {
  const prefix = `h${randomBytes(6).toString("hex")}`;
  const stores = await redisStores({ url: redis.url }, { prefix, ...extra });
  const events: RedisStoreEvent[] = [];
  stores.on((e) => events.push(e));
  const client = (more: Record<string, unknown> = {}) =>
    new Client({
      name: "h",
      serverId: "fleet",
      transport: { type: "http", url: server.url, auth: { bearer: "tok_alice_hostile" } },
      stores,
      ...more,
    });
  return { prefix, stores, events, client };
}

/** The listing key the first client wrote (there is one per prefix here). */
async function listKey(prefix: string): Promise<string> {
  const keys = await raw.keys(`${prefix}:{l:*}:tools:*`);
  expect(keys).toHaveLength(1);
  return keys[0]!;
}

async function listWith(make: () => Client) {
  const c = make();
  try {
    const tools = await c.listAllTools({ timeout: 10_000 });
    const r = await c.callTool("echo", { message: "still here" }, { timeout: 10_000 });
    return { names: tools.map((t) => t.name), text: (r.content[0] as { text: string }).text };
  } finally {
    await c.close();
  }
}

it("a stored listing with a page that is not an object: the server's listing, reported", async () => {
  const f = await fleet();
  expect((await listWith(f.client)).names).toEqual(["echo"]);
  const key = await listKey(f.prefix);
  const pages = [{ tools: [{ name: "planted", inputSchema: { type: "object" } }] }, null];
  await raw.set(key, JSON.stringify({ pages, fetchedAt: Date.now(), ttlMs: 600_000, scope: "public" }));
  // Before: listAllTools rejected with a bare TypeError (reading 'tools' of null), on every call.
  expect(await listWith(f.client)).toEqual({
    names: ["echo"],
    text: "still here",
  });
  expect(f.events).toContainEqual({ type: "value_rejected", store: "lists", why: "malformed" });
  await f.stores.close();
});

it("a stored listing longer than maxValueBytes is never read: the server's listing, reported", async () => {
  const f = await fleet({ maxValueBytes: 64 * 1024 });
  await listWith(f.client);
  const key = await listKey(f.prefix);
  const tools = Array.from({ length: 20_000 }, (_, i) => ({
    name: `t${i}`,
    inputSchema: { type: "object" },
  }));
  await raw.set(
    key,
    JSON.stringify({ pages: [{ tools }], fetchedAt: Date.now(), ttlMs: 600_000, scope: "public" }),
  );
  // Before: the 20 000 planted tools were the listing (past maxListItems) and echo was unknown.
  expect(await listWith(f.client)).toEqual({
    names: ["echo"],
    text: "still here",
  });
  expect(f.events).toContainEqual({ type: "value_rejected", store: "lists", why: "too_large" });
  // A listing over the cap is not written either (reported as a write that failed).
  const big = await fleet({ maxValueBytes: 100 });
  await listWith(big.client);
  expect(await raw.keys(`${big.prefix}:{l:*}`)).toEqual([]);
  expect(big.events).toContainEqual({
    type: "write_failed",
    store: "lists",
    attempt: 0,
    retrying: false,
    error: "value too large",
  });
  await Promise.all([f.stores.close(), big.stores.close()]);
});

it("a rate-limit bucket holding values the script never writes does not hold calls back", async () => {
  for (const planted of [
    { tokens: "-1e15", at: "0" },
    { tokens: "nan", at: "0" },
    { tokens: "5", at: "99999999999999" },
  ]) {
    const f = await fleet();
    const c = f.client({ rateLimit: { requests: 5, perMs: 1_000 } });
    await c.callTool("echo", { message: "a" }, { timeout: 10_000 });
    const [bucket] = await raw.keys(`${f.prefix}:{b:*}`);
    expect(bucket).toBeDefined();
    await raw.hSet(bucket!, planted);
    // Before: rate_limited with a retryAfterMs of years, on every call, for as long as calls came.
    const r = await c.callTool("echo", { message: "b" }, { timeout: 5_000 });
    expect((r.content[0] as { text: string }).text).toBe("b");
    await c.close();
    await f.stores.close();
  }
});

it("tokens the store did not write are no tokens: a header-breaking token, a bad version, junk", async () => {
  const f = await fleet();
  const key = { principal: "alice", issuer: "https://as.example", resource: server.url };
  const good = { a: "at_ok", y: "Bearer" };
  await f.stores.tokens.set(key, { accessToken: new Secret("at_first"), tokenType: "Bearer" });
  const [name] = await raw.keys(`${f.prefix}:{t:*}:tokens`);
  expect(name).toBeDefined();
  for (const value of [
    `1:${JSON.stringify({ ...good, a: "at\r\nX-Injected: 1" })}`,
    `1:${JSON.stringify({ ...good, c: { i: "client", m: "password_in_the_clear" } })}`,
    `x1:${JSON.stringify(good)}`,
    JSON.stringify(good),
    "1:null",
    "1:[]",
  ]) {
    await raw.set(name!, value);
    // Before: the first two came back as tokens (one with CR LF for the Authorization header),
    // "1:null" threw a TypeError out of the store.
    expect(await f.stores.tokens.get(key)).toBeUndefined();
  }
  expect(f.events.filter((e) => e.type === "value_rejected")).toHaveLength(6);
  await raw.set(name!, `7:${JSON.stringify(good)}`);
  expect((await f.stores.tokens.get(key))?.accessToken.reveal()).toBe("at_ok");
  await f.stores.close();
});

it("a grant whose value is not a grant is none", async () => {
  const f = await fleet();
  const definition = { name: "echo", inputSchema: { type: "object" } };
  const grant = { principal: "p", serverId: "s", tool: "echo", digest: "d1", definition, grantedAt: 1 };
  await f.stores.grants.put(grant as never);
  expect(await f.stores.grants.get({ principal: "p", serverId: "s", tool: "echo", digest: "d1" })).toEqual(
    grant,
  );
  const [hash] = await raw.keys(`${f.prefix}:{g:*}:grants`);
  const [field] = await raw.hKeys(hash!);
  await raw.hSet(hash!, field!, JSON.stringify({ ...grant, definition: "not a definition" }));
  // Before: handed to governance as the previous definition shown to the approver.
  expect(await f.stores.grants.latest("p", "s", "echo")).toBeUndefined();
  expect(f.events).toContainEqual({ type: "value_rejected", store: "grants", why: "malformed" });
  await f.stores.close();
});

it("a Redis URL that does not parse is an OptionError that does not quote it (its password)", async () => {
  for (const url of [
    "redis://:hunter2@127.0.0.1:notaport",
    "redis://:hunter2@[::1",
    "http://:hunter2@127.0.0.1:6379",
    "redis://:hun%ZZter2@127.0.0.1:1",
  ]) {
    const err = await redisStores({ url }, { prefix: "p", connectTimeout: 1_000 }).catch((e) => e);
    // Before: Node's TypeError (its `input` the whole URL), or node-redis's URIError.
    expect(err).toBeInstanceOf(OptionError);
    expect(err.option).toBe("url");
    expect(inspect(err, { depth: 10 })).not.toContain("hunter2");
    expect(inspect(err, { depth: 10 })).not.toContain("hun%ZZ");
  }
});
