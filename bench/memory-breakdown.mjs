// What the memory per connected HTTP client is made of: the suite's fixed memory cell (N clients,
// each connected and making one call twice, the young generation held at one size, read once
// settled: bench/memory.mjs), plus the sockets each client holds and a heap snapshot diff by
// constructor (self size, count) from just after the import.
//
//   node bench/memory-breakdown.mjs [--client conduit|base|official|bare] [--era modern|legacy]
//                                   [--transport http|stdio] [--paths Client/#p] [--depth 4] [--min 48]
//                                   [--n 200] [--base DIR] [--top 25] [--no-snapshot]
//                                   [--marginal] [--preload] [--preload-node-http] [--default-v8]
// --default-v8: default V8 flags and no settling (the suite's "default V8" figure).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import { BARE_STDIO_MEMORY, MEMORY_PEER_ARGS, startHttpPeer } from "./bare-peer.mjs";
import { load, open } from "./clients.mjs";
import { cliArgs } from "./common.mjs";
import { FIXED_ENV, FIXED_V8_FLAGS, settled } from "./memory.mjs";
import { claimedPaths, dominators, nodeIds, readSnapshot, retainedPer } from "./memory-snapshot.mjs";

const { args: argv, opt } = cliArgs();

/** Self size and count per "type:name" over the snapshot's nodes. */
function byConstructor(file, keep) {
  const parsed = readSnapshot(file);
  const snap = parsed.raw;
  const names = opt("retained", undefined)?.split(",");
  const retained = names ? retainedPer(dominators(parsed), names) : new Map();
  if (keep) keep.parsed = parsed;
  const f = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = f.length;
  const [iType, iName, iSize] = ["type", "name", "self_size"].map((k) => f.indexOf(k));
  const out = new Map();
  const nodes = snap.nodes;
  const want = opt("retainers", undefined);
  const retainedBy = new Map();
  if (want) {
    // Who holds the nodes of the wanted kind: "holder type:name .edge" per node.
    const ef = snap.snapshot.meta.edge_fields;
    const etypes = snap.snapshot.meta.edge_types[0];
    const [eType, eName, eTo] = ["type", "name_or_index", "to_node"].map((k) => ef.indexOf(k));
    const ew = ef.length;
    const iEdges = f.indexOf("edge_count");
    let e = 0;
    for (let i = 0; i < nodes.length; i += width) {
      const holder = `${types[nodes[i + iType]]}:${snap.strings[nodes[i + iName]]}`.slice(0, 50);
      for (let k = 0; k < nodes[i + iEdges]; k++, e += ew) {
        const to = snap.edges[e + eTo];
        const et = etypes[snap.edges[e + eType]];
        if (et === "weak") continue;
        const en = et === "element" || et === "hidden" ? `[${et}]` : snap.strings[snap.edges[e + eName]];
        const list = retainedBy.get(to) ?? [];
        list.push(`${holder} .${en}`);
        retainedBy.set(to, list);
      }
    }
  }
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]];
    let name =
      type === "object" || type === "native" || type === "closure" ? snap.strings[nodes[i + iName]] : "";
    if (type === "closure") name = `fn ${name}`;
    const size = nodes[i + iSize];
    const bucket =
      type === "array" || type === "string"
        ? size >= 8192
          ? " >=8K"
          : size >= 1024
            ? " 1K-8K"
            : size >= 128
              ? " 128-1K"
              : " <128"
        : "";
    const key = `${type}:${name}${bucket}`.slice(0, 80);
    const e = out.get(key) ?? { size: 0, count: 0 };
    e.size += nodes[i + iSize];
    e.count += 1;
    out.set(key, e);
    if (want && key.startsWith(want)) {
      for (const r of retainedBy.get(i) ?? ["(none)"]) {
        const rk = `  held by ${r}`.slice(0, 100);
        const re = out.get(rk) ?? { size: 0, count: 0 };
        re.size += nodes[i + iSize];
        re.count += 1;
        out.set(rk, re);
      }
    }
  }
  for (const [k, e] of retained) out.set(`retained by ${k}`, e);
  return out;
}

/** Open sockets of this process (Linux: the descriptors that are sockets). */
function sockets() {
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) n++;
    } catch {}
  }
  return n;
}

/** RssAnon and RssFile of this process, in bytes (Linux). */
function status() {
  const out = {};
  for (const m of readFileSync("/proc/self/status", "utf8").matchAll(/^(RssAnon|RssFile):\s+(\d+) kB/gm))
    out[m[1]] = Number(m[2]) * 1024;
  return out;
}

function spaces() {
  return Object.fromEntries(
    v8
      .getHeapSpaceStatistics()
      .map((s) => [s.space_name, { committed: s.physical_space_size, used: s.space_used_size }]),
  );
}

