// A hub as it grows: 1, 10, 30 and 100 servers of 100 tools each (10 000 tools at 100), in-process
// and as real stdio processes (bench/tools-server.mjs, the official server), and one server of
// 10 000 tools against the bare client.
//
//   npm run build && node bench/scale.mjs            every part (a few minutes; 100 processes)
//   node bench/scale.mjs --sizes 1,10 --kinds in-process --reps 3     a short run
//   node bench/scale.mjs --json                      machine-readable output on stdout
//   node bench/scale.mjs --help                      every option
//
// At each size, for each kind: `hub.ready()`, the first full `listTools()`, the heap and RSS the
// hub and its clients hold after it (per server), a routed call against the same server's client
// called directly, a full listing (`refresh: true`) against the sum of the servers' own listings,
// then one server's list_changed (every server's tools/list requests counted) and `close()`
// (every child process gone). Every ratio is a median of per-run ratios, the two sides
// interleaved in one process. See bench/README.md.
import { spawnSync } from "node:child_process";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { BARE_STDIO } from "./bare-peer.mjs";
import { load, open } from "./clients.mjs";
import { childPids, cliArgs, fmtRatio, median, table } from "./common.mjs";
import { startHub } from "./hub-start.mjs";
import { FIXED_ENV, FIXED_V8_FLAGS, settled } from "./memory.mjs";
import { scaleServers } from "./scale-peers.mjs";

// Memory is read after a full GC, with the flags bench/memory.mjs explains: run again with them.
if (typeof globalThis.gc !== "function") {
  const r = spawnSync(
    process.execPath,
    [...FIXED_V8_FLAGS, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      stdio: "inherit",
      env: FIXED_ENV,
    },
  );
  process.exit(r.status ?? 1);
}

const HELP = `usage: node bench/scale.mjs [options]
  --sizes LIST     servers per hub (default 1,10,30,100)
  --kinds LIST     in-process,stdio (default both)
  --tools T        tools per server (default 100)
  --era E          the stdio servers' era: modern or legacy (default legacy; in-process is legacy)
  --reps R         interleaved runs per ratio (default 7)
  --calls N        calls per run (default 1000 in-process, 200 over stdio)
  --no-10k         skip the one-server 10 000-tool listing against the bare client
  --only-10k       only that listing
  --json           the results as JSON on stdout (progress on stderr)`;
const { args, opt } = cliArgs(HELP);
const SIZES = opt("sizes", "1,10,30,100").split(",").map(Number);
const KINDS = opt("kinds", "in-process,stdio").split(",");
const TOOLS = Number(opt("tools", 100));
const ERA = opt("era", "legacy");
const REPS = Number(opt("reps", 7));
const CALLS = opt("calls", undefined);
const JSON_OUT = args.includes("--json");
const log = (m) => process.stderr.write(`${m}\n`);
const ms = (t0) => performance.now() - t0;

/**
 * `a` against `b`, each timing `n` awaited operations, alternating: medians of wall and CPU ms
 * per operation, and the medians of the per-run ratios a/b (CPU is steadier on a shared machine).
 */
async function interleaved(n, a, b) {
  const time = async (fn) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn();
    const c = process.cpuUsage(c0);
    return { wall: ms(t0) / n, cpu: (c.user + c.system) / 1000 / n };
  };
  await time(a);
  await time(b);
  const as = [];
  const bs = [];
  for (let r = 0; r < REPS; r++) {
    if (r % 2 === 0) {
      as.push(await time(a));
      bs.push(await time(b));
    } else {
      bs.push(await time(b));
      as.push(await time(a));
    }
  }
  const med = (xs, k) => median(xs.map((x) => x[k]));
  const ratio = (k) => median(as.map((x, i) => x[k] / bs[i][k]));
  return {
    a: med(as, "wall"),
    b: med(bs, "wall"),
    ratio: ratio("wall"),
    aCpu: med(as, "cpu"),
    bCpu: med(bs, "cpu"),
    cpuRatio: ratio("cpu"),
  };
}

