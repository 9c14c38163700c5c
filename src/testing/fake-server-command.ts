import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { StdioTransportOptions } from "../transport/stdio-options.js";

/**
 * The entry point beside this module in the built package. Run from the TypeScript sources (the
 * project's own tests), this module has no built sibling: the built copy in `dist/` serves.
 */
function entryPath(): string {
  const here = new URL("./fake-server-entry.js", import.meta.url);
  const built = fileURLToPath(here);
  if (existsSync(built)) return built;
  return fileURLToPath(new URL("../../dist/testing/fake-server-entry.js", import.meta.url));
}

/**
 * Stdio transport options that serve the fake server defined in `script` (a module whose default
 * export is a `FakeServer`, or a function returning one) from a small node process: the same
 * server a test serves in-process, over the real stdio transport. `overrides` are merged in.
 */
export function fakeServerCommand(
  script: string,
  overrides: Partial<Omit<StdioTransportOptions, "type" | "command">> = {},
): StdioTransportOptions {
  if (typeof script !== "string" || script.length === 0) {
    throw new TypeError("conduit-mcp: fakeServerCommand needs the path of a fake server definition file");
  }
  const file = isAbsolute(script) ? script : resolve(script);
  return {
    type: "stdio",
    command: process.execPath,
    args: [entryPath(), file],
    stdinGrace: 500,
    termGrace: 500,
    ...overrides,
  };
}
