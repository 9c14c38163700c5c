// tools/call over stdio: conduit-mcp (from dist/) against the official @modelcontextprotocol/client
// and a bare JSON-RPC loop (the ceiling), in both protocol eras, sequential and 16-concurrent.
//
//   npm run bench                      build, then run with the defaults (about a minute)
//   node bench/stdio.mjs --json        machine-readable output on stdout (progress on stderr)
//   node bench/stdio.mjs --help        every option
//
// See bench/README.md for what is measured and how.
import { spawn } from "node:child_process";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childPids,
  concurrent,
  cpuOf,
  isRunning,
  LABELS,
  reportRows,
  sequential,
  summarize,
  table,
} from "./common.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, "server.mjs");
const NODE = process.execPath;
const MESSAGE = "hello";
const CLIENT_KEYS = ["conduit", "official", "bare"];
const ERAS = ["modern", "legacy"];
const MODES = ["sequential", "concurrent"];

// ---- options -----------------------------------------------------------------------------------

const HELP = `usage: node bench/stdio.mjs [options]
  --json              print the results as JSON on stdout (progress goes to stderr)
  --calls N           calls per measured run, sequential (default 1500)
  --concurrent-calls N  calls per measured run, concurrent (default 2x --calls)
  --concurrency K     callers in parallel in the concurrent runs (default 16)
  --reps R            measured runs per client, era and mode; the median is reported (default 13)
  --warmup N          warm-up calls per client and mode before measuring (default 2000)
  --era E             modern, legacy or both (default both)
  --no-memory         skip the memory and start-up measurements
  --quiet             no progress on stderr`;

function parseArgs(argv) {
  const o = {
    json: false,
    calls: 1500,
    concurrentCalls: undefined,
    concurrency: 16,
    reps: 13,
    warmup: 2000,
    eras: ERAS,
    memory: true,
    quiet: false,
  };
  const int = (i) => {
    const v = Number(argv[i + 1]);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${argv[i]} needs a positive integer`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") o.json = true;
    else if (a === "--calls") o.calls = int(i++);
    else if (a === "--concurrent-calls") o.concurrentCalls = int(i++);
    else if (a === "--concurrency") o.concurrency = int(i++);
    else if (a === "--reps") o.reps = int(i++);
    else if (a === "--warmup") o.warmup = int(i++);
    else if (a === "--era") {
      const e = argv[++i];
      if (e === "both") o.eras = ERAS;
      else if (ERAS.includes(e)) o.eras = [e];
      else throw new Error("--era is modern, legacy or both");
    } else if (a === "--no-memory") o.memory = false;
    else if (a === "--quiet") o.quiet = true;
    else if (a === "--help" || a === "-h") {
      console.log(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${HELP}`);
  }
  o.concurrentCalls ??= o.calls * 2;
  return o;
}

// ---- the three clients, behind one shape: { call(), close(), serverPid } ------------------------

/** Loads one client's module; kept apart so the memory child imports only what it measures. */
async function load(key) {
  if (key === "conduit") return import("../dist/index.js");
  if (key === "official") {
    const [main, stdio] = await Promise.all([
      import("@modelcontextprotocol/client"),
      import("@modelcontextprotocol/client/stdio"),
    ]);
    return { ...main, ...stdio };
  }
  return import("./bare-client.mjs");
}

/**
 * Connects one client to a fresh server in `era` and checks that the era is the one asked for.
 * conduit: the default negotiation (`protocol: "auto"`) for modern, `protocol: "legacy"` for
 * legacy. official: `versionNegotiation: { mode: "auto" }` for modern (its default is the plain
 * 2025 `initialize` sequence), nothing for legacy.
 */
