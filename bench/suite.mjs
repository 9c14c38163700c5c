// The speed suite: conduit-mcp against the floor (a bare JSON-RPC client against a bare peer,
// same pipe or socket, same interleaved run) and the official client, over stdio and HTTP, in
// both eras. Optionally a second conduit build (--base DIR) in the same run, for before/after.
//
//   npm run bench                          build, then this suite, then the official-server ones
//   node bench/suite.mjs --base /tmp/bench-base   the same cells for another build too
//   node bench/suite.mjs --short --json    the CI size (bench/guard.mjs reads it)
//   node bench/suite.mjs --help            every option
//
// See bench/README.md for what is measured and how.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BARE_STDIO,
  BARE_STDIO_MEMORY,
  MEMORY_PEER_ARGS,
  OFFICIAL_STDIO,
  startHttpPeer,
} from "./bare-peer.mjs";
import { load, MESSAGE, open } from "./clients.mjs";
import { childPids, concurrent, fmtRatio, median, sequential, table } from "./common.mjs";
import { FIXED_ENV, FIXED_V8_FLAGS, perClient, settled } from "./memory.mjs";

const NODE = process.execPath;
const ERAS = ["modern", "legacy"];
const LABELS = { conduit: "conduit", base: "base", official: "official", bare: "bare" };

const HELP = `usage: node bench/suite.mjs [options]
  --base DIR     also measure the conduit-mcp build in DIR (its dist/), e.g. a worktree of an older commit
  --short        the CI size: conduit and bare only, bare peers, fewer calls and repetitions, no memory
  --reps R       measured repetitions (default 7, short 3)
  --calls N      sequential calls per run over stdio (default 1000, short 200); HTTP uses a quarter
  --no-official  leave the official client out
  --no-memory    skip memory per connected client and import time
  --memory-only  only memory per connected client and import time (no call or listing cells)
  --memory-reps M  fresh processes per fixed memory cell, the clients taking turns; the median (default 3)
  --json         the results as JSON on stdout (progress on stderr)
  --quiet        no progress on stderr`;

