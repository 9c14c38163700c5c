// tools/call over Streamable HTTP: conduit-mcp (from dist/) against the official
// @modelcontextprotocol/client (StreamableHTTPClientTransport) and a bare node:http keep-alive
// loop (the ceiling), all against the same official server, in both protocol eras, sequential and
// 16-concurrent.
//
//   npm run bench:http                 build, then run with the defaults (under a minute)
//   node bench/http.mjs --json         machine-readable output on stdout (progress on stderr)
//   node bench/http.mjs --help         every option
//
// See bench/README.md for what is measured and how.
import { spawn } from "node:child_process";
import os from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { childPids, concurrent, cpuOf, LABELS, reportRows, sequential, summarize } from "./common.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, "http-server.mjs");
const NODE = process.execPath;
const MESSAGE = "hello";
const CLIENT_KEYS = ["conduit", "official", "bare"];
const ERAS = ["modern", "legacy"];
const MODES = ["sequential", "concurrent"];
/** What is running now (era, client, step), so a warning can say where it came from. */
let phase = "start-up";

// ---- options -----------------------------------------------------------------------------------

const HELP = `usage: node bench/http.mjs [options]
  --json              print the results as JSON on stdout (progress goes to stderr)
  --calls N           calls per measured run, sequential (default 200)
  --concurrent-calls N  calls per measured run, concurrent (default 2x --calls)
  --concurrency K     callers in parallel in the concurrent runs (default 16)
  --reps R            measured runs per client, era and mode; the median is reported (default 9)
  --warmup N          warm-up calls per client and mode before measuring (default 400)
  --era E             modern, legacy or both (default both)
  --quiet             no progress on stderr`;

function parseArgs(argv) {
  const o = {
    json: false,
    calls: 200,
    concurrentCalls: undefined,
    concurrency: 16,
    reps: 9,
    warmup: 400,
    eras: ERAS,
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
    } else if (a === "--quiet") o.quiet = true;
    else if (a === "--help" || a === "-h") {
      console.log(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${HELP}`);
  }
  o.concurrentCalls ??= o.calls * 2;
  return o;
}

// ---- the server: one child process per era, shared by the three clients -----------------------

/**
 * Starts `bench/http-server.mjs` on a free port of 127.0.0.1. Its stdin is a pipe: the server
 * exits when it ends, so it cannot outlive this process even if this one is killed.
 */
async function startServer() {
  const child = spawn(NODE, [SERVER], { stdio: ["pipe", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const port = await new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error("the server did not start in 15 s")), 15_000);
    child.stdout.on("data", (d) => {
      seen += d;
      const m = /LISTENING (\d+)/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the server exited before it was ready (${code ?? signal})`));
    });
  });
  child.stdout.resume();
  let stopping;
  return {
    pid: child.pid,
    url: `http://127.0.0.1:${port}/mcp`,
    /** Ends its stdin; SIGTERM, then SIGKILL, if it lingers. Resolves once it has exited. */
    stop() {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.stdin.end();
        const within = (ms) =>
          Promise.race([exited.then(() => true), new Promise((r) => setTimeout(r, ms, false).unref())]);
        if (await within(2000)) return;
        child.kill("SIGTERM");
        if (await within(2000)) return;
        child.kill("SIGKILL");
        await exited;
      })();
      return stopping;
    },
  };
}

// ---- the three clients, behind one shape: { call(), close() } -----------------------------------

async function load(key) {
  if (key === "conduit") return import("../dist/index.js");
  if (key === "official") return import("@modelcontextprotocol/client");
  return import("./http-bare-client.mjs");
}

/**
 * Connects one client to `url` in `era` and checks that the era is the one asked for.
 * conduit: the default negotiation (`protocol: "auto"`) for modern, `protocol: "legacy"` for
 * legacy. official: `versionNegotiation: { mode: "auto" }` for modern (its default is the plain
 * 2025 `initialize` sequence), nothing for legacy.
 */
