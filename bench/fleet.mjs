// What a fleet's shared stores save (issue 27): worker processes (test/fixtures/fleet-worker.mjs,
// each with its own Client on dist/) against one official server (test/fixtures/fleet-server.mjs)
// and a small OAuth server (bench/fleet-oauth.mjs), with their stores on a real Redis
// (/usr/bin/redis-server, started here) or in memory (each worker alone: the baseline).
//
//   npm run build && node bench/fleet.mjs          1, 4 and 16 workers (2-4 minutes on 2 cores)
//   node bench/fleet.mjs --workers 1,4 --reps 3 --json
//
// Reported: tools/list and server/discover requests at the server per worker start (workers
// started at once), with and without Redis; the latency of a cached list read from the Redis
// store against the in-memory store (same process, interleaved, per-run medians); token
// refreshes at the authorization server per expiry (every worker making 5 calls at once), with
// the Redis token store's one refresh and without it (a shared store, each worker refreshing).
import { fork, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { median, table } from "./common.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const WORKER = join(ROOT, "test/fixtures/fleet-worker.mjs");
const FLEET_SERVER = join(ROOT, "test/fixtures/fleet-server.mjs");
const OAUTH = join(HERE, "fleet-oauth.mjs");
const REDIS = process.env.CONDUIT_REDIS_SERVER ?? "/usr/bin/redis-server";

function parseArgs(argv) {
  const o = { workers: [1, 4, 16], reps: 3, reads: 400, runs: 7, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--workers") o.workers = argv[++i].split(",").map(Number);
    else if (a === "--reps") o.reps = Number(argv[++i]);
    else if (a === "--reads") o.reads = Number(argv[++i]);
    else if (a === "--json") o.json = true;
    else if (a === "--help") {
      console.log("usage: node bench/fleet.mjs [--workers 1,4,16] [--reps 3] [--reads 400] [--json]");
      process.exit(0);
    } else throw new Error(`unknown option ${a}`);
  }
  return o;
}
const opts = parseArgs(process.argv.slice(2));
const log = (m) => process.stderr.write(`${m}\n`);

// ---- processes ---------------------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

function waitOutput(child, re) {
  return new Promise((resolve, reject) => {
    let seen = "";
    const on = (d) => {
      seen += String(d);
      const m = re.exec(seen);
      if (m) resolve(m[1] ?? m[0]);
    };
    child.stdout.on("data", on);
    child.stderr?.on("data", on);
    child.once("exit", () => reject(new Error(`exited: ${seen.slice(-300)}`)));
  });
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(
    REDIS,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  await waitOutput(child, /Ready to accept connections/);
  return { child, url: `redis://127.0.0.1:${port}` };
}

async function startNode(script, args) {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ["ignore", "pipe", process.env.FLEET_DEBUG ? "inherit" : "pipe"],
  });
  const port = await waitOutput(child, /LISTENING (\d+)/);
  return { child, origin: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/mcp` };
}

function worker(cfg) {
  const child = fork(WORKER, [JSON.stringify(cfg)], { stdio: ["ignore", "ignore", "ignore", "ipc"] });
  let next = 0;
  const pending = new Map();
  const ready = new Promise((resolve, reject) => {
    child.once("exit", () => reject(new Error("worker exited")));
    child.on("message", (m) => {
      if (m.ready) return resolve();
      const p = pending.get(m.id);
      pending.delete(m.id);
      if (m.ok) p?.resolve(m.value);
      else p?.reject(Object.assign(new Error(JSON.stringify(m.error)), m.error));
    });
  });
  const ask = (op, args = {}) =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      child.send({ id, op, ...args });
    });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", resolve);
      child.kill("SIGKILL");
    });
  return { ready, ask, stop };
}

const getJson = async (url, method = "GET") => (await fetch(url, { method })).json();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const prefix = () => `b${randomBytes(6).toString("hex")}`;

// ---- the cells ---------------------------------------------------------------------------------

/** Listings and probes at the server per worker start, `n` workers started at once. */
async function startCell(n, redisUrl, server) {
  await getJson(`${server.origin}/admin/reset`, "POST");
  const p = prefix();
  const bearer = `tok_alice_${randomBytes(8).toString("hex")}`;
  // A generous timeout: 16 fresh processes on a small shared machine start slowly.
  const ws = Array.from({ length: n }, () =>
    worker({ redis: redisUrl, prefix: p, url: server.url, bearer, requestTimeout: 120_000 }),
  );
  try {
    await Promise.all(ws.map((w) => w.ready));
    await Promise.all(ws.map((w) => w.ask("tools", { timeout: 120_000 })));
    const s = await getJson(`${server.origin}/admin/stats`);
    if (process.env.FLEET_DEBUG) log(JSON.stringify(s));
    return { lists: (s.lists.alice ?? 0) / n, probes: (s.discovers.alice ?? 0) / n };
  } finally {
    await Promise.all(ws.map((w) => w.stop()));
  }
}

/**
 * Refreshes at the authorization server for one expiry: alice logged in once, her tokens in
 * Redis marked expired, `n` workers making 5 calls each at once. `naive`: the same shared store
 * without its one refresh (each worker refreshes as with a plain TokenStore; the refresh tokens
 * rotate, so all but one of those refreshes fail).
 */
async function refreshCell(n, redisUrl, as, naive) {
  const { redisStores } = await import(join(ROOT, "dist/redis/index.js"));
  const p = prefix();
  const login = worker({
    redis: redisUrl,
    prefix: p,
    url: as.url,
    oauth: { principal: "alice", login: true },
  });
  await login.ready;
  await login.ask("call", { name: "whoami" });
  await login.stop();
  const stores = await redisStores(
    { url: redisUrl },
    { prefix: p, encryptionKey: "fleet-test-key-0123456789" },
  );
  const key = { principal: "alice", issuer: as.origin, resource: as.url };
  const t = await stores.tokens.get(key);
  await stores.tokens.set(key, { ...t, expiresAt: Date.now() - 1_000 });
  await stores.close();
  const ws = Array.from({ length: n }, () =>
    worker({
      redis: redisUrl,
      prefix: p,
      url: as.url,
      oauth: { principal: "alice" },
      naive,
      requestTimeout: 120_000,
    }),
  );
  try {
    await Promise.all(ws.map((w) => w.ready));
    await getJson(`${as.origin}/admin/reset`, "POST");
    const results = (
      await Promise.all(ws.map((w) => w.ask("calls", { name: "whoami", n: 5, timeout: 120_000 })))
    ).flat();
    const s = await getJson(`${as.origin}/admin/stats`);
    return { refreshes: s.refreshGrants, failed: results.filter((r) => !r.ok).length };
  } finally {
    await Promise.all(ws.map((w) => w.stop()));
  }
}

/** A cached list read: the Redis store against the in-memory one, interleaved, per run. */
async function readCell(redisUrl) {
  const { redisStores } = await import(join(ROOT, "dist/redis/index.js"));
  const { MemoryListCacheStore } = await import(join(ROOT, "dist/index.js"));
  const redis = await redisStores({ url: redisUrl }, { prefix: prefix() });
  const memory = new MemoryListCacheStore();
  const tools = Array.from({ length: 50 }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool number ${i}, which does one thing well`,
    inputSchema: {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      required: ["a"],
    },
  }));
  const list = {
    pages: [{ tools, ttlMs: 600_000, cacheScope: "public" }],
    fetchedAt: Date.now(),
    ttlMs: 600_000,
    scope: "public",
  };
  const key = { server: JSON.stringify(["bench", "http://x/mcp"]), kind: "tools", identity: null };
  redis.lists.set(key, list);
  memory.set(key, list);
  await sleep(100);
  const runs = [];
  for (let r = 0; r < opts.runs; r++) {
    const dr = [];
    const dm = [];
    for (let i = 0; i < opts.reads; i++) {
      let t = process.hrtime.bigint();
      const a = await redis.lists.get(key);
      dr.push(Number(process.hrtime.bigint() - t) / 1e6);
      t = process.hrtime.bigint();
      const b = await memory.get(key);
      dm.push(Number(process.hrtime.bigint() - t) / 1e6);
      if (!a || !b) throw new Error("a read missed");
    }
    const p = (xs, q) => [...xs].sort((x, y) => x - y)[Math.floor(q * (xs.length - 1))];
    runs.push({
      redisP50: p(dr, 0.5),
      redisP99: p(dr, 0.99),
      memoryP50: p(dm, 0.5),
      added: p(dr, 0.5) - p(dm, 0.5),
    });
  }
  await redis.close();
  const pick = (k) => median(runs.map((r) => r[k]));
  return {
    redisP50: pick("redisP50"),
    redisP99: pick("redisP99"),
    memoryP50: pick("memoryP50"),
    addedP50: pick("added"),
  };
}

