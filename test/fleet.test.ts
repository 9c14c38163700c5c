/**
 * A fleet (issue 27): worker processes, each with its own Client or Hub on the built package,
 * sharing their stores on a real Redis server (Debian's redis-server, test/support/redis.ts),
 * against one official @modelcontextprotocol/server (test/fixtures/fleet-server.mjs) and the
 * project's scripted OAuth server (test/support/oauth-server.ts). The same workers with
 * in-memory stores are the baseline each count is compared with.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TokenKey } from "../src/index.js";
import { type RedisStores, redisStores } from "../src/redis/index.js";
import { waitFor } from "./support/async.js";
import { startWorker, stopWorkers, type Worker, type WorkerConfig } from "./support/fleet.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { OAuthServer } from "./support/oauth-server.js";
import { type RunningRedis, startRedis } from "./support/redis.js";

const FLEET_SERVER = fileURLToPath(new URL("./fixtures/fleet-server.mjs", import.meta.url));

let redis: RunningRedis;
let server: RunningServer;

beforeAll(async () => {
  [redis, server] = await Promise.all([startRedis(), startHttpFixture(FLEET_SERVER, [])]);
}, 30_000);
afterAll(async () => {
  await stopWorkers();
  await Promise.all([redis?.stop(), server?.stop()]);
});
afterEach(() => stopWorkers());

interface Stats {
  lists: Record<string, number>;
  discovers: Record<string, number>;
  calls: number;
}
const stats = async (): Promise<Stats> =>
  (await fetch(`${server.origin}/admin/stats`)).json() as Promise<Stats>;
async function configure(c: Record<string, unknown>): Promise<void> {
  await fetch(`${server.origin}/admin/config`, { method: "POST", body: JSON.stringify(c) });
}
async function reset(scope: "public" | "private" = "public"): Promise<void> {
  await configure({ scope, ttlMs: 60_000, description: "Repeats the message" });
  await fetch(`${server.origin}/admin/reset`, { method: "POST" });
}

const prefix = () => `t${randomBytes(6).toString("hex")}`;
const token = (user: string) => `tok_${user}_${randomBytes(12).toString("hex")}`;

/** `n` workers started one after the other (each lists before the next starts). */
async function fleetOf(n: number, cfg: Omit<WorkerConfig, "url">): Promise<Worker[]> {
  const out: Worker[] = [];
  for (let i = 0; i < n; i++) {
    const w = await startWorker({ url: server.url, ...cfg });
    await w.ask("start");
    await w.ask("tools");
    out.push(w);
  }
  return out;
}

describe("lists and eras shared on Redis", () => {
  it("one tools/list and one era probe at the server for four workers while the list is fresh", async () => {
    await reset();
    const bearer = token("alice");
    const workers = await fleetOf(4, { redis: redis.url, prefix: prefix(), bearer });
    for (const w of workers)
      expect((await w.ask("tools")).map((t: { name: string }) => t.name)).toEqual(["echo"]);
    const shared = await stats();
    expect(shared.lists.alice).toBe(1);
    expect(shared.discovers.alice).toBe(1);
    for (const w of workers) expect(await w.ask("era")).toBe("modern");

    // The baseline: the same four workers, each with its own in-memory stores.
    await stopWorkers();
    await reset();
    await fleetOf(4, { redis: "memory", prefix: prefix(), bearer });
    const alone = await stats();
    expect(alone.lists.alice).toBe(4);
    expect(alone.discovers.alice).toBe(4);
  }, 60_000);

  it("one tools/list and one era probe when four workers start at once (the others wait for the first)", async () => {
    await reset();
    const p = prefix();
    const bearer = token("alice");
    const workers = await Promise.all(
      Array.from({ length: 4 }, () => startWorker({ url: server.url, redis: redis.url, prefix: p, bearer })),
    );
    const lists = await Promise.all(workers.map((w) => w.ask("tools")));
    for (const l of lists) expect(l.map((t: { name: string }) => t.name)).toEqual(["echo"]);
    expect(await stats()).toMatchObject({ lists: { alice: 1 }, discovers: { alice: 1 } });
  }, 60_000);

  it("a refresh on one worker refreshes the others from the store, with one listing", async () => {
    await reset();
    const bearer = token("alice");
    const [a, b, c] = await fleetOf(3, { redis: redis.url, prefix: prefix(), bearer });
    expect((await stats()).lists.alice).toBe(1);
    await configure({ description: "Repeats the message, louder" });
    await a!.ask("tools", { refresh: true });
    for (const w of [b!, c!]) {
      await waitFor(
        async () => (await w.ask("cached"))?.[0]?.description === "Repeats the message, louder",
        "the other workers to hold the new definition",
      );
    }
    expect((await stats()).lists.alice).toBe(2);
  }, 60_000);

  it("a list_changed refreshes every worker", async () => {
    await reset();
    const bearer = token("alice");
    const workers = await fleetOf(3, { redis: redis.url, prefix: prefix(), bearer });
    await configure({ description: "Changed and announced", notify: true });
    for (const w of workers) {
      await waitFor(
        async () => (await w.ask("cached"))?.[0]?.description === "Changed and announced",
        "every worker to hold the announced definition",
      );
    }
  }, 60_000);

  it("setAuth on one worker drops the old credentials' private lists on the others too", async () => {
    await reset("private");
    const p = prefix();
    const alice = token("alice");
    const [a, b] = await fleetOf(2, { redis: redis.url, prefix: p, bearer: alice });
    expect((await stats()).lists).toEqual({ alice: 1 });
    await a!.ask("setAuth", { bearer: token("bob") });
    // b dropped alice's shared private list and listed again (the store no longer has it).
    await waitFor(async () => (await stats()).lists.alice === 2, "b to list again after a's setAuth");
    expect((await b!.ask("tools")).map((t: { name: string }) => t.name).sort()).toEqual([
      "echo",
      "whoami_alice",
    ]);
    expect((await a!.ask("tools")).map((t: { name: string }) => t.name).sort()).toEqual([
      "echo",
      "whoami_bob",
    ]);
  }, 60_000);

  it("two principals never see each other's private lists", async () => {
    await reset("private");
    const p = prefix();
    const [alice1] = await fleetOf(1, { redis: redis.url, prefix: p, bearer: token("alice") });
    const [bob] = await fleetOf(1, { redis: redis.url, prefix: p, bearer: token("bob") });
    const names = async (w: Worker) => (await w.ask("tools")).map((t: { name: string }) => t.name).sort();
    expect(await names(alice1!)).toEqual(["echo", "whoami_alice"]);
    expect(await names(bob!)).toEqual(["echo", "whoami_bob"]);
    const s = await stats();
    expect(s.lists).toEqual({ alice: 1, bob: 1 });
  }, 60_000);
});