async function open(key, mod, era, url) {
  if (key === "conduit") {
    const client = new mod.Client({
      name: "bench",
      transport: { type: "http", url },
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
    await client.connect(new mod.StreamableHTTPClientTransport(new URL(url)));
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
  const client = await mod.BareHttpClient.connect(url, era);
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
async function measure(c, mode, o, serverPid) {
  const n = mode === "sequential" ? o.calls : o.concurrentCalls;
  // No forced gc(): see bench/stdio.mjs (a forced collection's background work lands in the next run).
  const srv0 = cpuOf(serverPid);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (mode === "sequential") await sequential(c, n);
  else await concurrent(c, n, o.concurrency);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const srv1 = cpuOf(serverPid);
  return {
    callsPerSec: n / (ms / 1000),
    clientCpuUs: (cpu.user + cpu.system) / n,
    serverCpuUs: srv0 === null || srv1 === null ? null : (srv1 - srv0) / n,
  };
}

// ---- one era: a fresh server, connect the three, warm up, alternate the measured runs -----------

async function runEra(era, mods, o, log, cleanup) {
  const server = await startServer();
  cleanup.add(server.stop);
  log(`  ${era}: server pid ${server.pid} at ${server.url}`);
  const clients = {};
  try {
    for (const key of CLIENT_KEYS) {
      phase = `${era}, ${LABELS[key]}, connect`;
      const t0 = performance.now();
      const c = await open(key, mods[key], era, server.url);
      cleanup.add(c.close);
      c.connectMs = performance.now() - t0;
      const first = await c.call();
      if (c.text(first) !== MESSAGE) throw new Error(`${key}: echo answered ${JSON.stringify(first)}`);
      clients[key] = c;
      log(`  ${era}: ${LABELS[key]} connected (${c.version}, ${c.connectMs.toFixed(0)} ms)`);
    }

    log(`  ${era}: warming up`);
    for (const key of CLIENT_KEYS) {
      phase = `${era}, ${LABELS[key]}, warm-up`;
      await sequential(clients[key], o.warmup);
      await concurrent(clients[key], o.warmup, o.concurrency);
    }

    const runs = {};
    for (const mode of MODES) for (const key of CLIENT_KEYS) runs[`${mode}/${key}`] = [];
    for (let r = 0; r < o.reps; r++) {
      // Rotate who goes first each repetition so no client always runs on a warmer (or cooler) box.
      const order = CLIENT_KEYS.map((_, i) => CLIENT_KEYS[(i + r) % CLIENT_KEYS.length]);
      for (const mode of MODES) {
        for (const key of order) {
          phase = `${era}, ${LABELS[key]}, ${mode} run`;
          runs[`${mode}/${key}`].push(await measure(clients[key], mode, o, server.pid));
        }
      }
      log(`  ${era}: repetition ${r + 1}/${o.reps} done`);
    }

    return summarise(era, clients, runs, o);
  } finally {
    phase = `${era}, closing`;
    for (const key of CLIENT_KEYS) {
      const c = clients[key];
      if (!c) continue;
      await c.close();
      cleanup.delete(c.close);
    }
    await server.stop();
    cleanup.delete(server.stop);
  }
}

/** Per mode and client: the medians, the run range, and the ratios to the official client and the bare loop. */
function summarise(era, clients, runs, o) {
  const rows = summarize(runs, clients, era, o.concurrency);
  return rows;
}

// ---- output --------------------------------------------------------------------------------------

function render(result) {
  const { config, machine, rows, warnings } = result;
  const out = [];
  out.push(
    `tools/call over Streamable HTTP (127.0.0.1), ${machine.cpus} CPU(s), Node ${machine.node}; median of ` +
      `${config.reps} runs of ${config.calls} sequential / ${config.concurrentCalls} concurrent calls ` +
      `(${config.concurrency} callers)`,
  );
  out.push("", ...reportRows(rows));
  for (const w of warnings) out.push("", `warning during the run: ${w}`);
  return out.join("\n");
}

// ---- main ----------------------------------------------------------------------------------------

/**
 * Node prints a MaxListenersExceededWarning for every listener past the limit. The official
 * client adds one to a long-lived AbortSignal per legacy request (see bench/README.md), which
 * would bury the progress: each kind of warning is printed once, and listed again at the end.
 */
function collectWarnings(log) {
  const seen = new Map();
  process.removeAllListeners("warning");
  process.on("warning", (w) => {
    const key = w.name === "MaxListenersExceededWarning" ? w.name : `${w.name}: ${w.message}`;
    const entry = seen.get(key);
    if (entry) {
      entry.count += 1;
      entry.last = w.message;
      return;
    }
    seen.set(key, { name: w.name, first: w.message, last: w.message, count: 1, phase });
    log(`  ${w.name} (${phase}): ${w.message}`);
  });
  return () =>
    [...seen.values()].map((e) =>
      e.count === 1
        ? `${e.name}, first during ${e.phase}: ${e.first}`
        : `${e.name} x${e.count}, first during ${e.phase}; the last: ${e.last}`,
    );
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const log = o.quiet ? () => {} : (m) => process.stderr.write(`${m}\n`);
  const warnings = collectWarnings(log);
  const mods = {};
  for (const key of CLIENT_KEYS) mods[key] = await load(key);

  // Whatever is open (clients, servers), so Ctrl-C and failures close it all.
  const cleanup = new Set();
  const closeAll = () => Promise.allSettled([...cleanup].map((f) => f()));
  const stop = async (signal) => {
    await closeAll();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);

  const started = performance.now();
  const rows = [];
  try {
    for (const era of o.eras) {
      log(`${era} era`);
      rows.push(...(await runEra(era, mods, o, log, cleanup)));
      const left = childPids();
      if (left && left.length > 0) throw new Error(`${era}: processes left running: ${left.join(", ")}`);
    }
  } finally {
    await closeAll();
  }

  const left = childPids();
  if (left && left.length > 0) throw new Error(`processes left running: ${left.join(", ")}`);
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);

  const result = {
    benchmark: "Streamable HTTP tools/call",
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
    warnings: warnings(),
  };
  log(`done in ${result.seconds.toFixed(1)} s`);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${render(result)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
