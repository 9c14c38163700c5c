// Long life: a hub of 20 servers running 1 000 000 calls with 64 in flight, and 1 000 start/close
// cycles of a hub of 20 servers. Memory must stay flat (the heap after a full GC grows less than
// --limit-mb past the reading at 10 %) and nothing may be left: no handle keeping the event loop
// alive (process.getActiveResourcesInfo()), no child process.
//
//   npm run build && node bench/soak.mjs                      the full run (long: 20 000 processes)
//   node bench/soak.mjs --calls 40000 --cycles 30 --servers 5 --cycle-servers 5    CI's size
//   node bench/soak.mjs --json                                JSON on stdout; exit code 3 on a failure
//   node bench/soak.mjs --help                                every option
//
// Heap readings of the cycles are taken once the timers of the closed clients have run (a closed
// client keeps its request-deadline timer until it fires, so the cycles run with a short
// requestTimeout and wait it out before each reading). See bench/README.md.
import { spawnSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { childPids, cliArgs, concurrent } from "./common.mjs";
import { startHub } from "./hub-start.mjs";
import { FIXED_ENV, FIXED_V8_FLAGS, settled } from "./memory.mjs";
import { scaleServers } from "./scale-peers.mjs";

if (typeof globalThis.gc !== "function") {
  const me = fileURLToPath(import.meta.url);
  const r = spawnSync(process.execPath, [...FIXED_V8_FLAGS, me, ...process.argv.slice(2)], {
    stdio: "inherit",
    env: FIXED_ENV,
  });
  process.exit(r.status ?? 1);
}

const HELP = `usage: node bench/soak.mjs [options]
  --calls N            calls through one hub (default 1000000; 0 skips)
  --servers S          servers behind that hub (default 20)
  --in-flight K        calls in flight (default 64)
  --cycles C           start/ready/list/call/close cycles of a hub (default 1000; 0 skips)
  --cycle-servers S    servers per cycled hub (default 20)
  --kind K             stdio (default) or in-process servers
  --cycle-timeout MS   the cycled clients' requestTimeout, waited out before each reading (default 5000)
  --limit-mb M         the heap growth allowed after the first 10 % (default 5)
  --json               the results as JSON on stdout (progress on stderr)`;
const { args, opt } = cliArgs(HELP);
const CALLS = Number(opt("calls", 1_000_000));
const SERVERS = Number(opt("servers", 20));
const IN_FLIGHT = Number(opt("in-flight", 64));
const CYCLES = Number(opt("cycles", 1000));
const CYCLE_SERVERS = Number(opt("cycle-servers", 20));
const KIND = opt("kind", "stdio");
const CYCLE_TIMEOUT = Number(opt("cycle-timeout", 5000));
const LIMIT_MB = Number(opt("limit-mb", 5));
const JSON_OUT = args.includes("--json");
const log = (m) => process.stderr.write(`${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MB = 1024 * 1024;

/** Resource types and their counts. */
function resources() {
  const out = {};
  for (const r of process.getActiveResourcesInfo()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

/** What is there now and was not in `before`: resource types (count over) and child pids. */
async function leftovers(before, pidsBefore) {
  // Handles are released a turn or two after close(): give them a moment, then count.
  let extra = [];
  for (let i = 0; i < 20; i++) {
    const now = resources();
    extra = Object.entries(now)
      .filter(([k, n]) => n > (before[k] ?? 0))
      .map(([k, n]) => `${k} x${n - (before[k] ?? 0)}`);
    if (extra.length === 0) break;
    await sleep(100);
  }
  const pids = (childPids() ?? []).filter((p) => !pidsBefore.has(p));
  return { resources: extra, processes: pids };
}

/** Heap after a full GC, in bytes, at each tenth of `total` steps (`step(i)` runs step i). */
async function tenths(total, run, beforeReading) {
  const readings = [];
  const chunk = Math.max(1, Math.ceil(total / 10));
  for (let done = 0; done < total; ) {
    const n = Math.min(chunk, total - done);
    await run(done, n);
    done += n;
    await beforeReading?.();
    readings.push({ done, heapUsed: (await settled()).heapUsed });
    log(`  ${done} / ${total}: heap ${(readings.at(-1).heapUsed / MB).toFixed(1)} MB`);
  }
  const base = readings[0].heapUsed;
  const growth = Math.max(...readings.map((r) => r.heapUsed)) - base;
  return {
    readings: readings.map((r) => ({ done: r.done, heapMB: r.heapUsed / MB })),
    growthMB: growth / MB,
  };
}

/** A hub of `n` servers of --kind, ready (see hub-start.mjs). */
function newHub(n, options) {
  const { servers } = scaleServers(KIND, n, 10, () => undefined);
  return startHub(servers, { ...options, readyTimeout: 120_000 });
}

async function soakCalls() {
  const before = resources();
  const pidsBefore = new Set(childPids() ?? []);
  const { hub, notReady } = await newHub(SERVERS, {});
  if (notReady.length > 0) throw new Error(`not every server is ready: ${notReady.join(", ")}`);
  await hub.listTools();
  let next = 0;
  let failed = 0;
  const message = { message: "hi" };
  const caller = {
    call: async () => {
      const r = await hub.callTool(`mcp__s${next++ % SERVERS}__echo`, message);
      if (r.isError) failed += 1;
    },
  };
  const t0 = performance.now();
  const heap = await tenths(CALLS, (_, n) => concurrent(caller, n, IN_FLIGHT));
  const seconds = (performance.now() - t0) / 1000;
  await hub.close();
  return {
    calls: CALLS,
    servers: SERVERS,
    inFlight: IN_FLIGHT,
    failed,
    seconds,
    ...heap,
    left: await leftovers(before, pidsBefore),
  };
}

async function soakCycles() {
  const before = resources();
  const pidsBefore = new Set(childPids() ?? []);
  let notReady = 0;
  const cycle = async () => {
    const started = await newHub(CYCLE_SERVERS, { requestTimeout: CYCLE_TIMEOUT });
    const hub = started.hub;
    notReady += started.notReady.length;
    await hub.listTools();
    await hub.callTool("mcp__s0__echo", { message: "hi" });
    await hub.close();
  };
  const t0 = performance.now();
  const heap = await tenths(
    CYCLES,
    async (_, n) => {
      for (let i = 0; i < n; i++) await cycle();
    },
    () => sleep(CYCLE_TIMEOUT + 200),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    cycles: CYCLES,
    servers: CYCLE_SERVERS,
    notReady,
    seconds,
    ...heap,
    left: await leftovers(before, pidsBefore),
  };
}

const load0 = os.loadavg()[0];
const result = { kind: KIND, limitMB: LIMIT_MB };
if (CALLS > 0) {
  log(`calls: ${CALLS} through a hub of ${SERVERS} ${KIND} servers, ${IN_FLIGHT} in flight`);
  result.calls = await soakCalls();
}
if (CYCLES > 0) {
  log(`cycles: ${CYCLES} hubs of ${CYCLE_SERVERS} ${KIND} servers`);
  result.cycles = await soakCycles();
}
result.machine = `${os.cpus().length} CPUs, load ${load0.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end`;
const problems = [];
for (const [part, r] of Object.entries({ calls: result.calls, cycles: result.cycles })) {
  if (!r) continue;
  if (r.growthMB >= LIMIT_MB)
    problems.push(`${part}: the heap grew ${r.growthMB.toFixed(2)} MB after the first 10 %`);
  if (r.left.resources.length) problems.push(`${part}: left ${r.left.resources.join(", ")}`);
  if (r.left.processes.length) problems.push(`${part}: ${r.left.processes.length} child process(es) left`);
  if (r.failed || r.notReady)
    problems.push(`${part}: ${r.failed ?? r.notReady} failed call(s) or server(s) not ready`);
}
result.problems = problems;

if (JSON_OUT) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`soak (${KIND} servers; ${result.machine})`);
  if (result.calls) {
    const c = result.calls;
    console.log(
      `  ${c.calls} calls, ${c.servers} servers, ${c.inFlight} in flight: ${(c.calls / c.seconds).toFixed(0)} calls/s; heap ${c.readings.map((r) => r.heapMB.toFixed(1)).join(" ")} MB; growth after 10 %: ${c.growthMB.toFixed(2)} MB`,
    );
  }
  if (result.cycles) {
    const c = result.cycles;
    console.log(
      `  ${c.cycles} cycles of ${c.servers} servers: ${((c.seconds * 1000) / c.cycles).toFixed(0)} ms each; heap ${c.readings.map((r) => r.heapMB.toFixed(1)).join(" ")} MB; growth after 10 %: ${c.growthMB.toFixed(2)} MB`,
    );
  }
  console.log(problems.length ? `FAIL\n  ${problems.join("\n  ")}` : "ok: flat memory, nothing left");
}
if (problems.length) process.exitCode = 3;
