// The hub's own cost: listing every server through `Hub.listTools()` against the same clients
// listed directly (`Client.listAllTools()` on each, in parallel), and a call routed by qualified
// name (`Hub.callTool`) against the same client called directly (`Client.callTool`), in one run.
//
//   npm run build && node bench/hub.mjs        the defaults (about 20 s)
//   node bench/hub.mjs --json                  machine-readable output on stdout
//   node bench/hub.mjs --help                  every option
//
// Part 1 puts 1, 5 and 20 in-process servers (this file's MemoryServer: no process, no pipe)
// behind one hub, so what is measured is the hub and the client, not the transport; it also
// shows how listing cost grows with the number of servers. Part 2 puts three copies of
// bench/server.mjs (the official server over stdio) behind one hub: the same ratios with a real
// transport underneath. See bench/README.md.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cliArgs, fmtInt, fmtRatio, median, table } from "./common.mjs";
import { startHub } from "./hub-start.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));

const HELP = `usage: node bench/hub.mjs [options]
  --json          print the results as JSON on stdout (progress goes to stderr)
  --reps R        measured runs per case; the median is reported (default 9)
  --calls N       calls per measured run (default 2000 in-process, a quarter of it over stdio)
  --lists N       listings per measured run (default 200 in-process, 20 over stdio)
  --tools T       tools per in-process server (default 10)
  --no-stdio      skip part 2`;
const { args, num: opt } = cliArgs(HELP);
const JSON_OUT = args.includes("--json");
const REPS = opt("reps", 9);
const CALLS = opt("calls", 2000);
const LISTS = opt("lists", 200);
const TOOLS = opt("tools", 10);
const log = (m) => process.stderr.write(`${m}\n`);

/** A legacy MCP server in this process, as a Transport: answers at once, on the next microtask. */
class MemoryServer {
  kind = "in_process";
  #sink;
  constructor(tools) {
    this.tools = Array.from({ length: tools }, (_, i) => ({
      name: i === 0 ? "echo" : `tool_${i}`,
      description: `Tool number ${i}`,
      inputSchema: { type: "object", properties: { message: { type: "string" } } },
    }));
  }
  async start(sink) {
    this.#sink = sink;
  }
  async close() {
    const s = this.#sink;
    this.#sink = undefined;
    s?.closed();
  }
  send(m) {
    if (m.id === undefined || m.method === undefined) return;
    const ok = (result) => queueMicrotask(() => this.#sink?.message({ jsonrpc: "2.0", id: m.id, result }));
    switch (m.method) {
      case "initialize":
        return ok({
          protocolVersion: "2025-11-25",
          capabilities: { tools: {} },
          serverInfo: { name: "memory", version: "1" },
        });
      case "tools/list":
        return ok({ tools: this.tools });
      case "tools/call":
        return ok({ content: [{ type: "text", text: String(m.params?.arguments?.message ?? "") }] });
      default:
        return queueMicrotask(() =>
          this.#sink?.message({
            jsonrpc: "2.0",
            id: m.id,
            error: { code: -32601, message: "Method not found" },
          }),
        );
    }
  }
}

/** Median wall time (µs) and CPU (µs) per operation of `fn` run `n` times, over REPS runs, alternating a and b. */
async function pair(n, a, b) {
  const out = { a: { wall: [], cpu: [] }, b: { wall: [], cpu: [] } };
  // Warm up both.
  for (let i = 0; i < Math.min(n, 200); i++) {
    await a();
    await b();
  }
  for (let r = 0; r < REPS; r++) {
    for (const [key, fn] of r % 2 === 0
      ? [
          ["a", a],
          ["b", b],
        ]
      : [
          ["b", b],
          ["a", a],
        ]) {
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await fn();
      const wall = Number(process.hrtime.bigint() - t0) / 1e3 / n;
      const c = process.cpuUsage(c0);
      out[key].wall.push(wall);
      out[key].cpu.push((c.user + c.system) / n);
    }
  }
  const ratios = out.a.wall.map((w, i) => w / out.b.wall[i]);
  return {
    hub: { wallUs: median(out.a.wall), cpuUs: median(out.a.cpu) },
    direct: { wallUs: median(out.b.wall), cpuUs: median(out.b.cpu) },
    ratio: median(out.a.wall) / median(out.b.wall),
    pairedRatio: median(ratios),
  };
}

async function measure(label, servers, { lists, calls }) {
  const { hub } = await startHub(servers, { requestTimeout: 30_000, readyTimeout: 30_000 });
  const ids = hub.serverIds();
  const clients = ids.map((id) => hub.client(id));
  const first = await hub.listTools();
  log(`${label}: ${ids.length} servers, ${first.length} tools`);
  const listing = await pair(
    lists,
    () => hub.listTools(),
    () => Promise.all(clients.map((c) => c.listAllTools())),
  );
  const name = `mcp__${ids[0]}__echo`;
  const call = await pair(
    calls,
    () => hub.callTool(name, { message: "hello" }),
    () => clients[0].callTool("echo", { message: "hello" }),
  );
  await hub.close();
  return { label, servers: ids.length, tools: first.length, listing, call };
}

const results = [];
for (const n of [1, 5, 20]) {
  const servers = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`s${i}`, { transport: new MemoryServer(TOOLS) }]),
  );
  results.push(await measure(`in-process x${n}`, servers, { lists: LISTS, calls: CALLS }));
}
if (!args.includes("--no-stdio")) {
  const server = () => ({
    transport: {
      type: "stdio",
      command: process.execPath,
      args: [join(HERE, "server.mjs")],
      stderr: "discard",
    },
  });
  results.push(
    await measure(
      "stdio x3",
      { a: server(), b: server(), c: server() },
      {
        lists: Math.max(1, Math.round(LISTS / 10)),
        calls: Math.max(1, Math.round(CALLS / 4)),
      },
    ),
  );
}

if (JSON_OUT) {
  console.log(JSON.stringify({ reps: REPS, results }, null, 2));
} else {
  const us = (x) => x.toFixed(1);
  console.log(
    table(
      [
        "servers",
        "tools",
        "what",
        "hub µs/op",
        "direct µs/op",
        "hub CPU µs",
        "direct CPU µs",
        "hub/direct",
        "(paired)",
        "overhead µs",
      ],
      results.flatMap((r) =>
        ["listing", "call"].map((what) => {
          const m = r[what];
          return [
            r.label,
            fmtInt(r.tools),
            what === "listing" ? "listTools (all servers)" : "callTool (routed)",
            us(m.hub.wallUs),
            us(m.direct.wallUs),
            us(m.hub.cpuUs),
            us(m.direct.cpuUs),
            fmtRatio(m.ratio),
            fmtRatio(m.pairedRatio),
            us(m.hub.wallUs - m.direct.wallUs),
          ];
        }),
      ),
      new Set([1, 3, 4, 5, 6, 7, 8, 9]),
    ),
  );
  const inproc = results.filter((r) => r.label.startsWith("in-process"));
  console.log(
    "\nhub listing time per server (in-process): " +
      inproc.map((r) => `${r.servers} servers ${us(r.listing.hub.wallUs / r.servers)} µs`).join(", "),
  );
}
