// A small stdio server for the scale benchmarks and the hub-scale test: the official
// @modelcontextprotocol/server with `echo`, `add_tool` (it registers one more tool, so the
// server sends notifications/tools/list_changed), `list_count` (how many tools/list requests it
// has read) and N-3 more tools: N in all.
//
//   node bench/tools-server.mjs [--tools N] [--start-delay MS] [--start-log FILE]
//
// --start-delay waits before serving (a slow `npx` start); --start-log appends "start <t>" at
// boot and "up <t>" when it serves (t: ms on the machine's clock), so a test can count how many
// servers were starting at once.
import { appendFileSync } from "node:fs";

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : args[i + 1];
};
const TOOLS = Number(opt("tools", 100));
const DELAY = Number(opt("start-delay", 0));
const LOG = opt("start-log", undefined);
const now = () => performance.timeOrigin + performance.now();

if (LOG) appendFileSync(LOG, `start ${process.pid} ${now()}\n`);

// Loaded after the start line: loading them is part of starting.
const { McpServer } = await import("@modelcontextprotocol/server");
const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
const { z } = await import("zod");

// The tools/list requests read, counted on stdin beside the server's own reader (attached once
// the server's is, so that no line reaches this one alone).
let lists = 0;
let partial = "";
function countLists() {
  if (process.stdin.listenerCount("data") === 0) return void setImmediate(countLists);
  process.stdin.on("data", (chunk) => {
    const lines = (partial + chunk).split("\n");
    partial = lines.pop();
    for (const line of lines) if (line.includes('"method":"tools/list"')) lists += 1;
  });
}

function build() {
  const server = new McpServer(
    { name: "bench-tools", version: "1.0.0" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.registerTool(
    "echo",
    { description: "Repeats the message", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  server.registerTool(
    "add_tool",
    { description: "Registers one more tool", inputSchema: z.object({ name: z.string() }) },
    async ({ name }) => {
      server.registerTool(name, { description: "added", inputSchema: z.object({}) }, async () => ({
        content: [{ type: "text", text: name }],
      }));
      return { content: [{ type: "text", text: `added ${name}` }] };
    },
  );
  server.registerTool(
    "list_count",
    { description: "How many tools/list requests this server has read", inputSchema: z.object({}) },
    async () => ({ content: [{ type: "text", text: String(lists) }] }),
  );
  for (let i = 3; i < TOOLS; i++) {
    server.registerTool(
      `tool_${i}`,
      { description: `Tool number ${i}`, inputSchema: z.object({ message: z.string().optional() }) },
      async () => ({ content: [{ type: "text", text: String(i) }] }),
    );
  }
  return server;
}

if (DELAY > 0) await new Promise((r) => setTimeout(r, DELAY));
if (LOG) appendFileSync(LOG, `up ${process.pid} ${now()}\n`);
serveStdio(build, { legacy: "serve" });
countLists();
