// serve's own cost: a tool call through `conduit-mcp serve` against the same call made directly,
// in one run, both eras. The upstream is bench/server.mjs (the official server, one `echo` tool)
// over stdio. Direct: a conduit-mcp Client to it. Through serve over stdio: the same Client to
// `conduit-mcp serve -- node bench/server.mjs` (the built CLI). Through serve over HTTP: a Client
// over HTTP to `conduit-mcp serve --http 127.0.0.1:0 -- node bench/server.mjs`, its own process as
// a deployed serve is (--in-process: serve() in this process instead, so this process pays for
// the HTTP client, the HTTP server and serve together). Latency: median of
// sequential calls; throughput: calls per second with 64 in flight. Runs are interleaved and each
// ratio is the median of per-run ratios (the machine is shared: figures move with its load).
//
//   npm run build && node bench/serve.mjs          the defaults
//   node bench/serve.mjs --json                    machine-readable output on stdout
//   node bench/serve.mjs --reps 5 --calls 400      fewer or more
//   node bench/serve.mjs --base DIR                 also DIR's build of serve (DIR/dist/cli/main.js),
//                                                   interleaved in the same runs (before/after)
//   node bench/serve.mjs --same-era                 serve's upstream in the host's era (default: serve
//                                                   negotiates, 2026-07-28 with this upstream)
//   node bench/serve.mjs --real-host                the clients declare elicitation and roots (as
//                                                   desktop hosts do)
//   node bench/serve.mjs --delay 1                  an upstream that takes 1 ms per call (a tool
//                                                   that calls something else) instead of none
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  childPids,
  cliArgs,
  concurrent,
  cpuOf as cpuTicks,
  fmtInt,
  fmtRatio,
  median,
  sequential,
  table,
} from "./common.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const { Client } = await import(join(HERE, "../dist/index.js"));
const { serve } = await import(join(HERE, "../dist/serve/index.js"));
const SERVER = join(HERE, "server.mjs");
const CLI = join(HERE, "../dist/cli/main.js");

const { args, num: opt } = cliArgs();
const JSON_OUT = args.includes("--json");
const IN_PROCESS = args.includes("--in-process");
const REPS = opt("reps", 7);
const CALLS = opt("calls", 300);
const INFLIGHT = 64;
const BASE_IX = args.indexOf("--base");
const DELAY_IX = args.indexOf("--delay");
/** The upstream's work per call (ms), as the server's --delay. */
const UP = DELAY_IX === -1 ? [] : ["--delay", args[DELAY_IX + 1]];
/**
 * --real-host: every client declares elicitation and roots, as Claude Desktop, VS Code and Cursor
 * do (nothing asks them anything here); without it they declare nothing.
 */
const HOST = args.includes("--real-host")
  ? { handler: { elicitation: async () => ({ action: "decline" }), listRoots: async () => ({ roots: [] }) } }
  : {};
/** --same-era: serve's upstream speaks the host's era (by default serve negotiates, so 2026-07-28). */
const SAME_ERA = args.includes("--same-era");
const BASE_CLI = BASE_IX === -1 ? null : join(args[BASE_IX + 1], "dist/cli/main.js");
const log = (m) => process.stderr.write(`${m}\n`);
const quiet = { warn: () => {} };

const stdio = (cmd) => ({ type: "stdio", command: process.execPath, args: cmd, stderr: "discard" });

/** Starts a client over stdio and returns it with the pid of the process it started (for CPU). */
async function started(options) {
  const before = new Set(childPids() ?? []);
  const c = new Client(options);
  await c.ready();
  return { c, pid: (childPids() ?? []).find((p) => !before.has(p)) };
}

async function open(era) {
  const protocol = era;
  const direct = await started({
    name: "direct",
    transport: stdio([SERVER, ...UP]),
    protocol,
    logger: quiet,
    ...HOST,
  });
  const builds = BASE_CLI
    ? [
        ["", CLI],
        [" base", BASE_CLI],
      ]
    : [["", CLI]];
  const cases = {};
  const closers = [direct.c];
  const fronts = [];
  for (const [suffix, cli] of builds) {
    const viaStdio = await started({
      name: "via-stdio",
      transport: stdio([cli, "serve", ...eraArgs(era), "--", process.execPath, SERVER, ...UP]),
      protocol,
      logger: quiet,
      ...HOST,
    });
    const front = IN_PROCESS ? await inProcess() : await serveProcess(cli, era);
    const viaHttp = new Client({
      name: "via-http",
      transport: { type: "http", url: front.url },
      protocol,
      logger: quiet,
      ...HOST,
    });
    await viaHttp.ready();
    closers.push(viaStdio.c, viaHttp);
    fronts.push(front);
    // CPU per call: this process (the host's client; with --in-process also serve) and the one the
    // case's client started (the upstream, or the serve CLI). The serve CLI's own upstream is not
    // counted: it is the same work as the direct case's upstream.
    cases[`serve (stdio)${suffix}`] = caller(viaStdio.c, viaStdio.pid);
    cases[`serve (http)${suffix}`] = caller(viaHttp, front.pid);
  }
  return {
    cases: { direct: caller(direct.c, direct.pid), ...cases },
    async close() {
      await Promise.all(closers.map((c) => c.close()));
      for (const f of fronts) await f.close();
    },
  };
}

const caller = (c, pid) => ({ call: () => c.callTool("echo", { message: "hello" }), pid });