describe("grants shared on Redis", () => {
  it("an approval on one worker holds on another of the same principal, and stops on a changed definition", async () => {
    await reset();
    const p = prefix();
    const hub = (approve: "allow" | "deny", principal: string) =>
      fleetOf(1, { redis: redis.url, prefix: p, bearer: token("alice"), mode: "hub", approve, principal });
    const [a] = await hub("allow", "ann");
    const [b] = await hub("deny", "ann");
    const [c] = await hub("deny", "bob");
    const [echo] = (await a!.ask("tools")).map((t: { name: string }) => t.name);
    expect(await a!.ask("call", { name: echo, args: { message: "hi" } })).toEqual({
      isError: false,
      text: "hi",
    });
    expect(await a!.ask("approvals")).toHaveLength(1);
    // Granted on a, for ann: b (which would deny) is not asked.
    expect(await b!.ask("call", { name: echo, args: { message: "hi" } })).toEqual({
      isError: false,
      text: "hi",
    });
    expect(await b!.ask("approvals")).toEqual([]);
    // Another principal is asked, and denies.
    await expect(c!.ask("call", { name: echo, args: { message: "hi" } })).rejects.toMatchObject({
      kind: "denied",
    });
    expect(await c!.ask("approvals")).toHaveLength(1);
    // A changed definition: the grant no longer matches, on any worker.
    await configure({ description: "Repeats the message, now with side effects" });
    await b!.ask("tools", { refresh: true });
    await expect(b!.ask("call", { name: echo, args: { message: "hi" } })).rejects.toMatchObject({
      kind: "denied",
    });
    expect(await b!.ask("approvals")).toHaveLength(1);
    // a hears of b's new listing through the store, and judges the call by the new definition.
    await waitFor(
      async () => (await a!.ask("cached"))?.[0]?.description === "Repeats the message, now with side effects",
      "worker a to hold the changed definition",
    );
    expect(await a!.ask("call", { name: echo, args: { message: "again" } })).toEqual({
      isError: false,
      text: "again",
    });
    expect(await a!.ask("approvals")).toHaveLength(2);
  }, 60_000);
});