async function open(key, mod, era) {
  if (key === "conduit") {
    const client = new mod.Client({
      name: "bench",
      transport: { type: "stdio", command: NODE, args: [SERVER] },
      ...(era === "legacy" ? { protocol: "legacy" } : {}),
    });
    await client.ready();
    const s = client.status();
    if (s.era !== era) throw new Error(`conduit negotiated ${s.era}, wanted ${era}`);
    const args = { message: MESSAGE };
    return {
      version: s.version,
      call: () => client.callTool("echo", args),
      text: (r) => r.content[0]?.text,
      close: () => client.close(),
    };
  }
  if (key === "official") {
    const client = new mod.Client(
      { name: "bench", version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: "auto" } } : {},
    );
    const transport = new mod.StdioClientTransport({ command: NODE, args: [SERVER] });
    await client.connect(transport);
    const got = client.getProtocolEra();
    if (got !== era) throw new Error(`official client negotiated ${got}, wanted ${era}`);
    const params = { name: "echo", arguments: { message: MESSAGE } };
    return {
      version: client.getNegotiatedProtocolVersion(),
      call: () => client.callTool(params),
      text: (r) => r.content[0]?.text,
      close: () => client.close(),
    };
  }
  const client = await mod.BareClient.connect(NODE, [SERVER], era);
  const args = { message: MESSAGE };
  return {
    version: era === "modern" ? "2026-07-28" : "2025-11-25",
    call: () => client.callTool("echo", args),
    text: (r) => r.content[0]?.text,
    close: () => client.close(),
  };
}

// ---- measuring -----------------------------------------------------------------------------------

/** One measured run: calls per second, and the client's and the server's CPU per call. */
async function measure(c, mode, o) {
  const n = mode === "sequential" ? o.calls : o.concurrentCalls;
  // No forced gc() here: V8 finishes a forced collection on background threads, and
  // process.cpuUsage() counts every thread, so the next run would pay for it (about +30 µs a call).
  const srv0 = cpuOf(c.serverPid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (mode === "sequential") await sequential(c, n);
  else await concurrent(c, n, o.concurrency);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const srv1 = cpuOf(c.serverPid);
  return {
    callsPerSec: n / (ms / 1000),
    clientCpuUs: (cpu.user + cpu.system) / n,
    serverCpuUs: srv0 === null || srv1 === null ? null : (srv1 - srv0) / n,
  };
}

// ---- one era: connect the three, warm up, alternate the measured runs ---------------------------

async function runEra(era, mods, o, log, open_) {
  const clients = {};
  for (const key of CLIENT_KEYS) {
    const before = new Set(childPids() ?? []);
    const t0 = performance.now();
    const c = await open(key, mods[key], era);
    open_.add(c);
    c.key = key;
    c.connectMs = performance.now() - t0;
    const fresh = (childPids() ?? []).filter((p) => !before.has(p));
    c.serverPid = fresh.length === 1 ? fresh[0] : undefined;
    const first = await c.call();
    if (c.text(first) !== MESSAGE) throw new Error(`${key}: echo answered ${JSON.stringify(first)}`);
    clients[key] = c;
    log(`  ${era}: ${LABELS[key]} connected (${c.version}, server pid ${c.serverPid ?? "?"})`);
  }

  log(`  ${era}: warming up`);
  for (const key of CLIENT_KEYS) {
    await sequential(clients[key], o.warmup);
    await concurrent(clients[key], o.warmup, o.concurrency);
  }

  const runs = {};
  for (const mode of MODES) for (const key of CLIENT_KEYS) runs[`${mode}/${key}`] = [];
  for (let r = 0; r < o.reps; r++) {
    // Rotate who goes first each repetition so no client always runs on a warmer (or cooler) box.
    const order = CLIENT_KEYS.map((_, i) => CLIENT_KEYS[(i + r) % CLIENT_KEYS.length]);
    for (const mode of MODES) {
      for (const key of order) runs[`${mode}/${key}`].push(await measure(clients[key], mode, o));
    }
    log(`  ${era}: repetition ${r + 1}/${o.reps} done`);
  }

  for (const key of CLIENT_KEYS) {
    await clients[key].close();
    open_.delete(clients[key]);
  }
  for (const key of CLIENT_KEYS) {
    const pid = clients[key].serverPid;
    if (pid !== undefined && isRunning(pid)) {
      throw new Error(`${key}: server ${pid} still running after close()`);
    }
  }

  const rows = summarize(runs, clients, era, o.concurrency);
  return rows;
}

// ---- memory and start-up: one fresh process per client and era -----------------------------------

/**
 * Runs in a child (`--memory-child <client> <era>`, with --expose-gc): import the one client,
 * connect, make calls, then report the heap and RSS after a full GC, relative to the same process
 * before the import. One process per client keeps each figure free of the others' code and heap.
 */
async function memoryChild(key, era) {
  const gc = globalThis.gc; // the parent starts this process with --expose-gc
  const calls = 2000;
  gc();
  const base = process.memoryUsage();
  const t0 = performance.now();
  const mod = await load(key);
  const importMs = performance.now() - t0;
  const t1 = performance.now();
  const c = await open(key, mod, era);
  const connectMs = performance.now() - t1;
  await sequential(c, calls);
  await concurrent(c, calls, 16);
  gc();
  gc();
  const after = process.memoryUsage();
  await c.close();
  process.stdout.write(
    `${JSON.stringify({
      client: key,
      era,
      importMs,
      connectMs,
      heapDeltaMB: (after.heapUsed - base.heapUsed) / 2 ** 20,
      rssDeltaMB: (after.rss - base.rss) / 2 ** 20,
    })}\n`,
  );
}

function runMemoryChild(key, era) {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ["--expose-gc", fileURLToPath(import.meta.url), "--memory-child", key, era], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`memory child ${key}/${era} failed (${code ?? signal})`));
      resolve(JSON.parse(out));
    });
  });
}

