// The HTTP benchmark's server: the official @modelcontextprotocol/server package with one `echo`
// tool, behind `createMcpHandler` with its default stateless legacy fallback, so one endpoint
// speaks both eras: 2026-07-28 requests (with the `_meta` envelope) get the modern path,
// `initialize` and other envelope-less requests the 2025 one. Served by node:http on 127.0.0.1.
//
// Usage: node bench/http-server.mjs [port]   (0, the default, picks a free port)
// Prints "LISTENING <port>" on stdout when ready. Exits on SIGTERM, SIGINT, or when its stdin
// ends (so it never outlives the benchmark that started it with a pipe on stdin).
import http from "node:http";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { serveWeb } from "../test/fixtures/lib/web-bridge.mjs";

// Built once: createMcpHandler calls the factory for every HTTP request.
const inputSchema = z.object({ message: z.string() });

function build() {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool("echo", { description: "Repeats the message", inputSchema }, async ({ message }) => ({
    content: [{ type: "text", text: message }],
  }));
  return server;
}

const handler = createMcpHandler(() => build());

// node:http in front of the web-standard handler (the same bridge the test fixtures use).
const server = http.createServer((req, res) => serveWeb(req, res, (request) => handler.fetch(request)));
server.keepAliveTimeout = 60_000;

const port = Number(process.argv[2] ?? 0);
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});

function stop() {
  server.closeAllConnections();
  server.close(() => process.exit(0));
  setTimeout(() => process.exit(0), 1000).unref();
}
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
process.stdin.on("end", stop);
process.stdin.on("error", stop);
process.stdin.resume();