async function child() {
  const client = opt("client", "conduit");
  const era = opt("era", "modern");
  const n = Number(opt("n", "200"));
  const snapshots = !argv.includes("--no-snapshot");
  // --transport stdio: each client spawns its own bare peer (the suite's stdio cell; --n 20 there).
  const transport = opt("transport", "http");
  const target = transport === "stdio" ? BARE_STDIO_MEMORY : { url: opt("url") };
  const mod = await load(client, transport, opt("base", undefined));
  // --preload: what conduit loads when its first HTTP transport starts (undici, the SSE parser)
  // is loaded before the count, as the official client's dependencies are by its import.
  if (argv.includes("--preload")) await Promise.all([import("undici"), import("eventsource-parser")]);
  // --preload-node-http: node's own HTTP module (and its native parser binding, ~4.6 MB of RSS,
  // most of it pages of the node binary) loaded before the count, as the bare client loads it at
  // import; conduit loads it with undici at its first HTTP start.
  if (argv.includes("--preload-node-http")) await import("node:http");
  const gc = globalThis.gc;
  const fixed = !argv.includes("--default-v8");
  const cs = [];
  const connect = async (k) => {
    const batch = [];
    for (let i = 0; i < k; i++) batch.push(await open(client, mod, transport, era, target));
    await Promise.all(batch.map((c) => c.call()));
    await Promise.all(batch.map((c) => c.call()));
    cs.push(...batch);
  };
  // --marginal: the first n clients are left out of the count (what they load and compile once
  // is then in the baseline); the figures are what n more clients add.
  if (argv.includes("--marginal")) await connect(n);
  const twoGcs = async () => {
    gc();
    gc();
    return process.memoryUsage();
  };
  const read = fixed ? settled : twoGcs;
  gc();
  // Both snapshots are read only after the second is written: what reading the first makes (its
  // table by constructor: ~40 strings, ropes and objects per client) would count as the clients'.
  const file0 = snapshots ? v8.writeHeapSnapshot() : undefined;
  const m0 = await read();
  const f0 = status();
  const h0 = spaces();
  const k0 = sockets();
  await connect(n);
  const m1 = await read();
  const f1 = status();
  const h1 = spaces();
  const k1 = sockets();
  const per = (a, b) => (a - b) / n / 1024;
  const res = {
    client,
    era,
    n,
    rssKB: per(m1.rss, m0.rss),
    // RSS split: anonymous memory (heap, malloc, code) and file pages (node's own binary as more of
    // it runs: shared, paid once).
    rssAnonKB: per(f1.RssAnon, f0.RssAnon),
    rssFileKB: per(f1.RssFile, f0.RssFile),
    heapKB: per(m1.heapUsed, m0.heapUsed),
    externalKB: per(m1.external, m0.external),
    arrayBuffersKB: per(m1.arrayBuffers, m0.arrayBuffers),
    socketsPerClient: (k1 - k0) / n,
    // V8's committed memory per space (what it holds from the OS), growth per client.
    committedKB: Object.fromEntries(
      Object.keys(h1).map((k) => [k, Math.round(per(h1[k].committed, h0[k]?.committed ?? 0) * 10) / 10]),
    ),
    usedKB: Object.fromEntries(
      Object.keys(h1).map((k) => [k, Math.round(per(h1[k].used, h0[k]?.used ?? 0) * 10) / 10]),
    ),
  };
  if (snapshots) {
    const file1 = v8.writeHeapSnapshot();
    const keep0 = {};
    const s0 = byConstructor(file0, keep0);
    const ids0 = opt("paths", undefined) ? nodeIds(keep0.parsed) : undefined;
    keep0.parsed = undefined;
    const keep = {};
    const s1 = byConstructor(file1, keep);
    const ctor = opt("paths", undefined);
    if (ctor) {
      // The new objects, each counted for the first new instance of ctor that reaches it
      // (bench/memory-snapshot.mjs), by the path of fields from it; and those none reaches.
      const min = Number(opt("min", "48"));
      const { instances, rows, rest } = claimedPaths(keep.parsed, ids0, ctor, Number(opt("depth", "4")));
      res.paths = { ctor, instances, rows: rows.filter((r) => r.total >= min) };
      res.unowned = rest.filter((r) => r.size >= min / 4);
    }
    const rows = [];
    for (const [k, e] of s1) {
      const b = s0.get(k) ?? { size: 0, count: 0 };
      const dSize = e.size - b.size;
      if (dSize > 0)
        rows.push({ what: k, bytesPerClient: dSize / n, countPerClient: (e.count - b.count) / n });
    }
    rows.sort((a, b) => b.bytesPerClient - a.bytesPerClient);
    res.top = rows.slice(0, Number(opt("top", "25")));
  }
  for (const c of cs) await c.close();
  process.stdout.write(`${JSON.stringify(res)}\n`);
}

async function main() {
  const peer = await startHttpPeer(MEMORY_PEER_ARGS);
  try {
    const args = [...argv, "--url", peer.url, "--child"];
    const out = await new Promise((resolve, reject) => {
      const flags = argv.includes("--default-v8") ? ["--expose-gc"] : FIXED_V8_FLAGS;
      const c = spawn(process.execPath, [...flags, fileURLToPath(import.meta.url), ...args], {
        stdio: ["ignore", "pipe", "inherit"],
        env: argv.includes("--default-v8") ? process.env : FIXED_ENV,
      });
      let s = "";
      c.stdout.on("data", (d) => {
        s += d;
      });
      c.once("close", (code) => (code === 0 ? resolve(JSON.parse(s)) : reject(new Error(`child ${code}`))));
    });
    const { top, paths, unowned: outside, ...head } = out;
    console.log(JSON.stringify(head));
    if (paths) {
      console.log(
        `per new ${paths.ctor} (${paths.instances}), bytes: under the path (total), at it, objects at it:`,
      );
      for (const r of paths.rows.sort((a, b) => (a.path < b.path ? -1 : 1)))
        console.log(
          `${r.total.toFixed(0).padStart(7)} ${r.size.toFixed(0).padStart(6)} ${r.count.toFixed(2).padStart(6)}x  ${r.path}`,
        );
      console.log("new since the first snapshot, reached by none of them, per client, by kind:");
      for (const r of outside)
        console.log(`${r.size.toFixed(0).padStart(8)} B  ${r.count.toFixed(2).padStart(6)}x  ${r.key}`);
    }
    for (const r of top ?? [])
      console.log(
        `${r.bytesPerClient.toFixed(0).padStart(8)} B  ${r.countPerClient.toFixed(2).padStart(7)}x  ${r.what}`,
      );
  } finally {
    await peer.stop();
  }
}

if (argv.includes("--child")) await child();
else await main();