// ---- output --------------------------------------------------------------------------------------

function render(result) {
  const { config, machine, rows, memory } = result;
  const out = [];
  out.push(
    `tools/call over stdio, ${machine.cpus} CPU(s), Node ${machine.node}; median of ${config.reps} runs of ` +
      `${config.calls} sequential / ${config.concurrentCalls} concurrent calls (${config.concurrency} callers)`,
  );
  out.push("", ...reportRows(rows));
  if (memory) {
    out.push("");
    out.push(
      "one client per fresh process: import, connect, 2 000 + 2 000 calls, full GC; deltas from before the import",
    );
    out.push(
      table(
        ["era", "client", "import ms", "connect ms", "heap MB", "RSS MB"],
        memory.map((m) => [
          m.era,
          LABELS[m.client],
          m.importMs.toFixed(0),
          m.connectMs.toFixed(0),
          m.heapDeltaMB.toFixed(1),
          m.rssDeltaMB.toFixed(1),
        ]),
        new Set([2, 3, 4, 5]),
      ),
    );
  }
  return out.join("\n");
}

// ---- main ----------------------------------------------------------------------------------------

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === "--memory-child") return memoryChild(argv[1], argv[2]);
  const o = parseArgs(argv);
  const log = o.quiet ? () => {} : (m) => process.stderr.write(`${m}\n`);
  const mods = {};
  for (const key of CLIENT_KEYS) mods[key] = await load(key);

  const opened = new Set();
  const stop = async (signal) => {
    await Promise.allSettled([...opened].map((c) => c.close()));
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);

  const started = performance.now();
  const rows = [];
  try {
    for (const era of o.eras) {
      log(`${era} era`);
      rows.push(...(await runEra(era, mods, o, log, opened)));
    }
  } finally {
    await Promise.allSettled([...opened].map((c) => c.close()));
  }

  let memory = null;
  if (o.memory) {
    log("memory and start-up (one process per client)");
    memory = [];
    for (const era of o.eras) for (const key of CLIENT_KEYS) memory.push(await runMemoryChild(key, era));
  }

  const left = childPids();
  if (left && left.length > 0) throw new Error(`processes left running: ${left.join(", ")}`);
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);

  const result = {
    benchmark: "stdio tools/call",
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? null,
      node: process.versions.node,
      platform: process.platform,
    },
    config: {
      calls: o.calls,
      concurrentCalls: o.concurrentCalls,
      concurrency: o.concurrency,
      reps: o.reps,
      warmup: o.warmup,
      eras: o.eras,
    },
    seconds: (performance.now() - started) / 1000,
    rows,
    memory,
  };
  log(`done in ${result.seconds.toFixed(1)} s`);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${render(result)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
