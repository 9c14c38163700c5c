/**
 * A fleet (issue 27): worker processes, each with its own Client or Hub on the built package,
 * sharing their stores on a real Redis server (Debian's redis-server, test/support/redis.ts),
 * against one official @modelcontextprotocol/server (test/fixtures/fleet-server.mjs) and the
 * project's scripted OAuth server (test/support/oauth-server.ts). The same workers with
 * in-memory stores are the baseline each count is compared with.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "./support/async.js";
import { startWorker, stopWorkers, type Worker, type WorkerConfig } from "./support/fleet.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";
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
