// The in-process round trip: a conduit-mcp client (from dist/) calling `echo` on a server in the
// same process, against the same client over stdio and against calling the tool's function
// directly, in both protocol eras, sequential and 16-concurrent.
//
//   npm run build && node bench/in-process.mjs       about 20 s with the defaults
//   node bench/in-process.mjs --json                 machine-readable output on stdout
//   node bench/in-process.mjs --help                 every option
//
// The servers: the official McpServer (the one bench/server.mjs serves over stdio, here served
// in-process) and conduit-mcp/testing's FakeServer, each with one `echo` tool.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { Client } from "conduit-mcp";
import { FakeServer } from "conduit-mcp/testing";
import { z } from "zod";
import { childPids, concurrent, fmtInt, fmtRatio, median, sequential, table } from "./common.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const MESSAGE = "hello";

const HELP = `usage: node bench/in-process.mjs [options]
  --json          print the results as JSON on stdout (progress goes to stderr)
  --calls N       calls per measured run (default 2000)
  --concurrency K callers in parallel in the concurrent runs (default 16)
  --reps R        measured runs per case; the median is reported (default 7)
  --warmup N      warm-up calls per case and mode before measuring (default 2000)
  --quiet         no progress on stderr`;

function parseArgs(argv) {
  const o = { json: false, calls: 2000, concurrency: 16, reps: 7, warmup: 2000, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const int = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${a} needs a positive integer`);
      return v;
    };
    if (a === "--json") o.json = true;
    else if (a === "--quiet") o.quiet = true;
    else if (a === "--calls") o.calls = int();
    else if (a === "--concurrency") o.concurrency = int();
    else if (a === "--reps") o.reps = int();
    else if (a === "--warmup") o.warmup = int();
    else if (a === "--help") {
      console.log(HELP);
      process.exit(0);
    } else throw new Error(`unknown option ${a}\n${HELP}`);
  }
  return o;
}

const o = parseArgs(process.argv.slice(2));
const progress = (m) => o.quiet || process.stderr.write(`${m}\n`);

/** The tool both servers run, and what "direct" calls. */
const echo = async ({ message }) => ({ content: [{ type: "text", text: message }] });

function official() {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "echo",
    { description: "Repeats the message", inputSchema: z.object({ message: z.string() }) },
    echo,
  );
  return server;
}

const fake = () => new FakeServer({ name: "bench-fake" }).tool("echo", { type: "object" }, echo);

async function connect(transport, era) {
  const client = new Client({
    name: "bench",
    transport,
    protocol: era === "legacy" ? "legacy" : "auto",
    logger: { warn: () => {} },
  });
  await client.ready();
  if (client.era() !== era) throw new Error(`expected the ${era} era, got ${client.era()}`);
  const first = await client.callTool("echo", { message: MESSAGE });
  if (first.content[0]?.text !== MESSAGE) throw new Error("echo did not echo");
  return { call: () => client.callTool("echo", { message: MESSAGE }), close: () => client.close() };
}

const CASES = {
  direct: async () => ({ call: () => echo({ message: MESSAGE }), close: async () => {} }),
  "in-process fake": (era) => connect({ type: "in-process", server: fake() }, era),
  "in-process official": (era) => connect({ type: "in-process", server: official() }, era),
  stdio: (era) =>
    connect(
      { type: "stdio", command: process.execPath, args: [join(HERE, "server.mjs")], stderr: "inherit" },
      era,
    ),
};

async function measure(c, mode) {
  const start = process.hrtime.bigint();
  if (mode === "sequential") await sequential(c, o.calls);
  else await concurrent(c, o.calls, o.concurrency);
  return o.calls / (Number(process.hrtime.bigint() - start) / 1e9);
}

const rows = [];
for (const era of ["modern", "legacy"]) {
  const clients = {};
  for (const [name, make] of Object.entries(CASES)) clients[name] = await make(era);
  for (const mode of ["sequential", "concurrent"]) {
    for (const c of Object.values(clients)) await sequential(c, o.warmup);
    const runs = Object.fromEntries(Object.keys(CASES).map((k) => [k, []]));
    // Interleaved repetitions, so drift of a loaded machine spreads over every case.
    for (let r = 0; r < o.reps; r++) {
      for (const [name, c] of Object.entries(clients)) runs[name].push(await measure(c, mode));
    }
    const med = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v)]));
    for (const name of Object.keys(CASES)) {
      rows.push({
        era,
        mode,
        case: name,
        callsPerSec: med[name],
        usPerCall: 1e6 / med[name],
        vsStdio: med[name] / med.stdio,
        vsDirect: med[name] / med.direct,
      });
    }
    progress(`${era} ${mode}: done`);
  }
  for (const c of Object.values(clients)) await c.close();
}

const left = childPids();
if (left && left.length > 0) throw new Error(`child processes still running: ${left.join(", ")}`);

if (o.json) {
  console.log(JSON.stringify({ node: process.version, calls: o.calls, reps: o.reps, rows }, null, 2));
} else {
  console.log(
    table(
      ["era", "mode", "case", "calls/s", "µs/call", "vs stdio", "vs direct"],
      rows.map((r) => [
        r.era,
        r.mode === "sequential" ? "sequential" : `concurrent x${o.concurrency}`,
        r.case,
        fmtInt(r.callsPerSec),
        r.usPerCall.toFixed(1),
        fmtRatio(r.vsStdio),
        r.vsDirect < 0.01 ? r.vsDirect.toExponential(1) : fmtRatio(r.vsDirect),
      ]),
      new Set([3, 4, 5, 6]),
    ),
  );
}
