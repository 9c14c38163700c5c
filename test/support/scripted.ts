import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client, type ClientOptions } from "../../src/index.js";
import { recordingLogger } from "./logger.js";

export const SCRIPTED = fileURLToPath(new URL("../fixtures/scripted-server.mjs", import.meta.url));

/** The `tools/call` lines the scripted server wrote to its `stateFile` so far (none before it exists). */
export function toolCallsIn(stateFile: string): string[] {
  if (!existsSync(stateFile)) return [];
  return readFileSync(stateFile, "utf8")
    .split("\n")
    .filter((l) => l.startsWith("tools/call"));
}

/** Transport options for the scripted server with `config` (see the fixture's header). */
export function scriptedTransport(config: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return {
    type: "stdio" as const,
    command: process.execPath,
    args: [SCRIPTED, JSON.stringify(config)],
    stderr: "discard" as const,
    stdinGrace: 200,
    termGrace: 200,
    ...extra,
  };
}

export { recordEvents } from "./events.js";
export { recordingLogger } from "./logger.js";

/** A client of the scripted server; closed by `closeAll()`. */
const open: Client[] = [];
export function scriptedClient(
  config: Record<string, unknown> = {},
  options: Partial<ClientOptions> = {},
  transportExtra: Record<string, unknown> = {},
): Client {
  const client = new Client({
    name: "scripted",
    transport: scriptedTransport(config, transportExtra),
    logger: recordingLogger(),
    probeTimeout: 1000,
    requestTimeout: 5000,
    // The scripted server answers many tools it never lists (its cues: progress, flood, exit...):
    // it hides tools on purpose, which is what this option is for (requests.md).
    callUnlistedTools: true,
    ...options,
  });
  open.push(client);
  return client;
}

export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

/** True while a process with this pid exists and is not a zombie (nothing may reap orphans here). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}
