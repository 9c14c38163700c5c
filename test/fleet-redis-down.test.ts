/**
 * A fleet whose Redis dies mid-run (issue 27): worker processes on a real Redis server
 * (test/support/redis.ts), one official server (test/fixtures/fleet-server.mjs) and the scripted
 * OAuth server. With Redis killed, calls still succeed from the servers or fail typed within
 * their deadlines, and none hangs; when Redis is back, the stores recover by themselves.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { redisStores } from "../src/redis/index.js";
import { waitFor } from "./support/async.js";
import { startWorker, stopWorkers } from "./support/fleet.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { OAuthServer } from "./support/oauth-server.js";
import { type RunningRedis, startRedis } from "./support/redis.js";

const FLEET_SERVER = fileURLToPath(new URL("./fixtures/fleet-server.mjs", import.meta.url));
const KEY = "fleet-test-key-0123456789";

let redis: RunningRedis;
let server: RunningServer;
let as: OAuthServer;

beforeAll(async () => {
  [redis, server, as] = await Promise.all([
    startRedis(),
    startHttpFixture(FLEET_SERVER, []),
    new OAuthServer().start(),
  ]);
}, 30_000);
afterAll(async () => {
  await stopWorkers();
  await Promise.all([redis?.stop(), server?.stop(), as?.close()]);
});

const token = (user: string) => `tok_${user}_${randomBytes(12).toString("hex")}`;
const configure = (c: Record<string, unknown>) =>
  fetch(`${server.origin}/admin/config`, { method: "POST", body: JSON.stringify(c) });

it("Redis killed mid-run: calls succeed from the servers or fail typed in time, and the stores recover", async () => {
  const prefix = `t${randomBytes(6).toString("hex")}`;
  const fast = { redis: redis.url, prefix, commandTimeout: 200 };
  // Two workers on the official server, one of them with its listing held.
  const w1 = await startWorker({ ...fast, url: server.url, bearer: token("alice") });
  const w2 = await startWorker({ ...fast, url: server.url, bearer: token("alice") });
  await w1.ask("start");
  await w1.ask("tools");
  await w2.ask("start");
  // An OAuth worker whose tokens are only in the store (alice logged in elsewhere).
  const login = await startWorker({ ...fast, url: as.url, oauth: { principal: "alice", login: true } });
  expect(await login.ask("call", { name: "whoami_alice" })).toEqual({ isError: false, text: "alice" });
  await login.kill();
  const o1 = await startWorker({ ...fast, url: as.url, oauth: { principal: "alice" } });
  const stores = await redisStores({ url: redis.url }, { prefix, encryptionKey: KEY });
  const key = { principal: "alice", issuer: as.origin, resource: as.url };
  const tokens = (await stores.tokens.get(key))!;
  expect(tokens).toBeDefined();

  await redis.kill();

  // A call whose listing is held goes to the server as before.
  expect(await w1.ask("call", { name: "echo", args: { message: "still here" } })).toEqual({
    isError: false,
    text: "still here",
  });
  // A listing nobody holds: the store is a miss, the server answers.
  let t0 = Date.now();
  expect((await w2.ask("tools")).map((t: { name: string }) => t.name)).toEqual(["echo"]);
  expect(Date.now() - t0).toBeLessThan(5_000);
  // A forced refresh: from the server; its write fails in the background and is reported.
  await configure({ description: "Changed while Redis was down" });
  expect((await w1.ask("tools", { refresh: true }))[0].description).toBe("Changed while Redis was down");
  await waitFor(
    async () => (await w1.ask("events")).includes("write_failed"),
    "the failed write to be reported",
  );
  // Tokens only the store has: the call fails typed, well within its deadline.
  t0 = Date.now();
  const failed = await o1.ask("call", { name: "whoami_alice", timeout: 8_000 }).catch((e) => e);
  expect(["auth", "unavailable"]).toContain(failed.kind);
  expect(Date.now() - t0).toBeLessThan(8_000);

  await redis.restart();

  // The stores reconnect by themselves: the tokens written again are read by o1, and a refresh
  // on w1 reaches w2 through the store again.
  await waitFor(
    () =>
      Promise.resolve(stores.tokens.set(key, tokens)).then(
        () => true,
        () => false,
      ),
    "the test's own store to reconnect",
    15_000,
  );
  await waitFor(
    () =>
      o1.ask("call", { name: "whoami_alice", timeout: 5_000 }).then(
        (r: { text: string }) => r.text === "alice",
        () => false,
      ),
    "the OAuth worker to read its tokens from Redis again",
    20_000,
  );
  await configure({ description: "Changed after Redis came back" });
  await waitFor(
    async () => {
      await w1.ask("tools", { refresh: true });
      return (await w2.ask("cached"))?.[0]?.description === "Changed after Redis came back";
    },
    "w2 to hear w1's refresh through Redis again",
    20_000,
  );
  await stores.close();
}, 120_000);