describe("OAuth tokens shared on Redis", () => {
  const KEY = "fleet-test-key-0123456789";
  let as: OAuthServer;
  let stores: RedisStores | undefined;
  beforeAll(async () => {
    as = await new OAuthServer({ rotateRefreshTokens: true }).start();
  });
  afterAll(() => as?.close());
  afterEach(async () => {
    await stores?.close();
    stores = undefined;
    as.config = { rotateRefreshTokens: true };
  });

  /** Logs alice in on one worker (the only authorization), then marks her tokens expired. */
  async function loggedIn(p: string): Promise<TokenKey> {
    const login = await startWorker({
      redis: redis.url,
      prefix: p,
      url: as.url,
      oauth: { principal: "alice", login: true },
    });
    expect(await login.ask("call", { name: "whoami_alice" })).toEqual({ isError: false, text: "alice" });
    await login.kill();
    stores = await redisStores({ url: redis.url }, { prefix: p, encryptionKey: KEY });
    const key = { principal: "alice", issuer: as.origin, resource: as.url };
    const t = await stores.tokens.get(key);
    expect(t?.refreshToken).toBeDefined();
    await stores.tokens.set(key, { ...t!, expiresAt: Date.now() - 1_000 });
    return key;
  }

  it("keeps tokens sealed at rest: no token in Redis in the clear", async () => {
    const p = prefix();
    const key = await loggedIn(p);
    const t = (await stores!.tokens.get(key))!;
    const raw = await rawRedis(`${p}:*`);
    expect(raw.length).toBeGreaterThan(0);
    for (const v of raw) {
      expect(v).not.toContain(t.accessToken.reveal());
      expect(v).not.toContain(t.refreshToken!.reveal());
    }
  }, 60_000);

  it("20 concurrent calls across 4 workers with an expired token: one refresh, rotating refresh token, every call succeeds", async () => {
    const p = prefix();
    const before = { code: as.counts.codeGrants, refresh: as.counts.refreshGrants };
    await loggedIn(p);
    const workers = await Promise.all(
      Array.from({ length: 4 }, () =>
        startWorker({ redis: redis.url, prefix: p, url: as.url, oauth: { principal: "alice" } }),
      ),
    );
    const results = (
      await Promise.all(workers.map((w) => w.ask("calls", { name: "whoami_alice", n: 5, timeout: 15_000 })))
    ).flat();
    expect(results).toHaveLength(20);
    for (const r of results) expect(r).toMatchObject({ ok: true, text: "alice" });
    expect(as.counts.refreshGrants - before.refresh).toBe(1);
    expect(as.counts.codeGrants - before.code).toBe(1);
  }, 60_000);

  it("a worker killed while it holds the refresh lock: another refreshes once the lock expires", async () => {
    const p = prefix();
    await loggedIn(p);
    const held: ServerResponse[] = [];
    as.config = {
      rotateRefreshTokens: true,
      tokenResponder: (form, res) => {
        if (form.get("grant_type") !== "refresh_token" || held.length > 0) return false;
        held.push(res);
        return true;
      },
    };
    const refreshesBefore = as.counts.refreshGrants;
    const a = await startWorker({
      redis: redis.url,
      prefix: p,
      url: as.url,
      oauth: { principal: "alice" },
      lockMs: 2_000,
    });
    const hung = a.ask("call", { name: "whoami_alice", timeout: 20_000 }).catch(() => "killed");
    await waitFor(() => held.length === 1, "worker a to send its refresh (and hold the lock)");
    await a.kill();
    expect(await hung).toBe("killed");
    const b = await startWorker({
      redis: redis.url,
      prefix: p,
      url: as.url,
      oauth: { principal: "alice" },
      lockMs: 2_000,
    });
    const started = Date.now();
    expect(await b.ask("call", { name: "whoami_alice", timeout: 20_000 })).toEqual({
      isError: false,
      text: "alice",
    });
    expect(as.counts.refreshGrants - refreshesBefore).toBe(1);
    // b waited for a's lock to lapse (it lasts 2 s from when a took it).
    expect(Date.now() - started).toBeLessThan(10_000);
    held[0]!.destroy();
  }, 60_000);

  it("another principal never gets alice's tokens", async () => {
    const p = prefix();
    await loggedIn(p);
    const usersBefore = as.mcpUsers.length;
    const bob = await startWorker({ redis: redis.url, prefix: p, url: as.url, oauth: { principal: "bob" } });
    await expect(bob.ask("call", { name: "whoami_alice", timeout: 10_000 })).rejects.toMatchObject({
      kind: "auth",
    });
    expect(as.mcpUsers.slice(usersBefore)).not.toContain("alice");
  }, 60_000);
});

/** Every value of the keys matching `pattern`, read with a client of the test's own. */
async function rawRedis(pattern: string): Promise<string[]> {
  const { createClient } = await import("redis");
  const c = createClient({ url: redis.url });
  await c.connect();
  try {
    const out: string[] = [];
    for (const k of await c.keys(pattern)) {
      const type = await c.type(k);
      if (type === "string") out.push(String(await c.get(k)));
      if (type === "hash") out.push(JSON.stringify(await c.hGetAll(k)));
    }
    return out;
  } finally {
    await c.close();
  }
}