// ---- main --------------------------------------------------------------------------------------

const redis = await startRedis();
const server = await startNode(FLEET_SERVER, []);
const as = await startNode(OAUTH, ["3600"]);
const out = {
  machine: { cpus: os.cpus().length, loadavg: os.loadavg() },
  starts: [],
  refreshes: [],
  read: null,
};
try {
  for (const n of opts.workers) {
    const cells = { redis: [], memory: [] };
    for (let r = 0; r < opts.reps; r++) {
      // Interleaved: one with Redis, one alone, per repetition.
      for (const mode of ["redis", "memory"]) {
        log(`starts: ${n} workers, ${mode}, rep ${r + 1}`);
        cells[mode].push(await startCell(n, mode === "redis" ? redis.url : "memory", server));
      }
    }
    const m = (mode, k) => median(cells[mode].map((c) => c[k]));
    out.starts.push({
      workers: n,
      redis: { lists: m("redis", "lists"), probes: m("redis", "probes") },
      memory: { lists: m("memory", "lists"), probes: m("memory", "probes") },
    });
  }
  for (const n of opts.workers) {
    const row = { workers: n };
    for (const mode of ["redis", "naive"]) {
      log(`refreshes: ${n} workers, ${mode}`);
      row[mode] = await refreshCell(n, redis.url, as, mode === "naive");
    }
    out.refreshes.push(row);
  }
  log("cached list reads");
  out.read = await readCell(redis.url);
} finally {
  for (const c of [redis.child, server.child, as.child]) c.kill("SIGTERM");
}

