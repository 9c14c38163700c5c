// Where the serve process's CPU goes per forwarded tool call: Linux `perf record -e cpu-clock`
// around `conduit-mcp serve` (it samples the process only while it is on a CPU, so a loaded
// machine's waits are not blamed on the code that happened to be on the stack), driven by a
// client in this process. Each sample counts once, in a category (serve's own JavaScript, the
// client's, node's, the kernel, the event loop, GC, the JIT, start-up) and for the nearest
// function of dist/ or node_modules/ (the builtins it calls count for it).
//
//   npm run build && node bench/serve-profile.mjs [--transport stdio|http] [--era modern|legacy]
//       [--mode sequential|c64] [--calls N] [--reps R] [--base DIR] [--real-host]
//   node bench/serve-profile.mjs --instructions --calls 200 [--base DIR] [...]
//       instructions per call instead (valgrind callgrind: N and 3N calls; minutes, not seconds)
//
// --base DIR profiles DIR's build too (DIR/dist), the two taking turns R times (medians shown).
// Figures are microseconds of CPU per call over every call, warm-up (N/2 before) and start-up
// included: those show as their own categories. Needs `perf` with perf_event_paranoid <= 2.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliArgs, concurrent, median, sequential } from "./common.mjs";
import { mainProcessSamples } from "./perf-samples.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const SERVER = join(HERE, "server.mjs");
const { args, num: opt } = cliArgs();
const arg = (name, def) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : def);
const TRANSPORT = arg("transport", "stdio");
const ERA = arg("era", "modern");
const MODE = arg("mode", "sequential");
const CALLS = opt("calls", 3000);
const BASE = arg("base", null);
const HOST = args.includes("--real-host")
  ? { handler: { elicitation: async () => ({ action: "decline" }), listRoots: async () => ({ roots: [] }) } }
  : {};

/**
 * Starts `root`'s serve under `wrap` (a command and its arguments, before node's), makes `calls`
 * (after `warm` more) through it and closes it, so that the wrapper writes its file.
 */
