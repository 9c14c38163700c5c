// Client CPU per call (process.cpuUsage, every thread), the figure that survives a loaded
// machine best: conduit against the bare client (and another build with --base DIR), on the
// bare peer, the clients taking turns in each repetition.
//
//   node bench/cpu.mjs [--base DIR] [--reps 5] [--transport stdio|http] [--era modern|legacy]
//                      [--mode sequential|c64|listing]   (cN: N calls in flight, e.g. c16)
//                      [--peer bare|official]   (official: the official server over stdio, bench/server.mjs)
import { parseArgs } from "node:util";
import { barePeer, OFFICIAL_STDIO } from "./bare-peer.mjs";
import { load, open } from "./clients.mjs";
import { concurrent, median, sequential } from "./common.mjs";

const { values: a } = parseArgs({
  options: {
    base: { type: "string" },
    reps: { type: "string", default: "5" },
    transport: { type: "string", default: "stdio" },
    era: { type: "string", default: "modern" },
    mode: { type: "string", default: "sequential" },
    peer: { type: "string", default: "bare" },
  },
});
const transport = a.transport;
if (a.peer === "official" && transport !== "stdio") throw new Error("--peer official runs over stdio only");
const { target, stop } =
  a.peer === "official" ? { target: OFFICIAL_STDIO, stop: async () => {} } : await barePeer(transport);
const keys = ["bare", "conduit", ...(a.base ? ["base"] : [])];
const clients = {};
for (const k of keys) clients[k] = await open(k, await load(k, transport, a.base), transport, a.era, target);
const n = a.mode === "listing" ? 10 : transport === "http" ? 1000 : 4000;
const work = (c) =>
  a.mode === "listing"
    ? (async () => {
        for (let i = 0; i < n; i++) await c.listAll();
      })()
    : /^c\d+$/.test(a.mode)
      ? concurrent(c, n, Number(a.mode.slice(1)))
      : sequential(c, n);
for (const k of keys) await work(clients[k]); // warm
const cpu = Object.fromEntries(keys.map((k) => [k, []]));
const sys = Object.fromEntries(keys.map((k) => [k, []]));
const rate = Object.fromEntries(keys.map((k) => [k, []]));
for (let r = 0; r < Number(a.reps); r++) {
  for (const k of [...keys.slice(r % keys.length), ...keys.slice(0, r % keys.length)]) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await work(clients[k]);
    const ms = performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    cpu[k].push((c1.user + c1.system) / n);
    sys[k].push(c1.system / n);
    rate[k].push((n * 1000) / ms);
  }
}
const unit = a.mode === "listing" ? "listing" : "call";
console.log(
  `${transport} ${a.era} ${a.mode}${a.peer === "official" ? " (official server)" : ""}, ${a.reps} reps of ${n}`,
);
for (const k of keys) {
  const ratios = cpu[k].map((x, i) => x / cpu.bare[i]);
  const rr = rate[k].map((x, i) => x / rate.bare[i]);
  console.log(
    `  ${k.padEnd(8)} CPU µs/${unit} ${median(cpu[k]).toFixed(1).padStart(8)} (system ${median(sys[k]).toFixed(1)})  x bare ${median(ratios).toFixed(2)}` +
      `   rate x bare ${median(rr).toFixed(2)}` +
      (k === "conduit" && a.base
        ? `   rate x base ${median(rate[k].map((x, i) => x / rate.base[i])).toFixed(2)}`
        : ""),
  );
}
for (const k of keys) await clients[k].close();
await stop();