if (opts.json) {
  console.log(JSON.stringify(out, null, 2));
} else {
  const f = (x, d = 2) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));
  console.log(
    `machine: ${out.machine.cpus} CPUs, load ${out.machine.loadavg.map((x) => x.toFixed(1)).join(" ")} (shared: figures scatter)`,
  );
  console.log("\nAt the server per worker start (workers started at once; median of reps):");
  console.log(
    table(
      ["workers", "tools/list, Redis", "tools/list, alone", "probes, Redis", "probes, alone"],
      out.starts.map((s) => [
        s.workers,
        f(s.redis.lists),
        f(s.memory.lists),
        f(s.redis.probes),
        f(s.memory.probes),
      ]),
      new Set([0, 1, 2, 3, 4]),
    ),
  );
  console.log(
    "\nToken refreshes at the authorization server per expiry (5 calls per worker at once; naive: the shared store without its one refresh):",
  );
  console.log(
    table(
      ["workers", "refreshes, Redis", "refreshes, naive", "failed calls, Redis", "failed calls, naive"],
      out.refreshes.map((r) => [
        r.workers,
        r.redis.refreshes,
        r.naive.refreshes,
        r.redis.failed,
        r.naive.failed,
      ]),
      new Set([0, 1, 2, 3, 4]),
    ),
  );
  const r = out.read;
  console.log(
    `\nA cached list read (50 tools), store get, median of ${opts.runs} runs x ${opts.reads} interleaved reads:`,
  );
  console.log(
    `  Redis p50 ${f(r.redisP50, 3)} ms (p99 ${f(r.redisP99, 3)}), memory p50 ${f(r.memoryP50, 4)} ms, added p50 ${f(r.addedP50, 3)} ms (goal < 2 ms)`,
  );
}
