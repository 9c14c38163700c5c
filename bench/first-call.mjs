// Connect to first call: from `new Client(...)` (or the official client's `connect`, or the bare
// client's) to the first `echo` answer, against the official server (bench/server.mjs over stdio,
// each connection its own process; bench/http-server.mjs over HTTP, one process for all), both
// eras. The clients take turns in one process, the order rotating each repetition; each is warmed
// up first (imports, compiled code, undici's parser), so a cell is what the hundredth connection of
// a process costs. "vs bare" is the median of the per-repetition ratios to the bare client.
//
// "unlisted" is conduit with `callUnlistedTools: true`: its first call goes out without the
// listing conduit makes first by default (it sends only names the server listed), so the two
// rows apart are what that listing costs.
//
// `--stdio-delay MS` (stdio only) starts each server behind bench/stdio-relay.mjs, which adds MS
// each way (a server behind ssh or docker exec): the first call goes out beside the first listing
// over a message stream, so this is where the round trip it saves shows.
//
// `--from-ready` times from the connected client (conduit's `ready()`, the others' `connect`) to
// the first answer: what is left once the server process has started, without its spread.
//
// `--rtt MS` (HTTP only) puts a proxy between the clients and the server that adds that round-trip
// time (bench/latency-proxy.mjs, a process of its own): loopback hides what a round trip costs.
//
//   node bench/first-call.mjs [--reps 21] [--base DIR] [--transport stdio|http] [--era modern|legacy]
//                             [--rtt MS] [--stdio-delay MS] [--from-ready] [--no-official] [--no-unlisted]
//                             [--json]
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { OFFICIAL_STDIO, startHttpServer } from "./bare-peer.mjs";
import { load, MESSAGE, open } from "./clients.mjs";
import { cliArgs } from "./common.mjs";

const { args: argv, opt } = cliArgs();
const REPS = Number(opt("reps", "21"));
const WARM = 3;
const base = opt("base", undefined);
const clients = [
  "conduit",
  ...(argv.includes("--no-unlisted") ? [] : ["unlisted"]),
  ...(base ? ["base"] : []),
  ...(argv.includes("--no-official") ? [] : ["official"]),
  "bare",
];
/** The client key `open` knows, and the conduit options it adds. */
const AS = { unlisted: ["conduit", { callUnlistedTools: true }] };
const RTT = Number(opt("rtt", "0"));
const STDIO_DELAY = Number(opt("stdio-delay", "0"));
const FROM_READY = argv.includes("--from-ready");
// Every client's server inherits it (conduit's is given the environment: it passes a minimal one).
if (STDIO_DELAY > 0) process.env.RELAY_MS = String(STDIO_DELAY);
const transports = opt("transport") ? [opt("transport")] : RTT > 0 ? ["http"] : ["stdio", "http"];
const eras = opt("era") ? [opt("era")] : ["legacy", "modern"];

/** The official HTTP server (both eras on one endpoint), behind the RTT proxy if any: `{ url, stop() }`. */
async function officialHttp() {
  const server = await startHttpServer("http-server.mjs");
  if (RTT <= 0) return server;
  const port = new URL(server.url).port;
  const proxy = await startHttpServer("latency-proxy.mjs", [port, String(RTT)]);
  return {
    url: proxy.url,
    async stop() {
      await proxy.stop();
      await server.stop();
    },
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** One connection: ms from nothing to the first echo answer; closed after (not timed). */
async function once(key, mod, transport, era, target) {
  const [as, extra] = AS[key] ?? [key, {}];
  const t0 = performance.now();
  const c = await open(as, mod, transport, era, target, extra);
  const t1 = performance.now();
  const r = await c.call();
  const ms = performance.now() - (FROM_READY ? t1 : t0);
  const text = r?.content?.[0]?.text ?? r?.result?.content?.[0]?.text;
  await c.close();
  if (text !== MESSAGE) throw new Error(`${key}: echo answered ${JSON.stringify(r).slice(0, 200)}`);
  return ms;
}

async function main() {
  const rows = [];
  for (const transport of transports) {
    const mods = {};
    for (const k of clients) mods[k] = await load(AS[k]?.[0] ?? k, transport, base);
    const http = transport === "http" ? await officialHttp() : undefined;
    const relay = join(fileURLToPath(new URL(".", import.meta.url)), "stdio-relay.mjs");
    const stdio =
      STDIO_DELAY > 0
        ? {
            ...OFFICIAL_STDIO,
            args: [relay, ...OFFICIAL_STDIO.args],
            env: { ...process.env },
          }
        : OFFICIAL_STDIO;
    const target = http ? { url: http.url } : stdio;
    try {
      for (const era of eras) {
        for (const k of clients)
          for (let i = 0; i < WARM; i++) await once(k, mods[k], transport, era, target);
        const ms = Object.fromEntries(clients.map((k) => [k, []]));
        for (let r = 0; r < REPS; r++) {
          const order = clients.map((_, i) => clients[(i + r) % clients.length]);
          for (const k of order) ms[k].push(await once(k, mods[k], transport, era, target));
        }
        for (const k of clients) {
          rows.push({
            transport,
            era,
            client: k,
            medianMs: median(ms[k]),
            vsBare: median(ms[k].map((x, i) => x / ms.bare[i])),
          });
        }
        process.stderr.write(`  ${transport} ${era} done\n`);
      }
    } finally {
      await http?.stop();
    }
  }
  if (argv.includes("--json")) return process.stdout.write(`${JSON.stringify(rows)}\n`);
  console.log(
    `connect to first call, official server, ${REPS} interleaved repetitions${RTT > 0 ? `, +${RTT} ms RTT` : ""}${STDIO_DELAY > 0 ? `, stdio +${STDIO_DELAY} ms each way` : ""}${FROM_READY ? ", from ready" : ""}, ${new Date().toISOString()}`,
  );
  console.log("transport  era     client    median ms  vs bare (median of per-run ratios)");
  for (const r of rows)
    console.log(
      `${r.transport.padEnd(9)}  ${r.era.padEnd(6)}  ${r.client.padEnd(8)}  ${r.medianMs.toFixed(2).padStart(9)}  ${r.vsBare.toFixed(2)}x`,
    );
}

await main();