async function drive(root, wrap, warm, calls) {
  const { Client } = await import(join(root, "dist/index.js"));
  const serveArgs = [...wrap.slice(1), join(root, "dist/cli/main.js"), "serve"];
  const upstream = ["--", process.execPath, SERVER];
  const base = {
    name: "profile",
    protocol: ERA,
    logger: { warn: () => {} },
    requestTimeout: 600_000,
    ...HOST,
  };
  let client;
  let child;
  if (TRANSPORT === "stdio") {
    const transport = {
      type: "stdio",
      command: wrap[0],
      args: [...serveArgs, ...upstream],
      stderr: "discard",
    };
    client = new Client({ ...base, transport });
  } else {
    child = spawn(wrap[0], [...serveArgs, "--http", "127.0.0.1:0", ...upstream], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let seen = "";
    const url = await new Promise((resolve) =>
      child.stderr.on("data", (d) => {
        seen += d;
        const m = /listening on (http:\S+)/.exec(seen);
        if (m) resolve(m[1]);
      }),
    );
    client = new Client({ ...base, transport: { type: "http", url } });
  }
  await client.ready();
  const c = { call: () => client.callTool("echo", { message: "hello" }) };
  const run = (n) => (MODE === "c64" ? concurrent(c, n, 64) : sequential(c, n));
  if (warm > 0) await run(warm);
  await run(calls);
  await client.close();
  if (child) {
    const gone = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGINT");
    await gone;
  }
  await new Promise((r) => setTimeout(r, 1000)); // the wrapper writes its file as serve exits
}

/** Runs N/2 + N calls through `root`'s serve under perf; the `perf script` text. */
async function record(root) {
  const data = join(mkdtempSync(join(tmpdir(), "conduit-serve-perf-")), "perf.data");
  const perf = ["perf", "record", "-e", "cpu-clock", "-F", "1000", "-g", "-o", data, "--"];
  const node = [process.execPath, "--perf-basic-prof", "--interpreted-frames-native-stack"];
  await drive(root, [...perf, ...node], Math.ceil(CALLS / 2), CALLS);
  const script = spawnSync("perf", ["script", "-F", "comm,pid,tid,ip,sym", "-i", data], {
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  return script.stdout;
}

/**
 * Instructions per call of `root`'s serve (valgrind's callgrind, V8 on one thread): N calls, then
 * 3N in another process, the difference over 2N (start-up and warm-up cancel out). Unlike time,
 * a loaded machine does not move it.
 */
async function instructions(root) {
  const counts = [];
  for (const n of [CALLS, 3 * CALLS]) {
    const out = join(mkdtempSync(join(tmpdir(), "conduit-serve-cg-")), "cg.out");
    const vg = ["valgrind", "--tool=callgrind", `--callgrind-out-file=${out}`];
    await drive(root, [...vg, process.execPath, "--single-threaded"], 0, n);
    counts.push(Number(/^(?:summary|totals): (\d+)/m.exec(readFileSync(out, "utf8"))?.[1]));
  }
  return (counts[1] - counts[0]) / (2 * CALLS);
}

const KERNEL = /entry_SYSCALL|do_syscall|finish_task_switch|_raw_spin/;

/** Milliseconds of CPU by category and by function, for the process perf started first. */
function attribute(text) {
  const byCat = new Map();
  const byFn = new Map();
  const add = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
  // Only serve's own samples: the upstream is the same work as a direct call's.
  for (const frames of mainProcessSamples(text)) {
    const all = frames.join(" ");
    const js = frames.find((s) => s.startsWith("JS:") && /\/(dist|node_modules)\//.test(s));
    let cat;
    if (/Scaveng|MarkCompact|ConcurrentMarking|Heap::Collect/.test(all)) cat = "GC";
    else if (/modules\/esm|module_job|bootstrap\/realm|compileSourceTextModule/.test(all)) cat = "start-up";
    else if (!frames.some((s) => s.startsWith("JS:")) && /compiler::|Maglev|Baseline/.test(all)) cat = "JIT";
    else if (KERNEL.test(frames.slice(0, 12).join(" "))) cat = "kernel (reads, writes, wake-ups)";
    else if (!js)
      cat = frames.some((s) => s.startsWith("JS:")) ? "node's JavaScript" : "event loop, node C++";
    else if (/\/chunks\/serve-/.test(js)) cat = "serve's JavaScript";
    else if (/\/dist\//.test(js)) cat = "client's JavaScript";
    else cat = "SDK (node_modules)";
    add(byCat, cat);
    if (js)
      add(byFn, js.replace(/^JS:[*^~+]?/, "").replace(/(file:\/\/)?\/[^ ]*?\/(dist|node_modules)\//, "$2/"));
  }
  return { byCat, byFn };
}

const runs = [["this build", join(HERE, "..")]];
if (BASE) runs.push(["base", BASE]);
if (args.includes("--instructions")) {
  for (const [label, root] of runs) {
    process.stderr.write(
      `counting ${label} (${TRANSPORT}, ${ERA}, ${MODE}, ${CALLS} and ${3 * CALLS} calls)\n`,
    );
    console.log(
      `${label}: ${Math.round(await instructions(root)).toLocaleString("en-US")} instructions per call`,
    );
  }
  process.exit(0);
}
const REPS = opt("reps", 1);
/** Per build: each category's and function's median over the runs (builds take turns). */
const samples = runs.map(() => []);
for (let r = 0; r < REPS; r++) {
  for (const [i, [label, root]] of runs.entries()) {
    process.stderr.write(
      `profiling ${label} (${TRANSPORT}, ${ERA}, ${MODE}, ${CALLS} calls), run ${r + 1}/${REPS}\n`,
    );
    samples[i].push(attribute(await record(root)));
  }
}
const medianOf = (maps) => {
  const keys = new Set(maps.flatMap((m) => [...m.keys()]));
  return new Map([...keys].map((k) => [k, median(maps.map((m) => m.get(k) ?? 0))]));
};
const results = runs.map(([label], i) => [
  label,
  { byCat: medianOf(samples[i].map((s) => s.byCat)), byFn: medianOf(samples[i].map((s) => s.byFn)) },
]);
const per = (ms) => ((ms * 1000) / (CALLS * 1.5)).toFixed(1).padStart(8);
const cats = [...new Set(results.flatMap(([, r]) => [...r.byCat.keys()]))].sort(
  (a, b) => (results[0][1].byCat.get(b) ?? 0) - (results[0][1].byCat.get(a) ?? 0),
);
console.log(`serve's CPU per call, us (${TRANSPORT}, ${ERA}, ${MODE}; warm-up and start-up included)`);
console.log(`${"".padEnd(34)}${results.map(([l]) => l.padStart(12)).join("")}`);
/** The median run's total (the categories' medians need not add up to it). */
const total = (i) => median(samples[i].map((s) => [...s.byCat.values()].reduce((a, b) => a + b, 0)));
console.log(`${"total".padEnd(34)}${results.map((_, i) => `${per(total(i))}    `).join("")}`);
for (const c of cats)
  console.log(`  ${c.padEnd(32)}${results.map(([, r]) => `${per(r.byCat.get(c) ?? 0)}    `).join("")}`);
for (const [label, r] of results) {
  console.log(`\n${label}: functions (with the builtins they call)`);
  for (const [k, v] of [...r.byFn].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${per(v)}  ${k}`);
}
