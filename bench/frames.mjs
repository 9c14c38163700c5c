// The frames and allocations of one plain stdio `tools/call` (`client.callTool("echo", ...)`
// against the bare peer bench/cpu.mjs uses, bench/bare-server.mjs), for a before/after of the
// call path (issue 25: "count the frames and allocations of a plain stdio call").
//
//   node bench/frames.mjs [--dist DIR] [--era modern|legacy] [--calls 300] [--no-build] [--list]
//
// DIR is a conduit-mcp tree with its sources (default: this one), e.g. /work/wt/base for main.
// Its src/ is compiled with tsc (its own tsconfig.build.json) into a temporary folder, one module
// per source file and no bundle: dist/ is bundled by rolldown, which keeps every function (so the
// frame counts are the same) but loses the file names. --no-build reuses the last compilation.
//
// How it counts (in a child process, after 2 000 warm-up calls, so first-use work is not counted):
// - Frames out: the JS stack (Error.stackTraceLimit = Infinity) taken when the transport writes
//   the request (a wrapper around net.Socket.prototype.write, the stdin pipe), from the caller's
//   `callTool` to the write; the frames in the tree's own files are listed and counted, with the
//   number of distinct files.
// - Frames back: async_hooks' promiseResolve hook takes the stack when the promise `callTool`
//   handed back is resolved (in the receive path, from the stdout `data` listener), counted the
//   same way; then the microtask turns until the caller's `await` resumes (a turn counter run by
//   queueMicrotask from the moment of that resolve).
// - Promises per call: promises created (async_hooks init, type PROMISE) from the call to the
//   caller's continuation, over `--calls` calls.
// - Allocations per call: V8's sampling heap profiler (inspector HeapProfiler.startSampling) at a
//   sampling interval of 1 byte, so every allocation is a sample, over `--calls` calls; the young
//   generation is held at 64 MB so no GC runs in that window, the profile keeps what a GC
//   collects (includeObjectsCollectedByMajorGC/MinorGC), and allocation folding is off (the
//   optimising compiler allocates several objects as one, which the sampler would count once). Reported: objects and bytes per call, all of them
//   (the harness's `await` loop included, the same for every tree) and those made by the tree's
//   own functions, with the top allocating functions. Second figure, without the profiler: bytes
//   of new space used per call (v8.getHeapSpaceStatistics before and after, no GC in between).
// The counts are deterministic for a tree, an era and a Node version (the allocation sampler can
// differ by a few objects per 300 calls, from the inspector's own traffic).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const { values: a } = parseArgs({
  options: {
    dist: { type: "string", default: join(HERE, "..") },
    era: { type: "string", default: "modern" },
    calls: { type: "string", default: "300" },
    "no-build": { type: "boolean", default: false },
    list: { type: "boolean", default: false },
    child: { type: "string" },
  },
});

if (a.child === undefined) {
  const tree = resolve(a.dist);
  const out = join(tmpdir(), "conduit-frames", basename(tree));
  if (!a["no-build"] || !existsSync(join(out, "index.js"))) {
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const tsc = join(HERE, "../node_modules/typescript/bin/tsc");
    execFileSync(
      process.execPath,
      [tsc, "-p", join(tree, "tsconfig.build.json"), "--outDir", out, "--declaration", "false"],
      { stdio: "inherit" },
    );
  }
  const flags = [
    "--min-semi-space-size=64",
    "--max-semi-space-size=64",
    "--expose-gc",
    // One sample per object: folded allocations (several objects in one) would be sampled once.
    "--no-turbo-allocation-folding",
    "--no-enable-allocation-folding",
  ];
  const child = spawn(
    process.execPath,
    [...flags, fileURLToPath(import.meta.url), ...process.argv.slice(2), "--child", out],
    {
      stdio: "inherit",
    },
  );
  child.on("exit", (code) => process.exit(code ?? 1));
} else {
  await measure(a.child);
}

