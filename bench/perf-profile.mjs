// A CPU profile that a loaded machine does not distort: Linux `perf record -e cpu-clock` samples a
// process only while it is on a CPU (node --cpu-prof samples wall time, so on a shared machine it
// blames whatever was on the stack while the process waited, above all the pipe write that wakes
// the peer). Each sample counts for the nearest JavaScript frame of the project (dist/ or bench/),
// so the JSON, Map and inline-cache builtins a function calls count for that function; samples
// inside garbage collection count as "(gc)". Only the measured process counts, not its peer.
//
//   node bench/perf-profile.mjs KEY N [sequential|c64|listing] [stdio|http] [modern|legacy] [BASE_DIR]
//   node bench/perf-profile.mjs --compare A.script B.script N     (µs per call, A -> B, by function)
//
// KEY is conduit, base (BASE_DIR's dist/), bare or official; N calls (or listings), after WARM=n
// (default N/4) of the same. Needs `perf` (linux-tools) with perf_event_paranoid <= 2; it prints
// the path of the `perf script` text it summarised, for --compare.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { mainProcessSamples } from "./perf-samples.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const HZ = 1000;

/** Milliseconds of CPU per function ("name file:line") and per file, from `perf script` text. */
export function attribute(text) {
  const byFn = new Map();
  const byFile = new Map();
  let total = 0;
  const ms = 1000 / HZ;
  // Only the measured process, not the peer it spawned (perf-samples.mjs).
  for (const frames of mainProcessSamples(text)) {
    total += ms;
    let pick;
    if (
      frames.some((s) =>
        /Heap::CollectGarbage|ScavengerCollector|MarkCompactCollector|Heap::Scavenge/.test(s),
      )
    )
      pick = "(gc)";
    else
      pick =
        frames.find((s) => s.startsWith("JS:") && /\/(dist|bench)\//.test(s)) ??
        frames.find((s) => s.startsWith("JS:")) ??
        `[native] ${frames[0]}`;
    pick = pick
      .replace(/^JS:[*^~+]?/, "")
      .replace(/(file:\/\/)?\/[^ ]*?\/(dist|bench|node_modules)\//, "$2/")
      .replace(/:\d+:\d+$/, "");
    byFn.set(pick, (byFn.get(pick) ?? 0) + ms);
    const file = pick.startsWith("[native]") || pick === "(gc)" ? pick.split(" ")[0] : pick.split(" ").pop();
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
  }
  return { total, byFn, byFile };
}

const top = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);

function summarise(file, title) {
  const { total, byFn, byFile } = attribute(readFileSync(file, "utf8"));
  const pct = (v) => `${((100 * v) / total).toFixed(1).padStart(5)} %`;
  console.log(`${title}: ${total.toFixed(0)} ms of CPU (start-up included)`);
  console.log("by function (with the builtins it calls):");
  for (const [k, v] of top(byFn, 25)) console.log(`  ${pct(v)}  ${k}`);
  console.log("by file:");
  for (const [k, v] of top(byFile, 12)) console.log(`  ${pct(v)}  ${k}`);
  console.log(`perf script text: ${file}`);
}

function compare(a, b, n) {
  const A = attribute(readFileSync(a, "utf8"));
  const B = attribute(readFileSync(b, "utf8"));
  const per = (v) => ((v * 1000) / n).toFixed(2).padStart(8);
  console.log(`µs of CPU per call (start-up included): ${per(A.total)} -> ${per(B.total)}`);
  const keys = new Set([...A.byFn.keys(), ...B.byFn.keys()]);
  const rows = [...keys]
    .map((k) => [k, A.byFn.get(k) ?? 0, B.byFn.get(k) ?? 0])
    .sort((x, y) => Math.abs(y[2] - y[1]) - Math.abs(x[2] - x[1]))
    .slice(0, 30);
  for (const [k, x, y] of rows) console.log(`${per(x)} ${per(y)} ${per(y - x)}  ${k}`);
}

const argv = process.argv.slice(2);
if (argv[0] === "--compare") compare(argv[1], argv[2], Number(argv[3]));
else {
  const [key = "conduit", n = "10000", mode = "sequential", transport = "stdio", era = "modern", base = ""] =
    argv;
  const dir = mkdtempSync(join(tmpdir(), "conduit-perf-"));
  const data = join(dir, "perf.data");
  const rec = spawnSync(
    "perf",
    [
      "record",
      "-e",
      "cpu-clock",
      "-F",
      String(HZ),
      "-g",
      "-o",
      data,
      "--",
      process.execPath,
      "--perf-basic-prof",
      "--interpreted-frames-native-stack",
      join(HERE, "drive.mjs"),
      key,
      n,
      mode,
      transport,
      era,
      base,
    ],
    {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, WARM: process.env.WARM ?? String(Math.ceil(Number(n) / 4)) },
    },
  );
  if (rec.error || rec.status !== 0) {
    console.error(`perf record failed (${rec.error?.message ?? rec.status}); is linux perf installed?`);
    process.exit(1);
  }
  const script = spawnSync("perf", ["script", "-F", "comm,pid,tid,ip,sym", "-i", data], {
    maxBuffer: 1 << 30,
    encoding: "utf8",
  });
  const out = join(dir, "perf.script");
  writeFileSync(out, script.stdout);
  summarise(
    out,
    `${key} ${mode} ${transport} ${era}, ${n} after ${process.env.WARM ?? Math.ceil(Number(n) / 4)}`,
  );
}
