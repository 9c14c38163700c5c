/** `tools`: one line per tool; with --config, a status line per server and every tool by its qualified name. */
import { type HubListing, sanitizeText } from "../../index.js";
import { EXIT } from "../common.js";
import { renderTools, withoutServerId } from "../render.js";
import type { CommandModule, CommandOf } from "./command.js";

export const tools: CommandModule<CommandOf<"tools">> = {
  async client(client, { request }) {
    const tools = await request((o) => client.listAllTools(o));
    return { json: { tools: tools.map(withoutServerId) }, human: renderTools(tools), exitCode: EXIT.ok };
  },
  async hub(hub, { span }) {
    const listing = await hub.listToolsDetailed({ timeout: span.left() });
    const answered = Object.values(listing.servers).some((s) => s.status === "ok");
    return {
      json: toolsJson(listing),
      human: renderHubTools(listing),
      exitCode: answered ? EXIT.ok : EXIT.client,
    };
  },
};

const line = (text: string, max = 100) => sanitizeText(text, { maxLength: max });

function renderHubTools(listing: HubListing): string {
  const status = Object.entries(listing.servers)
    .map(([id, s]) => {
      const what =
        s.status === "ok"
          ? `ok, ${s.count} tool${s.count === 1 ? "" : "s"}`
          : s.error?.reason === "server_down" && s.error.detail && "failure" in s.error.detail
            ? // What the warning above says too: the failure that took the server down.
              `server down (${line(s.error.detail.failure, 200)})`
            : `${s.status === "failed" ? "failed" : "not ready"}${s.error ? ` (${line(s.error.message, 200)})` : ""}`;
      return `${line(id, 64)}: ${what}\n`;
    })
    .join("");
  // The tools under their public names; the table renders (and sanitises) as for one server.
  const tools = renderTools(listing.tools.map((t) => ({ ...t.tool, name: t.name })));
  return `${status}\n${tools}`;
}

function toolsJson(listing: HubListing): unknown {
  const servers: Record<string, unknown> = {};
  for (const [id, s] of Object.entries(listing.servers)) {
    servers[id] = {
      status: s.status,
      count: s.count,
      durationMs: s.durationMs,
      ...(s.error ? { error: s.error.toJSON() } : {}),
    };
  }
  return {
    servers,
    tools: listing.tools.map((t) => ({ name: t.name, serverId: t.serverId, tool: withoutServerId(t.tool) })),
  };
}