/** serve over HTTP in this process, fronting a Client to the upstream. */
async function inProcess() {
  const upstream = await started({ name: "upstream", transport: stdio([SERVER, ...UP]), logger: quiet });
  const served = await serve(upstream.c, { transport: { type: "http", port: 0 }, logger: quiet });
  return {
    url: served.url,
    pid: undefined,
    async close() {
      await served.close();
      await upstream.c.close();
    },
  };
}

/** `conduit-mcp serve --http 127.0.0.1:0 -- node server.mjs`: its URL from the line it prints. */
const eraArgs = (era) => (SAME_ERA ? ["--protocol", era] : []);

async function serveProcess(cli, era) {
  const child = spawn(
    process.execPath,
    [cli, "serve", "--http", "127.0.0.1:0", ...eraArgs(era), "--", process.execPath, SERVER, ...UP],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let seen = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      seen += d;
      const m = /listening on (http:\S+)/.exec(seen);
      if (m) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`serve --http exited (${code}): ${seen}`)));
  });
  return {
    url,
    pid: child.pid,
    close: () =>
      new Promise((resolve) => {
        child.once("exit", resolve);
        child.kill("SIGTERM");
      }),
  };
}

/**
 * A process's CPU time in microseconds, every thread (GC and compiler threads too), from
 * /proc/PID/task/N/schedstat (nanoseconds); /proc's clock ticks (10 ms) where that is missing.
 */
function cpuOf(pid) {
  if (pid === undefined) return null;
  try {
    let ns = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    }
    return ns / 1000;
  } catch {
    return cpuTicks(pid);
  }
}

async function measure(c) {
  const cpu0 = process.cpuUsage();
  const child0 = cpuOf(c.pid) ?? 0;
  let t = performance.now();
  await sequential(c, CALLS);
  const latencyUs = ((performance.now() - t) * 1000) / CALLS;
  const own = process.cpuUsage(cpu0);
  // The peer process alone: the upstream (direct) or serve (its own process), without the client.
  const peerUs = ((cpuOf(c.pid) ?? 0) - child0) / CALLS;
  const cpuUs = (own.user + own.system) / CALLS + peerUs;
  t = performance.now();
  await concurrent(c, CALLS * 2, INFLIGHT);
  const perSecond = (CALLS * 2 * 1000) / (performance.now() - t);
  return { latencyUs, perSecond, cpuUs, peerUs };
}

const results = {};
for (const era of ["modern", "legacy"]) {
  log(`${era}: starting`);
  const o = await open(era);
  for (const c of Object.values(o.cases)) await sequential(c, 50); // warm up
  const runs = Object.fromEntries(Object.keys(o.cases).map((k) => [k, []]));
  for (let r = 0; r < REPS; r++) {
    // Interleaved: each run measures every case, in a rotating order.
    const names = Object.keys(o.cases);
    const order = names.slice(r % names.length).concat(names.slice(0, r % names.length));
    for (const name of order) runs[name].push(await measure(o.cases[name]));
    log(`${era}: run ${r + 1}/${REPS}`);
  }
  await o.close();
  results[era] = {};
  for (const name of Object.keys(o.cases).filter((n) => n !== "direct")) {
    const lat = runs[name].map((m, i) => m.latencyUs / runs.direct[i].latencyUs);
    const thr = runs[name].map((m, i) => m.perSecond / runs.direct[i].perSecond);
    results[era][name] = {
      latencyRatio: median(lat),
      throughputShare: median(thr),
      latencyUs: median(runs[name].map((m) => m.latencyUs)),
      perSecond: median(runs[name].map((m) => m.perSecond)),
      cpuUs: median(runs[name].map((m) => m.cpuUs)),
      peerUs: median(runs[name].map((m) => m.peerUs)),
    };
  }
  results[era].direct = {
    latencyUs: median(runs.direct.map((m) => m.latencyUs)),
    perSecond: median(runs.direct.map((m) => m.perSecond)),
    cpuUs: median(runs.direct.map((m) => m.cpuUs)),
    peerUs: median(runs.direct.map((m) => m.peerUs)),
  };
}

if (JSON_OUT) {
  console.log(JSON.stringify({ reps: REPS, calls: CALLS, inFlight: INFLIGHT, results }, null, 2));
} else {
  const rows = [];
  for (const [era, r] of Object.entries(results)) {
    rows.push([
      era,
      "direct",
      `${fmtInt(r.direct.latencyUs)} us`,
      "",
      fmtInt(r.direct.perSecond),
      "",
      `${fmtInt(r.direct.cpuUs)} us`,
      `${fmtInt(r.direct.peerUs)} us`,
    ]);
    for (const name of Object.keys(r).filter((n) => n !== "direct")) {
      const x = r[name];
      rows.push([
        era,
        name,
        `${fmtInt(x.latencyUs)} us`,
        fmtRatio(x.latencyRatio),
        fmtInt(x.perSecond),
        `${Math.round(x.throughputShare * 100)} %`,
        `${fmtInt(x.cpuUs)} us`,
        `${fmtInt(x.peerUs)} us`,
      ]);
    }
  }
  console.log(
    table(
      [
        "era",
        "path",
        "latency",
        "vs direct",
        `calls/s (${INFLIGHT} in flight)`,
        "of direct",
        "CPU/call",
        "peer CPU/call",
      ],
      rows,
      new Set([2, 3, 4, 5, 6, 7]),
    ),
  );
  console.log("Goal: at most 1.3x the direct latency, at least 70 % of its calls/s. Shared, loaded machine.");
  console.log(
    "CPU/call: this process plus the process the case's client started or talks to (sequential calls); peer: that process alone (the upstream, or serve).",
  );
}
