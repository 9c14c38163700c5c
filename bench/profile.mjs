// A CPU profile of one conduit-mcp workload against the bare peer, summarised as the top
// self-time functions by file (what the speed notes in bench/README.md quote).
//
//   node bench/profile.mjs listing|sequential|c64 [stdio|http] [modern|legacy]
//   BENCH_CLIENT=bare|base BENCH_BASE=DIR node bench/profile.mjs ...   (the floor, or another build)
//
// It reruns itself under `node --cpu-prof` and reads the profile it wrote; the .cpuprofile file
// stays in the system temp folder (printed) for Chrome DevTools.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { barePeer } from "./bare-peer.mjs";
import { load, open } from "./clients.mjs";
import { concurrent, sequential } from "./common.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..");
const [mode = "listing", transport = "stdio", era = "modern", child] = process.argv.slice(2);

async function workload() {
  const { target, stop } = await barePeer(transport);
  // "bare" profiles the floor; "base" another build (BENCH_BASE=DIR, its dist/)
  const key = process.env.BENCH_CLIENT ?? "conduit";
  const c = await open(key, await load(key, transport, process.env.BENCH_BASE), transport, era, target);
  const run = async () => {
    if (mode === "listing") for (let i = 0; i < 30; i++) await c.listAll();
    else if (mode === "sequential") await sequential(c, transport === "http" ? 2000 : 10000);
    else await concurrent(c, transport === "http" ? 4000 : 30000, 64);
  };
  await run(); // warm
  await run();
  await c.close();
  await stop();
}

function summarise(file) {
  const p = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = p.timeDeltas;
  for (let i = 0; i < p.samples.length; i++) {
    const n = byId.get(p.samples[i]);
    const f = n.callFrame;
    const url = f.url.startsWith("file://") ? relative(ROOT, fileURLToPath(f.url)) : f.url || "(native)";
    const key = `${f.functionName || "(anonymous)"}  ${url}${f.url ? `:${f.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const idle = self.get("(idle)  (native)") ?? 0;
  const busy = total - idle;
  const byFile = new Map();
  for (const [k, v] of self) {
    if (k.startsWith("(idle)")) continue;
    const file = k.split("  ")[1].replace(/:\d+$/, "");
    byFile.set(file, (byFile.get(file) ?? 0) + v);
  }
  const pct = (v) => `${((100 * v) / busy).toFixed(1).padStart(5)} %`;
  console.log(
    `${mode} ${transport} ${era}: ${(busy / 1000).toFixed(0)} ms busy; self time, of the busy time`,
  );
  console.log("by function:");
  for (const [k, v] of [...self]
    .filter(([k]) => !k.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 18)) {
    console.log(`  ${pct(v)}  ${k}`);
  }
  console.log("by file:");
  for (const [k, v] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${pct(v)}  ${k}`);
}

if (child === "--child") await workload();
else {
  const dir = mkdtempSync(join(tmpdir(), "conduit-prof-"));
  const r = spawnSync(
    process.execPath,
    ["--cpu-prof", "--cpu-prof-dir", dir, fileURLToPath(import.meta.url), mode, transport, era, "--child"],
    { stdio: "inherit" },
  );
  if (r.status !== 0) process.exit(r.status ?? 1);
  const file = join(
    dir,
    readdirSync(dir).find((f) => f.endsWith(".cpuprofile")),
  );
  summarise(file);
  console.log(`profile: ${file}`);
}
