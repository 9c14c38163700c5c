/** `info`: the negotiated era and version, the server's name, capabilities and instructions; per server with --config. */
import { type Hub, type HubStatus, sanitizeText } from "../../index.js";
import { EXIT } from "../common.js";
import { renderInfo } from "../render.js";
import type { CommandModule, CommandOf } from "./command.js";

export const info: CommandModule<CommandOf<"info">> = {
  async client(client) {
    const description = client.serverInfo();
    return { json: description, human: renderInfo(description), exitCode: EXIT.ok };
  },
  async hub(hub) {
    const servers = infoOf(hub, hub.status());
    return {
      json: { servers },
      human: renderHubInfo(servers),
      exitCode: Object.values(servers).some((s) => s.state === "ready") ? EXIT.ok : EXIT.client,
    };
  },
};

type ServerInfoLine = HubStatus["servers"][string] & { server?: { name: string; version: string } };

function infoOf(hub: Hub, status: HubStatus): Record<string, ServerInfoLine> {
  const out: Record<string, ServerInfoLine> = {};
  for (const [id, s] of Object.entries(status.servers)) {
    let server: { name: string; version: string } | undefined;
    if (s.state === "ready") {
      const info = hub.client(id).serverInfo().serverInfo;
      if (info) server = { name: String(info.name), version: String(info.version) };
    }
    out[id] = { ...s, ...(server ? { server } : {}) };
  }
  return out;
}

const line = (text: string, max = 100) => sanitizeText(text, { maxLength: max });

function renderHubInfo(info: Record<string, ServerInfoLine>): string {
  return Object.entries(info)
    .map(([id, s]) => {
      const parts: string[] = [s.state];
      if (s.era) parts.push(`${s.era} ${line(s.version ?? "", 40)}`);
      if (s.server) parts.push(`${line(s.server.name, 60)} ${line(s.server.version, 40)}`);
      const why = s.reason && s.state !== "ready" ? ` (${line(s.reason, 200)})` : "";
      return `${line(id, 64)}: ${parts.join(", ")}${why}\n`;
    })
    .join("");
}