/** One hub of `n` servers of `kind`, measured from start to close. */
async function hubCell(kind, n) {
  let hub;
  const { servers, lists } = scaleServers(kind, n, TOOLS, () => hub);
  const pidsBefore = new Set(childPids() ?? []);
  const m0 = await settled();
  const t0 = performance.now();
  const started = await startHub(servers, {
    protocol: kind === "in-process" ? "legacy" : ERA,
    requestTimeout: 120_000,
    listTimeout: 120_000,
  });
  hub = started.hub;
  const readyMs = ms(t0);
  if (started.notReady.length) throw new Error(`${kind} x${n}: not ready: ${started.notReady.join(", ")}`);
  const t1 = performance.now();
  const tools = await hub.listTools();
  const listMs = ms(t1);
  if (tools.length !== n * TOOLS) throw new Error(`${kind} x${n}: listed ${tools.length}, not ${n * TOOLS}`);
  const m1 = await settled();
  const processes = (childPids() ?? []).filter((p) => !pidsBefore.has(p)).length;

  // A routed call against the same server's client called directly.
  const message = { message: "hi" };
  const direct = hub.client("s0");
  const calls = await interleaved(
    Number(CALLS ?? (kind === "in-process" ? 1000 : 200)),
    () => hub.callTool("mcp__s0__echo", message),
    () => direct.callTool("echo", message),
  );
  // A full listing through the hub against every server's own listing, one after another.
  const ids = hub.serverIds();
  // Enough listings per run that one run is not a single scheduling accident.
  const listing = await interleaved(
    Math.max(1, Math.ceil((kind === "in-process" ? 100 : 20) / n)),
    () => hub.listTools({ refresh: true }),
    async () => {
      for (const id of ids) await hub.client(id).listAllTools({ refresh: true });
    },
  );

  // One server's list_changed: which servers are asked for their tools again.
  const changed = ids[ids.length - 1];
  const before = await Promise.all(ids.map(lists));
  const heard = new Promise((resolve) => hub.onToolsChanged((c) => c.serverId === changed && resolve()));
  await hub.callTool(`mcp__${changed}__add_tool`, { name: "fresh" });
  await heard;
  const relisted = await hub.listTools();
  if (!relisted.some((t) => t.name === `mcp__${changed}__fresh`))
    throw new Error("the new tool is not listed");
  const after = await Promise.all(ids.map(lists));
  const asked = ids.filter((_, i) => after[i] > before[i]);

  const pidsOpen = (childPids() ?? []).filter((p) => !pidsBefore.has(p));
  const t2 = performance.now();
  await hub.close();
  const closeMs = ms(t2);
  const left = (childPids() ?? []).filter((p) => pidsOpen.includes(p)).length;
  return {
    kind,
    servers: n,
    tools: tools.length,
    readyMs,
    listMs,
    closeMs,
    perServer: {
      readyMs: readyMs / n,
      listMs: listMs / n,
      heapKB: (m1.heapUsed - m0.heapUsed) / n / 1024,
      rssKB: (m1.rss - m0.rss) / n / 1024,
    },
    processes,
    processesLeft: left,
    routedUs: calls.a * 1000,
    directUs: calls.b * 1000,
    routedVsDirect: calls.ratio,
    routedCpuUs: calls.aCpu * 1000,
    directCpuUs: calls.bCpu * 1000,
    routedVsDirectCpu: calls.cpuRatio,
    hubListMs: listing.a,
    sumDirectListMs: listing.b,
    hubListVsSum: listing.ratio,
    hubListVsSumCpu: listing.cpuRatio,
    listChanged: { changed, asked, requests: after.map((x, i) => x - before[i]).reduce((s, x) => s + x, 0) },
  };
}

