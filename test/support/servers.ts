import { fileURLToPath } from "node:url";
import type { StdioTransportOptions } from "../../src/index.js";

/** The official `@modelcontextprotocol/server` fixture (see its header for what it serves). */
export const OFFICIAL_SERVER = fileURLToPath(new URL("../fixtures/official-server.mjs", import.meta.url));

/** `@modelcontextprotocol/server-everything`, run straight from node_modules (no npx). */
export const EVERYTHING_SERVER = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** `@modelcontextprotocol/server-filesystem`, run straight from node_modules; its arguments are the allowed folders. */
export const FILESYSTEM_SERVER = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
);

/** How the official fixture is configured: both eras, modern (2026-07-28) only, or legacy only. */
export type OfficialConfig = "dual" | "modern" | "legacy";

/**
 * Servers' stderr is discarded so test output stays readable; set `CONDUIT_TEST_STDERR=inherit`
 * to see it while debugging.
 */
const STDERR: "inherit" | "discard" = process.env.CONDUIT_TEST_STDERR === "inherit" ? "inherit" : "discard";

/** Stdio transport options that run `script` with this Node and stop it quickly on close. */
export function nodeServer(
  script: string,
  args: readonly string[] = [],
  overrides: Partial<StdioTransportOptions> = {},
): StdioTransportOptions {
  return {
    type: "stdio",
    command: process.execPath,
    args: [script, ...args],
    stderr: STDERR,
    stdinGrace: 500,
    termGrace: 500,
    ...overrides,
  };
}

/** The official server fixture in one of its three configurations. */
export function officialServer(
  config: OfficialConfig,
  overrides: Partial<StdioTransportOptions> = {},
): StdioTransportOptions {
  return nodeServer(OFFICIAL_SERVER, [config], overrides);
}

/**
 * `@modelcontextprotocol/server-everything` over stdio. It lingers after stdin closes until its
 * timers run out (about 400 ms), so it gets a short `stdinGrace` before SIGTERM.
 */
export function everythingServer(overrides: Partial<StdioTransportOptions> = {}): StdioTransportOptions {
  return nodeServer(EVERYTHING_SERVER, ["stdio"], { stdinGrace: 100, ...overrides });
}
