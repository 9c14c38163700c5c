import { fileURLToPath } from "node:url";
import { Client, type ClientOptions, type InputHandler } from "../../src/index.js";
import { recordingLogger } from "./logger.js";

export const INPUT_SCRIPTED = fileURLToPath(
  new URL("../fixtures/input-scripted-server.mjs", import.meta.url),
);
export const INPUT_OFFICIAL = fileURLToPath(
  new URL("../fixtures/input-official-server.mjs", import.meta.url),
);

const STDERR: "inherit" | "discard" = process.env.CONDUIT_TEST_STDERR === "inherit" ? "inherit" : "discard";

const open: Client[] = [];

export function track(client: Client): Client {
  open.push(client);
  return client;
}

export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((c) => c.close().catch(() => {})));
}

/** Transport options for the scripted input server in `era` (pass them to a `WireTap` to watch the wire). */
export function inputTransport(era: "modern" | "legacy", config: Record<string, unknown> = {}) {
  return {
    type: "stdio" as const,
    command: process.execPath,
    args: [INPUT_SCRIPTED, JSON.stringify({ era, ...config })],
    stderr: STDERR,
    stdinGrace: 200,
    termGrace: 200,
  };
}

/** A client of the scripted input server in `era`. */
export function scripted(
  era: "modern" | "legacy",
  handler: InputHandler | undefined,
  options: Partial<ClientOptions> = {},
  config: Record<string, unknown> = {},
): Client & { logger: ReturnType<typeof recordingLogger> } {
  const logger = recordingLogger();
  const client = new Client({
    name: "input-test",
    transport: inputTransport(era, config),
    protocol: era,
    requestTimeout: 5000,
    // The scripted input server answers tools it never lists (ask, ...): it hides them on purpose.
    callUnlistedTools: true,
    logger,
    ...(handler ? { handler } : {}),
    ...options,
  });
  track(client);
  return Object.assign(client, { logger });
}

/** The structured content of a tool result, loosely typed for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON.
export function structured(r: { structured: unknown }): any {
  return r.structured;
}
