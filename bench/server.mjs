// The benchmark's server: the official @modelcontextprotocol/server package with one `echo` tool,
// served over stdio for both eras (`serveStdio` answers `server/discover` and `initialize`).
// Usage: node bench/server.mjs
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

function build() {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "echo",
    { description: "Repeats the message", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );
  return server;
}

serveStdio(build, { legacy: "serve" });
