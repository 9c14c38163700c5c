import { fileURLToPath } from "node:url";
import type { CallableTool, Client, ToolCaller } from "../../src/index.js";
import { nodeServer } from "../helpers/index.js";

export const ADAPTER_HOSTILE = fileURLToPath(
  new URL("../fixtures/adapter-hostile-server.mjs", import.meta.url),
);

/** The hostile adapter fixture over stdio (see its header). */
export function hostileTransport() {
  return nodeServer(ADAPTER_HOSTILE, [], { stdinGrace: 100, termGrace: 200 });
}

/** Characters no sanitised text may hold: escapes, C0/C1 controls, bidi and zero-width marks. */
export const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/;

/**
 * The `ToolCaller` shape a hub has, over real clients: tools listed under `mcp__<server>__<tool>`
 * names and calls routed by that name. (The hub itself is built elsewhere; this is the seam.)
 */
export function qualifiedCaller(clients: Client[]): ToolCaller {
  const route = new Map<string, { client: Client; name: string }>();
  return {
    async listCallableTools(options) {
      const out: CallableTool[] = [];
      for (const client of clients) {
        for (const tool of await client.listAllTools(options)) {
          const name = `mcp__${client.serverId}__${tool.name}`.replace(/[^a-zA-Z0-9_-]/g, "_");
          route.set(name, { client, name: tool.name });
          out.push({ name, serverId: client.serverId, tool });
        }
      }
      return out;
    },
    callTool(name, args, options) {
      const target = route.get(name);
      if (!target) return Promise.reject(new Error(`no route for ${name}`));
      return target.client.callTool(target.name, args, { ...options, task: undefined });
    },
  };
}