/** One server of 10 000 tools (the bare peer's catalogue): conduit's full listing against the bare client's. */
async function tenThousand(era) {
  // And echo: 10 000, the listing cap (docs/hub.md#scale). The bare client's child inherits the
  // variable; conduit's stdio transport passes only what it is given.
  process.env.BENCH_TOOLS = "9999";
  const target = { ...BARE_STDIO, env: { BENCH_TOOLS: "9999" } };
  const opened = [];
  try {
    const conduit = await open("conduit", await load("conduit", "stdio"), "stdio", era, target);
    opened.push(conduit);
    const bare = await open("bare", await load("bare", "stdio"), "stdio", era, target);
    opened.push(bare);
    for (const c of opened) {
      const n = (await c.listAll()).length;
      if (n !== 10_000) throw new Error(`listed ${n} tools, not 10 000`);
    }
    const r = await interleaved(1, conduit.listAll, bare.listAll);
    return { era, tools: 10_000, conduitMs: r.a, bareMs: r.b, vsBare: r.ratio, cpuVsBare: r.cpuRatio };
  } finally {
    for (const c of opened) await c.close();
    delete process.env.BENCH_TOOLS;
  }
}

const started = performance.now();
const load0 = os.loadavg()[0];
const cells = [];
for (const kind of args.includes("--only-10k") ? [] : KINDS) {
  for (const n of SIZES) {
    log(`${kind} x${n} ...`);
    cells.push(await hubCell(kind, n));
    log(JSON.stringify(cells.at(-1)));
  }
}
const big = [];
if (!args.includes("--no-10k")) for (const era of ["modern", "legacy"]) big.push(await tenThousand(era));
const machine = `${os.cpus().length} CPUs, load ${load0.toFixed(1)} at start, ${os.loadavg()[0].toFixed(1)} at end`;
const result = {
  machine,
  node: process.version,
  tools: TOOLS,
  reps: REPS,
  stdioEra: ERA,
  cells,
  tenThousand: big,
};
result.seconds = ms(started) / 1000;

if (JSON_OUT) {
  console.log(JSON.stringify(result, null, 2));
} else {
  const f1 = (x) => x.toFixed(1);
  console.log(`conduit-mcp hub at scale (${machine}; node ${process.version}; ${TOOLS} tools per server)\n`);
  console.log(
    table(
      [
        "kind",
        "servers",
        "ready ms",
        "list ms",
        "close ms",
        "per server: ready",
        "list",
        "heap KB",
        "RSS KB",
        "procs left",
      ],
      cells.map((c) => [
        c.kind,
        c.servers,
        f1(c.readyMs),
        f1(c.listMs),
        f1(c.closeMs),
        f1(c.perServer.readyMs),
        f1(c.perServer.listMs),
        f1(c.perServer.heapKB),
        f1(c.perServer.rssKB),
        `${c.processesLeft}/${c.processes}`,
      ]),
      new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]),
    ),
  );
  console.log("");
  console.log(
    table(
      [
        "kind",
        "servers",
        "routed µs",
        "direct µs",
        "routed/direct",
        "(CPU)",
        "hub list ms",
        "sum direct ms",
        "hub/sum",
        "(CPU)",
        "list_changed asks",
      ],
      cells.map((c) => [
        c.kind,
        c.servers,
        f1(c.routedUs),
        f1(c.directUs),
        fmtRatio(c.routedVsDirect),
        fmtRatio(c.routedVsDirectCpu),
        f1(c.hubListMs),
        f1(c.sumDirectListMs),
        fmtRatio(c.hubListVsSum),
        fmtRatio(c.hubListVsSumCpu),
        `${c.listChanged.asked.join(",") || "none"} (${c.listChanged.requests} tools/list)`,
      ]),
      new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]),
    ),
  );
  if (big.length) {
    console.log(
      "\none server, 10 000 tools over stdio (bare peer): a full listAllTools against the bare client's",
    );
    for (const b of big) {
      console.log(
        `  ${b.era.padEnd(6)}  conduit ${f1(b.conduitMs)} ms, bare ${f1(b.bareMs)} ms: ${fmtRatio(b.vsBare)}`,
      );
    }
  }
  console.log(`\n${result.seconds.toFixed(0)} s`);
}
