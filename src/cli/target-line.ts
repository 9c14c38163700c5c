/**
 * The target part of serve's and inspect's command lines, which have a grammar of their own
 * besides: the same options as every other command (`--config` / `--server`, `--url` with
 * `--header` / `--bearer-env`, `-- <command>`, `--protocol`), read by the same code (args.ts),
 * so that they open their servers as the other commands do (target.ts, connect.ts).
 */

import { protocolOf, type TargetValues, toTarget } from "./args.js";
import type { TargetLine } from "./connect.js";
import { HUB_OPTIONS } from "./hub-args.js";

/** parseArgs options of the target, to spread into a command's own. */
export const TARGET_OPTIONS = {
  ...HUB_OPTIONS,
  url: { type: "string" },
  header: { type: "string", multiple: true },
  "bearer-env": { type: "string" },
  protocol: { type: "string" },
} as const;

export const TARGET_USAGE = `Where the servers are (one of):
  -c, --config <file>     an mcpServers file: every server in it (or one, with --server <name>)
  --url <url>             one server over Streamable HTTP; with --header 'name: value'
                          (repeatable) and --bearer-env <VAR> (a bearer token from VAR); else
                          the tokens \`conduit-mcp login --url <url>\` stored
  -- <command> [args...]  one server started over stdio
  --protocol <choice>     auto (default), modern, legacy, or one protocol version
`;

/** The target of a command line split at `--`; throws UsageError as every command does. */
export function targetLine(
  values: TargetValues & { protocol?: string | undefined; json?: boolean | undefined },
  command: string[] | null,
  env: Readonly<Record<string, string | undefined>>,
): TargetLine {
  return {
    target: toTarget(command, values, env),
    protocol: protocolOf(values.protocol),
    json: values.json === true,
  };
}
