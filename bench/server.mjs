// The benchmark's server: the official @modelcontextprotocol/server package with one `echo` tool,
// served over stdio for both eras (`serveStdio` answers `server/discover` and `initialize`).
// Usage: node bench/server.mjs [--delay MS]   (--delay: each call waits MS ms first, as a tool
// that calls something else would; bench/serve.mjs --delay)
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const at = process.argv.indexOf("--delay");
const DELAY = at === -1 ? 0 : Number(process.argv[at + 1]);
const wait = () => new Promise((r) => setTimeout(r, DELAY));

function build() {
  const server = new McpServer({ name: "bench-echo", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "echo",
    { description: "Repeats the message", inputSchema: z.object({ message: z.string() }) },
    async ({ message }) => {
      if (DELAY > 0) await wait();
      return { content: [{ type: "text", text: message }] };
    },
  );
  return server;
}

serveStdio(build, { legacy: "serve" });