function parseArgs(argv) {
  const o = { base: undefined, short: false, reps: undefined, calls: undefined, official: true };
  Object.assign(o, { memory: true, json: false, quiet: false });
  const int = (i) => {
    const v = Number(argv[i + 1]);
    if (!Number.isInteger(v) || v < 1) throw new Error(`${argv[i]} needs a positive integer`);
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--base") o.base = argv[++i];
    else if (a === "--short") o.short = true;
    else if (a === "--reps") o.reps = int(i++);
    else if (a === "--calls") o.calls = int(i++);
    else if (a === "--no-official") o.official = false;
    else if (a === "--no-memory") o.memory = false;
    else if (a === "--memory-only") o.memoryOnly = true;
    else if (a === "--memory-reps") o.memoryReps = int(i++);
    else if (a === "--json") o.json = true;
    else if (a === "--quiet") o.quiet = true;
    else if (a === "--help" || a === "-h") {
      console.log(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${HELP}`);
  }
  if (o.base !== undefined && !existsSync(join(o.base, "dist/index.js"))) {
    throw new Error(`--base ${o.base}: no dist/index.js there (build it first)`);
  }
  o.reps ??= o.short ? 3 : 7;
  o.memoryReps ??= 3;
  o.calls ??= o.short ? 200 : 1000;
  if (o.short) {
    o.official = false;
    o.memory = false;
  }
  o.clients = ["conduit", ...(o.base ? ["base"] : []), ...(o.official ? ["official"] : []), "bare"];
  return o;
}

// ---- the runs ----------------------------------------------------------------------------------

/**
 * The cells of one group (transport, peer, era). A mode is "sequential", "c16", "c64" (that many
 * callers, each awaiting its call before the next) or "listing" (full listings, one after another).
 */
async function measure(c, mode, n) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  if (mode === "sequential") await sequential(c, n);
  else if (mode === "listing") for (let i = 0; i < n; i++) await c.listAll();
  else await concurrent(c, n, Number(mode.slice(1)));
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { perSec: n / (ms / 1000), cpuUs: (cpu.user + cpu.system) / n, ms: ms / n };
}

function callsFor(mode, transport, o) {
  const calls = transport === "http" ? Math.max(50, o.calls >> 2) : o.calls;
  if (mode === "sequential") return calls;
  if (mode === "listing") return o.short ? 3 : 6;
  return calls * 2;
}

async function runGroup(g, o, log, opened) {
  const { transport, peer, era, modes } = g;
  const http = transport === "http" ? await startHttpPeer() : undefined;
  const target = http ? { url: http.url } : peer === "official" ? OFFICIAL_STDIO : BARE_STDIO;
  const clients = {};
  try {
    for (const key of o.clients) {
      const c = await open(key, await load(key, transport, o.base), transport, era, target);
      opened.add(c);
      clients[key] = c;
      const first = await c.call();
      if (first.content?.[0]?.text !== MESSAGE)
        throw new Error(`${key}: echo answered ${JSON.stringify(first)}`);
      if (modes.includes("listing")) {
        const tools = await c.listAll();
        if (tools.length !== 1001) throw new Error(`${key}: listed ${tools.length} tools, not 1 001`);
      }
    }
    // Warm-up: every mode once, so the JIT has seen each path before anything is timed.
    for (const key of o.clients)
      for (const mode of modes) await measure(clients[key], mode, callsFor(mode, transport, o));
    const runs = {};
    for (let r = 0; r < o.reps; r++) {
      // The order rotates each repetition so no client always runs first.
      const order = o.clients.map((_, i) => o.clients[(i + r) % o.clients.length]);
      for (const mode of modes) {
        for (const key of order) {
          const k = `${mode}/${key}`;
          if (!runs[k]) runs[k] = [];
          runs[k].push(await measure(clients[key], mode, callsFor(mode, transport, o)));
        }
      }
    }
    log(`  ${transport} ${era} (${peer} peer): ${o.reps} repetitions done`);
    return runs;
  } finally {
    for (const c of Object.values(clients)) {
      await c.close();
      opened.delete(c);
    }
    await http?.stop();
  }
}

/** Rows of one group: the medians, and each client's median per-repetition ratio to the bare one. */
function rowsOf(g, runs, o) {
  const rows = [];
  for (const mode of g.modes) {
    const bare = runs[`${mode}/bare`];
    for (const key of o.clients) {
      const rs = runs[`${mode}/${key}`];
      rows.push({
        transport: g.transport,
        peer: g.peer,
        era: g.era,
        mode,
        client: key,
        perSec: median(rs.map((x) => x.perSec)),
        ms: median(rs.map((x) => x.ms)),
        cpuUs: median(rs.map((x) => x.cpuUs)),
        // Per repetition, the runs are back to back: slow drift of the machine cancels out.
        vsBare: median(rs.map((x, i) => x.perSec / bare[i].perSec)),
        cpuVsBare: median(rs.map((x, i) => x.cpuUs / bare[i].cpuUs)),
        vsBase: runs[`${mode}/base`]
          ? median(rs.map((x, i) => x.perSec / runs[`${mode}/base`][i].perSec))
          : null,
      });
    }
  }
  return rows;
}

// ---- memory per connected client and import time: one fresh process per client ---------------

/**
 * In a child (`--memory-child default|fixed key transport era n [url] [base]`):
 * - `default` (the figure as first measured, kept so runs stay comparable with earlier ones): with
 *   default V8 flags, import the client (timed), connect `n` of it to the peer, one call on each
 *   twice, two full GCs, RSS and heap growth per client from just after the import. This counts
 *   V8's young-generation growth during the burst (see bench/memory.mjs), so it moves in steps.
 * - `fixed` (bench/memory.mjs: the young generation held at one size, read once settled): the same
 *   `n` clients from just after the import ("from import": everything they make the process hold,
 *   the libraries they load on first use included), then `n` more ("marginal": what each further
 *   client adds once everything is loaded and compiled).
 */
async function memoryChild([mode, key, transport, era, n, url, base]) {
  const t0 = performance.now();
  const mod = await load(key, transport, base || undefined);
  const importMs = performance.now() - t0;
  const target = transport === "http" ? { url } : BARE_STDIO_MEMORY;
  const count = Number(n);
  const cs = [];
  const connect = async () => {
    const batch = [];
    for (let i = 0; i < count; i++) batch.push(await open(key, mod, transport, era, target));
    await Promise.all(batch.map((c) => c.call()));
    await Promise.all(batch.map((c) => c.call()));
    cs.push(...batch);
  };
  let out;
  if (mode === "default") {
    const gc = globalThis.gc;
    gc();
    const m0 = process.memoryUsage();
    await connect();
    gc();
    gc();
    out = { importMs, ...perClient(m0, process.memoryUsage(), count) };
  } else {
    // Sockets held, counted beside the memory: a client kind that shares sockets (the official
    // client's global dispatcher) holds fewer than one per client, and a socket costs RSS.
    const m0 = await settled();
    const k0 = sockets();
    await connect();
    const m1 = await settled();
    const k1 = sockets();
    await connect();
    const m2 = await settled();
    const k2 = sockets();
    out = {
      importMs,
      fromImport: { ...perClient(m0, m1, count), sockets: (k1 - k0) / count },
      marginal: { ...perClient(m1, m2, count), sockets: (k2 - k1) / count },
    };
  }
  for (const c of cs) await c.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runMemoryChild(args) {
  const fixed = args[0] === "fixed";
  return new Promise((resolve, reject) => {
    const flags = fixed ? FIXED_V8_FLAGS : ["--expose-gc"];
    const child = spawn(NODE, [...flags, fileURLToPath(import.meta.url), "--memory-child", ...args], {
      stdio: ["ignore", "pipe", "inherit"],
      env: fixed ? FIXED_ENV : process.env,
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`memory child ${args.join(" ")} failed (${code ?? signal})`));
      resolve(JSON.parse(out));
    });
  });
}

/** Open sockets of this process (Linux: the descriptors that are sockets; 0 elsewhere). */
function sockets() {
  let n = 0;
  try {
    for (const fd of readdirSync("/proc/self/fd")) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) n++;
      } catch {}
    }
  } catch {}
  return n;
}

/** The median of each figure over the repetitions of a fixed cell. */
function medianCell(runs) {
  const pick = (part) =>
    Object.fromEntries(Object.keys(runs[0][part]).map((k) => [k, median(runs.map((r) => r[part][k]))]));
  return { fromImport: pick("fromImport"), marginal: pick("marginal"), reps: runs.length };
}

async function runMemory(o, log) {
  const out = [];
  const http = await startHttpPeer(MEMORY_PEER_ARGS);
  try {
    for (const [transport, n] of [
      ["http", 200],
      ["stdio", 20],
    ]) {
      for (const era of ERAS) {
        // The fixed cell read RSS 20 KB apart between runs of one build (82 and 101 KB per HTTP
        // client): each client kind runs it in `memoryReps` fresh processes, the kinds taking
        // turns, and the median of each figure is reported.
        const fixed = new Map(o.clients.map((c) => [c, []]));
        const defaults = new Map();
        for (let rep = 0; rep < o.memoryReps; rep++) {
          for (const client of o.clients) {
            const args = [client, transport, era, String(n), http.url, o.base ?? ""];
            if (rep === 0) defaults.set(client, await runMemoryChild(["default", ...args]));
            fixed.get(client).push(await runMemoryChild(["fixed", ...args]));
          }
        }
        for (const client of o.clients) {
          const d = defaults.get(client);
          out.push({
            transport,
            era,
            client,
            clients: n,
            importMs: d.importMs,
            rssKB: d.rssKB,
            heapKB: d.heapKB,
            ...medianCell(fixed.get(client)),
          });
        }
        log(`  memory: ${transport} ${era} done`);
      }
    }
  } finally {
    await http.stop();
  }
  return out;
}

// ---- output ------------------------------------------------------------------------------------

const MODE_LABEL = {
  sequential: "sequential",
  c16: "16 in flight",
  c64: "64 in flight",
  listing: "listAllTools",
};

export function render(result, o) {
  const { rows, memory, machine } = result;
  const out = [
    `speed suite, ${result.date}, ${machine.cpus} x ${machine.cpu}, Node ${machine.node}, ` +
      `load ${machine.loadBefore.join(" ")} before; ${o.reps} interleaved repetitions`,
    "",
  ];
  const hasBase = o.clients.includes("base");
  out.push(
    table(
      [
        "transport",
        "peer",
        "era",
        "mode",
        "client",
        "per s",
        "ms each",
        "CPU µs each",
        "vs bare",
        "CPU vs bare",
        ...(hasBase ? ["vs base"] : []),
      ],
      rows.map((r) => [
        r.transport,
        r.peer,
        r.era,
        MODE_LABEL[r.mode],
        LABELS[r.client],
        r.perSec.toFixed(0),
        r.ms.toFixed(3),
        r.cpuUs.toFixed(0),
        fmtRatio(r.vsBare),
        fmtRatio(r.cpuVsBare),
        ...(hasBase ? [r.vsBase === null ? "" : fmtRatio(r.vsBase)] : []),
      ]),
      new Set([5, 6, 7, 8, 9, 10]),
    ),
  );
  if (memory) {
    out.push(
      "",
      `memory per connected client, KB each, fixed cells the median of ${o.memoryReps} fresh processes (bench/README.md, Memory):`,
      "  fixed  = young generation held at one size, read once RSS is steady after a full GC; the goal row reads it",
      "  from import = the first N clients from just after the import (what they load on first use included)",
      "  marginal = N more clients after those (what each further one adds)",
      "  sockets = sockets the process holds more, per client (the official client shares its global dispatcher's)",
      "  default V8 = the figure as first measured: default flags, counts the young generation's growth",
    );
    out.push(
      table(
        [
          "transport",
          "era",
          "client",
          "clients",
          "RSS fixed, from import",
          "heap",
          "sockets",
          "RSS fixed, marginal",
          "heap",
          "sockets",
          "RSS default V8",
          "heap",
          "import ms",
        ],
        memory.map((m) => [
          m.transport,
          m.era,
          LABELS[m.client],
          m.clients,
          m.fromImport.rssKB.toFixed(0),
          m.fromImport.heapKB.toFixed(1),
          (m.fromImport.sockets ?? 0).toFixed(2),
          m.marginal.rssKB.toFixed(0),
          m.marginal.heapKB.toFixed(1),
          (m.marginal.sockets ?? 0).toFixed(2),
          m.rssKB.toFixed(0),
          m.heapKB.toFixed(1),
          m.importMs.toFixed(0),
        ]),
        new Set([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
      ),
    );
  }
  out.push("", ...goalLines(result, o));
  return out.join("\n");
}

/** The issue-12 goals table: each cell as conduit legacy / modern, with official and base beside. */
export function goals(result) {
  const { rows, memory } = result;
  const cell = (transport, peer, mode, client, era, f) => {
    const r = rows.find(
      (x) =>
        x.transport === transport &&
        x.peer === peer &&
        x.mode === mode &&
        x.client === client &&
        x.era === era,
    );
    return r ? f(r) : null;
  };
  const memOn = (transport, client, era, f) => {
    const m = memory?.find((x) => x.transport === transport && x.client === client && x.era === era);
    return m ? f(m) : null;
  };
  const mem = (client, era, f) => memOn("http", client, era, f);
  const speed = (r) => r.vsBare;
  const cpu = (r) => r.cpuVsBare;
  const time = (r) => 1 / r.vsBare; // listing: time per listing against the bare listing's
  return [
    {
      goal: "stdio sequential calls/s",
      unit: "%",
      min: 0.9,
      get: (c, e) => cell("stdio", "bare", "sequential", c, e, speed),
    },
    {
      goal: "stdio client CPU per call",
      unit: "x",
      max: 1.3,
      get: (c, e) => cell("stdio", "bare", "sequential", c, e, cpu),
    },
    {
      goal: "stdio 64 in flight, calls/s",
      unit: "%",
      min: 0.8,
      get: (c, e) => cell("stdio", "bare", "c64", c, e, speed),
    },
    {
      goal: "stdio 64 in flight, official server",
      unit: "%",
      min: 0.95,
      get: (c, e) => cell("stdio", "official", "c64", c, e, speed),
    },
    {
      goal: "1 000-tool listAllTools() (stdio)",
      unit: "x",
      max: 1.2,
      get: (c, e) => cell("stdio", "bare", "listing", c, e, time),
    },
    {
      goal: "HTTP 64 in flight",
      unit: "%",
      min: 0.8,
      get: (c, e) => cell("http", "bare", "c64", c, e, speed),
    },
    // The goal row reads the fixed cell from the import: the issue's definition (200 clients, what
    // they make the process hold, one-off loads included), without the young generation's growth.
    {
      goal: "RSS per connected HTTP client (200), fixed",
      unit: "KB",
      max: 60,
      get: (c, e) => mem(c, e, (m) => m.fromImport.rssKB),
    },
    // Shown beside, no target: what one more client adds, and the figure as first measured.
    {
      goal: "  the same, marginal (200 more)",
      unit: "KB",
      get: (c, e) => mem(c, e, (m) => m.marginal.rssKB),
    },
    { goal: "  the same, default V8 (as before)", unit: "KB", get: (c, e) => mem(c, e, (m) => m.rssKB) },
    // Issue 26's memory goals, each against a peer of the same run and era (`peer`, `factor`).
    {
      goal: "RSS per HTTP client, fixed, vs 1.3x bare",
      unit: "KB",
      peer: "bare",
      factor: 1.3,
      get: (c, e) => mem(c, e, (m) => m.fromImport.rssKB),
    },
    {
      goal: "heap per HTTP client (200), from import",
      unit: "KB",
      peer: "official",
      get: (c, e) => mem(c, e, (m) => m.fromImport.heapKB),
    },
    {
      goal: "  the same, marginal (200 more)",
      unit: "KB",
      peer: "official",
      get: (c, e) => mem(c, e, (m) => m.marginal.heapKB),
    },
    {
      goal: "heap per stdio client (20), from import",
      unit: "KB",
      peer: "official",
      get: (c, e) => memOn("stdio", c, e, (m) => m.fromImport.heapKB),
    },
    {
      goal: "  the same, marginal (20 more)",
      unit: "KB",
      peer: "official",
      get: (c, e) => memOn("stdio", c, e, (m) => m.marginal.heapKB),
    },
  ];
}

function goalLines(result, o) {
  const fmt = (v, unit) =>
    v === null
      ? "?"
      : unit === "%"
        ? `${Math.round(v * 100)} %`
        : unit === "KB"
          ? `${Math.round(v)} KB`
          : `${v.toFixed(2)}x`;
  const pair = (g, c) => `${fmt(g.get(c, "legacy"), g.unit)} / ${fmt(g.get(c, "modern"), g.unit)}`;
  const cols = [
    "goal",
    "conduit legacy / modern",
    ...(o.clients.includes("base") ? ["base legacy / modern"] : []),
  ];
  if (o.clients.includes("official")) cols.push("official legacy / modern");
  cols.push("bare legacy / modern", "target", "met");
  // --memory-only: the rate rows have nothing to show.
  const shown = goals(result).filter((g) => !o.memoryOnly || g.unit === "KB");
  const rows = shown.map((g) => {
    const vals = [g.get("conduit", "legacy"), g.get("conduit", "modern")];
    if (g.peer !== undefined) return peerRow(g, vals, pair, o);
    const target = g.min ?? g.max;
    const met = vals.every((v) => v !== null && (g.min !== undefined ? v >= g.min : v <= g.max));
    return [
      g.goal,
      pair(g, "conduit"),
      ...(o.clients.includes("base") ? [pair(g, "base")] : []),
      ...(o.clients.includes("official") ? [pair(g, "official")] : []),
      pair(g, "bare"),
      target === undefined
        ? ""
        : g.min !== undefined
          ? `>= ${fmt(g.min, g.unit)}`
          : `<= ${fmt(g.max, g.unit)}`,
      target === undefined ? "" : vals.includes(null) ? "?" : met ? "yes" : "no",
    ];
  });
  return [
    "against the floor (the bare client on the same peer, same run); % of its calls/s, x its CPU or time;",
    "memory in KB per client (the RSS goal row: the fixed cell from the import, see the memory table)",
    table(cols, rows, new Set()),
  ];
}

/** A goal against a peer of the same era and run: conduit at most `factor` (1) times the peer's. */
function peerRow(g, vals, pair, o) {
  const factor = g.factor ?? 1;
  const limits = [g.get(g.peer, "legacy"), g.get(g.peer, "modern")];
  const known = !vals.includes(null) && !limits.includes(null);
  const met = known && vals.every((v, i) => v <= limits[i] * factor);
  return [
    g.goal,
    pair(g, "conduit"),
    ...(o.clients.includes("base") ? [pair(g, "base")] : []),
    ...(o.clients.includes("official") ? [pair(g, "official")] : []),
    pair(g, "bare"),
    `<= ${factor === 1 ? "" : `${factor}x `}${g.peer}`,
    known ? (met ? "yes" : "no") : "?",
  ];
}

// ---- main --------------------------------------------------------------------------------------

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === "--memory-child") return memoryChild(argv.slice(1));
  const o = parseArgs(argv);
  const log = o.quiet ? () => {} : (m) => process.stderr.write(`${m}\n`);
  // The official client's legacy HTTP transport adds an abort listener per request to one
  // long-lived signal (bench/README.md, HTTP section): Node would print thousands of
  // MaxListenersExceededWarning lines. Each kind of warning is printed once, with a count at the end.
  const warned = new Map();
  process.removeAllListeners("warning");
  process.on("warning", (w) => {
    const n = (warned.get(w.name) ?? 0) + 1;
    warned.set(w.name, n);
    if (n === 1) log(`warning: ${w.name}: ${w.message} (further ones counted, not printed)`);
  });
  const loadBefore = os.loadavg().map((x) => x.toFixed(1));
  const started = performance.now();
  const groups = [];
  // The listing runs with clients of its own: after a 1 001-tool listing the official client's
  // calls are slow for a while (its first 1 000 calls after one cost 1.9 ms of CPU each against
  // 0.16 ms before), so sharing clients made its call cells measure the listing's aftermath.
  for (const era of ERAS) {
    groups.push({
      transport: "stdio",
      peer: "bare",
      era,
      modes: o.short ? ["sequential", "c64"] : ["sequential", "c16", "c64"],
    });
    groups.push({ transport: "stdio", peer: "bare", era, modes: ["listing"] });
    groups.push({
      transport: "http",
      peer: "bare",
      era,
      modes: o.short ? ["sequential"] : ["sequential", "c16", "c64"],
    });
    groups.push({ transport: "http", peer: "bare", era, modes: ["listing"] });
    if (!o.short) groups.push({ transport: "stdio", peer: "official", era, modes: ["sequential", "c64"] });
  }
  const opened = new Set();
  const stop = async () => {
    await Promise.allSettled([...opened].map((c) => c.close()));
    process.exit(130);
  };
  process.once("SIGINT", stop);
  const rows = [];
  if (o.memoryOnly) groups.length = 0;
  try {
    for (const g of groups) rows.push(...rowsOf(g, await runGroup(g, o, log, opened), o));
  } finally {
    await Promise.allSettled([...opened].map((c) => c.close()));
  }
  const memory = o.memory ? await runMemory(o, log) : null;
  const left = childPids();
  if (left && left.length > 0) throw new Error(`processes left running: ${left.join(", ")}`);
  process.off("SIGINT", stop);
  const result = {
    benchmark: "speed suite",
    date: new Date().toISOString().slice(0, 16).replace("T", " "),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model ?? null,
      node: process.versions.node,
      platform: process.platform,
      loadBefore,
      loadAfter: os.loadavg().map((x) => x.toFixed(1)),
    },
    config: { short: o.short, reps: o.reps, calls: o.calls, clients: o.clients, base: o.base ?? null },
    seconds: (performance.now() - started) / 1000,
    rows,
    memory,
  };
  result.goals = goals(result).map((g) => ({
    goal: g.goal,
    unit: g.unit,
    target: g.min ?? g.max ?? null,
    ...Object.fromEntries(o.clients.flatMap((c) => ERAS.map((e) => [`${c}/${e}`, g.get(c, e)]))),
  }));
  for (const [name, n] of warned) log(`warning: ${name} x${n} during the run`);
  log(`done in ${result.seconds.toFixed(1)} s`);
  process.stdout.write(o.json ? `${JSON.stringify(result, null, 2)}\n` : `${render(result, o)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