async function measure(out) {
  const asyncHooks = await import("node:async_hooks");
  const net = await import("node:net");
  const inspector = await import("node:inspector");
  const v8 = await import("node:v8");
  const { BARE_STDIO } = await import("./bare-peer.mjs");
  const { Client } = await import(pathToFileURL(join(out, "index.js")).href);
  const prefix = pathToFileURL(out).href;
  const N = Number(a.calls);
  Error.stackTraceLimit = Number.POSITIVE_INFINITY;

  const client = new Client({
    name: "frames",
    transport: { type: "stdio", command: BARE_STDIO.command, args: BARE_STDIO.args },
    ...(a.era === "legacy" ? { protocol: "legacy" } : {}),
  });
  await client.ready();
  if (client.status().era !== a.era) throw new Error(`negotiated ${client.status().era}, wanted ${a.era}`);
  const args = { message: "hello" };
  const call = () => client.callTool("echo", args);
  for (let i = 0; i < 2000; i++) await call();

  /** The tree's own frames in a stack, innermost first: "function (file)". */
  const ours = (stack) =>
    stack
      .split("\n")
      .slice(1)
      .filter((l) => l.includes(prefix))
      .map((l) => {
        const m = /at (?:async )?(.*?) \((.*?):\d+:\d+\)$/.exec(l.trim()) ?? [
          null,
          "<anonymous>",
          l.trim().slice(3),
        ];
        return `${m[1]} (${m[2].slice(prefix.length + 1).replace(/:\d+:\d+$/, "")})`;
      });

  // ---- frames out and back, and promises per call ----
  let writeStack = null;
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function (...w) {
    if (writeStack === null && armed) writeStack = new Error().stack;
    return write.apply(this, w);
  };
  let armed = false;
  let promises = 0;
  let target = null;
  let resolveStack = null;
  let turnsAfterResolve = -1;
  let counting = false;
  const ids = new WeakMap();
  const hook = asyncHooks.createHook({
    init(id, type, _trigger, resource) {
      if (type !== "PROMISE") return;
      promises++;
      if (armed) ids.set(resource, id);
    },
    promiseResolve(id) {
      if (id === target && resolveStack === null) {
        resolveStack = new Error().stack;
        counting = true;
        turnsAfterResolve = 0;
        const tick = () => {
          if (!counting) return;
          turnsAfterResolve++;
          queueMicrotask(tick);
        };
        queueMicrotask(tick);
      }
    },
  });
  hook.enable();
  armed = true;
  const p = call();
  armed = false;
  target = ids.get(p) ?? null;
  await p;
  counting = false;
  hook.disable();
  net.Socket.prototype.write = write;
  const out$ = writeStack ? ours(writeStack) : [];
  const back = resolveStack ? ours(resolveStack) : [];
  const files = (fs) => new Set(fs.map((f) => f.slice(f.lastIndexOf("(") + 1, -1))).size;

  hook.enable();
  promises = 0;
  for (let i = 0; i < N; i++) await call();
  hook.disable();
  const promisesPerCall = promises / N;

  // ---- allocations ----
  const gcs = [];
  const { PerformanceObserver } = await import("node:perf_hooks");
  const obs = new PerformanceObserver((l) => gcs.push(...l.getEntries()));
  obs.observe({ entryTypes: ["gc"] });
  globalThis.gc();
  await new Promise((r) => setImmediate(r));
  gcs.length = 0; // the collection just asked for
  const used = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_used_size;
  const u0 = used();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await call();
  const bytesNewSpace = (used() - u0) / N;
  await new Promise((r) => setImmediate(r));
  // Entries arrive late: the collection asked for before the window may come now.
  const gcBytes = gcs.filter((e) => e.startTime >= t0).length;

  globalThis.gc();
  await new Promise((r) => setImmediate(r));
  const session = new inspector.Session();
  session.connect();
  const post = (m, p) => new Promise((res, rej) => session.post(m, p, (e, r) => (e ? rej(e) : res(r))));
  await post("HeapProfiler.enable");
  const t1 = performance.now();
  // Objects a GC collects stay in the profile (without these, stopSampling's own GC drops them).
  await post("HeapProfiler.startSampling", {
    samplingInterval: 1,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < N; i++) await call();
  const { profile } = await post("HeapProfiler.stopSampling");
  await new Promise((r) => setImmediate(r));
  const gcProfile = gcs.filter((e) => e.startTime >= t1).length;
  obs.disconnect();
  session.disconnect();
  const byNode = new Map();
  const walk = (n) => {
    byNode.set(n.id, n.callFrame);
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  let objects = 0;
  let bytes = 0;
  let ownObjects = 0;
  let ownBytes = 0;
  const top = new Map();
  for (const s of profile.samples) {
    const f = byNode.get(s.nodeId);
    objects++;
    bytes += s.size;
    if (f?.url.startsWith(prefix)) {
      ownObjects++;
      ownBytes += s.size;
      const k = `${f.functionName || "<anonymous>"} (${f.url.slice(prefix.length + 1)})`;
      top.set(k, (top.get(k) ?? 0) + 1);
      if (process.env.FRAMES_SIZES) top.set(`${k} ${s.size}B`, (top.get(`${k} ${s.size}B`) ?? 0) + 1);
    }
  }
  await client.close();

  const f1 = (x) => x.toFixed(1);
  console.log(`frames.mjs: ${a.dist} (${a.era}), Node ${process.version}, ${N} calls per figure`);
  console.log(`  frames out  (callTool -> stdin write):      ${out$.length} in ${files(out$)} files`);
  console.log(`  frames back (stdout data -> call resolved): ${back.length} in ${files(back)} files`);
  console.log(`  microtask turns from that resolve to the caller's continuation: ${turnsAfterResolve}`);
  console.log(`  promises created per call:                  ${f1(promisesPerCall)}`);
  console.log(
    `  allocations per call (sampling profiler, interval 1): ${f1(objects / N)} objects, ${f1(bytes / N)} B; by the tree's own functions ${f1(ownObjects / N)} objects, ${f1(ownBytes / N)} B${gcProfile ? `  (WARNING: ${gcProfile} GC ran)` : ""}`,
  );
  console.log(
    `  new-space bytes per call (no profiler):     ${f1(bytesNewSpace)}${gcBytes ? `  (WARNING: ${gcBytes} GC ran)` : ""}`,
  );
  if (a.list) {
    console.log("  out, innermost first:");
    for (const f of out$) console.log(`    ${f}`);
    console.log("  back, innermost first:");
    for (const f of back) console.log(`    ${f}`);
    console.log("  the tree's allocating functions, objects per call:");
    for (const [k, n] of [...top].sort((x, y) => y[1] - x[1]).slice(0, process.env.FRAMES_SIZES ? 500 : 25))
      console.log(`    ${f1(n / N).padStart(5)}  ${k}`);
  }
}
