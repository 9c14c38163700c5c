// A routed in-process call against the same server's client called directly (issue 26): CPU per
// call of each, interleaved in one process, the median of the per-run ratios routed/direct.
// Also a direct call with the hub's old options object, to see what options alone cost.
//
//   npm run build && node bench/hub-call.mjs [--servers 10] [--reps 15] [--calls 5000] [--dist DIR]
import { join } from "node:path";
import { cliArgs, median } from "./common.mjs";
import { InProcessToolsServer } from "./scale-peers.mjs";

const { opt } = cliArgs();
const N = Number(opt("servers", 10));
const REPS = Number(opt("reps", 15));
const CALLS = Number(opt("calls", 5000));
const DIST = opt("dist", join(import.meta.dirname, "../dist"));
const { Hub } = await import(join(DIST, "index.js"));
const quiet = { warn: () => {} };
const servers = {};
for (let i = 0; i < N; i++)
  servers[`s${i}`] = { transport: { type: "in-process", server: new InProcessToolsServer(100) } };
const hub = new Hub({ servers, logger: quiet, clientOptions: { logger: quiet, protocol: "legacy" } });
await hub.ready();
await hub.listTools();
const message = { message: "hi" };
const direct = hub.client("s0");
const sides = {
  routed: () => hub.callTool("mcp__s0__echo", message),
  direct: () => direct.callTool("echo", message),
  "direct+opts": () => direct.callTool("echo", message, { principal: undefined, timeout: 60_000 }),
};
const cpu = async (fn) => {
  const c0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / CALLS;
};
for (const fn of Object.values(sides)) for (let i = 0; i < 2000; i++) await fn(); // warm
const runs = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
for (let r = 0; r < REPS; r++) for (const [k, fn] of Object.entries(sides)) runs[k].push(await cpu(fn));
const us = (k) => median(runs[k]).toFixed(2);
const ratio = (k) => median(runs[k].map((x, i) => x / runs.direct[i])).toFixed(2);
console.log(
  `${N} in-process servers, ${REPS} runs of ${CALLS} calls; CPU µs per call (median), ratio to direct (median of per-run ratios)`,
);
for (const k of Object.keys(sides)) console.log(`${k.padEnd(12)} ${us(k).padStart(6)} µs  ${ratio(k)}x`);
await hub.close();
