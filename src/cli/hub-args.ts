// The command line's `--config FILE` / `-c` and `--server NAME`: a whole mcpServers file behind
// one hub, or one entry of it. Kept apart from args.ts, which only wires these in.
// Types only from args.ts: it imports this file's constants while it is being evaluated.
import type { Target } from "./invocation.js";

/** Throws the command line's usage error (args.ts passes its UsageError in). */
type Fail = (reason: string, message: string) => never;

export const HUB_OPTIONS = {
  config: { type: "string", short: "c" },
  server: { type: "string" },
} as const;

/** The commands that run over the whole file (the others need `--server`). */
export const HUB_COMMANDS = ["tools", "call", "info", "search"] as const;

export const HUB_USAGE = `Many servers (instead of -- <server command> or --url):
  -c, --config <file>       an mcpServers file (Claude Desktop, Cursor, Windsurf, VS Code): tools,
                            call and info run over every server in it, tools named
                            mcp__<server>__<tool>
  --server <name>           one entry of that file, for any command
`;

/** The `--config` target, or null when the line has none. */
export function configTarget(
  server: string[] | null,
  values: { config?: string; server?: string; url?: string; header?: string[]; "bearer-env"?: string },
  fail: Fail,
): Extract<Target, { kind: "config" }> | null {
  if (values.config === undefined) {
    if (values.server !== undefined) fail("bad_option", "--server needs --config <file>");
    return null;
  }
  if (values.config.length === 0) fail("bad_option", "--config needs a file");
  if (server !== null || values.url !== undefined) {
    fail(
      "conflicting_server",
      "give either --config, --url or `--` followed by the server command, not more than one",
    );
  }
  for (const option of ["header", "bearer-env"] as const) {
    if (values[option] !== undefined) {
      fail("bad_option", `--${option} needs --url (with --config, put it in the file)`);
    }
  }
  if (values.server !== undefined && values.server.length === 0) {
    fail("bad_option", "--server needs an entry name");
  }
  return { kind: "config", file: values.config, server: values.server ?? null };
}
