// The servers bench/scale.mjs and bench/soak.mjs put behind a hub: an in-process server (no
// process, no pipe: what is measured is the hub and its clients) and bench/tools-server.mjs over
// stdio (the official @modelcontextprotocol/server in a process of its own). Both have `echo`,
// `add_tool` (one more tool, then notifications/tools/list_changed) and count the tools/list
// requests they read.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
export const TOOLS_SERVER = join(HERE, "tools-server.mjs");

function tool(name, i) {
  return {
    name,
    description: `Tool number ${i}: looks a record up and returns its fields`,
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 100 } },
    },
  };
}

/**
 * A legacy MCP server served in-process (`{ type: "in-process", server }`): `tools` tools, the
 * answers built by hand on the next microtask, tools/list counted.
 */
export class InProcessToolsServer {
  lists = 0;
  #peers = new Set();

  constructor(tools) {
    this.tools = Array.from({ length: tools }, (_, i) =>
      tool(i === 0 ? "echo" : i === 1 ? "add_tool" : `tool_${i}`, i),
    );
  }

  serveInProcess(peer) {
    this.#peers.add(peer);
    return {
      receive: (m) => this.#receive(peer, m),
      close: () => {
        this.#peers.delete(peer);
      },
    };
  }

  #receive(peer, m) {
    if (m.id === undefined || m.method === undefined) return;
    const ok = (result) => queueMicrotask(() => peer.send({ jsonrpc: "2.0", id: m.id, result }));
    switch (m.method) {
      case "initialize":
        return ok({
          protocolVersion: "2025-11-25",
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: "scale-in-process", version: "1" },
        });
      case "ping":
        return ok({});
      case "tools/list":
        this.lists += 1;
        return ok({ tools: this.tools });
      case "tools/call": {
        const name = m.params?.name;
        if (name === "add_tool") {
          this.tools = [...this.tools, tool(String(m.params.arguments?.name), this.tools.length)];
          ok({ content: [{ type: "text", text: "added" }] });
          return queueMicrotask(() => {
            for (const p of this.#peers)
              p.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
          });
        }
        return ok({ content: [{ type: "text", text: String(m.params?.arguments?.message ?? name) }] });
      }
      default:
        return queueMicrotask(() =>
          peer.send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } }),
        );
    }
  }
}

/**
 * `n` servers of `kind` ("in-process" or "stdio") with `tools` tools each, as the hub's
 * `servers`, and how to read each one's tools/list count (`lists(id)`, a promise).
 */
export function scaleServers(kind, n, tools, hubRef) {
  const servers = {};
  const local = new Map();
  for (let i = 0; i < n; i++) {
    const id = `s${i}`;
    if (kind === "in-process") {
      const server = new InProcessToolsServer(tools);
      local.set(id, server);
      servers[id] = { transport: { type: "in-process", server } };
    } else {
      servers[id] = {
        transport: {
          type: "stdio",
          command: process.execPath,
          args: [TOOLS_SERVER, "--tools", String(tools)],
          stderr: "discard",
        },
      };
    }
  }
  const lists = async (id) => {
    if (kind === "in-process") return local.get(id).lists;
    // Asked through the server's client directly: a call, not a listing.
    const r = await hubRef().client(id).callTool("list_count", {});
    return Number(r.content[0].text);
  };
  return { servers, lists };
}
