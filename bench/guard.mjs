// The CI regression guard: runs the short suite (conduit and the bare client, bare peers, same
// process, interleaved) and fails only when a ratio is far outside the noise, so a slow path
// cannot land unnoticed while a loaded CI machine cannot fail it. It is not a timed test: every
// limit is a ratio to the bare client measured in the same run.
//
//   node bench/guard.mjs        (needs dist/: npm run build)
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The limits, each far from where conduit-mcp is: the full listing at over 2x the bare listing's
 * time, sequential calls under half the bare client's rate, CPU per call over 4x.
 */
const LIMITS = [
  {
    what: "stdio listAllTools(), time vs bare",
    transport: "stdio",
    mode: "listing",
    get: (r) => 1 / r.vsBare,
    max: 2,
  },
  {
    what: "HTTP listAllTools(), time vs bare",
    transport: "http",
    mode: "listing",
    get: (r) => 1 / r.vsBare,
    max: 2,
  },
  {
    what: "stdio sequential calls/s vs bare",
    transport: "stdio",
    mode: "sequential",
    get: (r) => r.vsBare,
    min: 0.5,
  },
  {
    what: "stdio 64 in flight calls/s vs bare",
    transport: "stdio",
    mode: "c64",
    get: (r) => r.vsBare,
    min: 0.4,
  },
  {
    what: "HTTP sequential calls/s vs bare",
    transport: "http",
    mode: "sequential",
    get: (r) => r.vsBare,
    min: 0.5,
  },
  {
    what: "stdio client CPU per call vs bare",
    transport: "stdio",
    mode: "sequential",
    get: (r) => r.cpuVsBare,
    max: 3,
  },
];

function runSuite() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(HERE, "suite.mjs"), "--short", "--json", "--quiet"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.once("close", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`the suite exited ${code}`)),
    );
  });
}

const result = await runSuite();
let failed = 0;
console.log(
  `speed guard (short suite, ${result.seconds.toFixed(0)} s, load ${result.machine.loadBefore.join(" ")}):`,
);
for (const l of LIMITS) {
  for (const era of ["legacy", "modern"]) {
    const r = result.rows.find(
      (x) => x.transport === l.transport && x.mode === l.mode && x.era === era && x.client === "conduit",
    );
    const v = l.get(r);
    const bad = l.max !== undefined ? v > l.max : v < l.min;
    if (bad) failed += 1;
    const limit = l.max !== undefined ? `<= ${l.max}x` : `>= ${l.min}x`;
    console.log(
      `  ${bad ? "FAIL" : "ok  "}  ${l.what.padEnd(36)} ${era.padEnd(6)}  ${v.toFixed(2)}x  (limit ${limit})`,
    );
  }
}
if (failed > 0) {
  console.log(`speed guard: ${failed} ratio(s) outside the limits; bench/README.md says how to look into it`);
  process.exitCode = 1;
}
