/**
 * `conduit-mcp inspect`: the local page over the servers of a config file (or one server), built
 * on the hub, governance and telemetry (docs/inspect.md). Loaded by run.ts only for this command,
 * so the other commands and the library do not load the inspector.
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import type { GovernanceOptions } from "../../governance/index.js";
import type { HubServerConfig } from "../../index.js";
import {
  Desk,
  InspectHostError,
  type Inspector,
  loopbackAddress,
  startInspector,
} from "../../inspect/index.js";
import { EXIT, type Output, PROGRAM } from "../common.js";
import { makeHub, type Opening, type TargetLine, targetTransport } from "../connect.js";
import { readPolicy } from "../governance.js";
import { UsageError } from "../invocation.js";
import { jsonDocument } from "../render.js";
import { type Resolved, resolveServers } from "../target.js";
import { TARGET_OPTIONS, TARGET_USAGE, targetLine } from "../target-line.js";

export const INSPECT_USAGE = `Usage: ${PROGRAM} inspect (--config <file> [--server <name>] | --url <url> | -- <command> [args...])
         [--port <n>] [--host 127.0.0.1|::1|localhost] [--open] [--json] [--policy <file>]

Starts a local web page over the servers (every entry of an mcpServers file, or one server) and
prints its address, a random token included: "inspect: http://127.0.0.1:<port>/?token=<token>"
(with --json: {"url": "..."} as the first stdout line). The page needs the token on every request.

${TARGET_USAGE}
  --port <n>       the port (default 0: any free port)
  --host <h>       loopback only: 127.0.0.1 (default), ::1 or localhost; anything else is refused
  --open           open the page with the system's opener (never through a shell)
  --policy <file>  the same rule file as \`call --policy\`; an "ask" shows an approval on the page
Ctrl-C stops it, closing every server.
`;

interface InspectArgs {
  line: TargetLine;
  port: number;
  host: string;
  open: boolean;
  json: boolean;
  policy: string | null;
}

const HUB_NAME = "inspect";

function parse(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): InspectArgs | "help" {
  const dash = argv.indexOf("--");
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? null : argv.slice(dash + 1);
  const { values } = parseArgs({
    args: [...own],
    options: {
      ...TARGET_OPTIONS,
      port: { type: "string" },
      host: { type: "string" },
      open: { type: "boolean" },
      json: { type: "boolean" },
      policy: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: false,
  });
  if (values.help) return "help";
  const line = targetLine(values, command, env);
  const port = Number(values.port ?? "0");
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError("bad_option", "--port must be 0..65535");
  const host = values.host ?? "127.0.0.1";
  loopbackAddress(host);
  return {
    line,
    port,
    host,
    open: values.open === true,
    json: values.json === true,
    policy: values.policy ?? null,
  };
}

/** The hub's servers: a config file's, or the one server under its entry name (else "server"). */
function serversOf(
  resolved: Resolved<TargetLine>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, HubServerConfig> {
  if (resolved.kind === "hub") return resolved.servers;
  const target = resolved.inv.target;
  const name = target.kind === "config" && target.server !== null ? target.server : "server";
  return { [name]: { transport: targetTransport(target, env) } };
}

/** Runs until `signal` aborts (Ctrl-C), then closes the page and every client. */
export async function runInspect(
  argv: readonly string[],
  out: Output,
  signal: AbortSignal | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let args: InspectArgs | "help";
  let governance: GovernanceOptions | undefined;
  try {
    args = parse(argv, env);
    if (args === "help") {
      out.stdout(INSPECT_USAGE);
      return EXIT.ok;
    }
    if (args.policy !== null) {
      const { policy, defaultDecision } = readPolicy(args.policy);
      governance = { policy, ...(defaultDecision ? { defaultDecision } : {}) };
    }
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/^conduit-mcp: /, "") : String(err);
    const known = err instanceof UsageError || err instanceof TypeError || err instanceof InspectHostError;
    out.stderr(`${PROGRAM}: ${message}\nRun '${PROGRAM} inspect --help' for usage.\n`);
    if (argv.includes("--json")) out.stdout(jsonDocument({ error: { kind: "usage", message } }));
    return known || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")
      ? EXIT.usage
      : EXIT.internal;
  }
  // The target as every command opens it; from here on, output is scrubbed of the file's secrets.
  const resolved = resolveServers(args.line, out, env);
  if (typeof resolved === "number") return resolved;
  const guarded = resolved.out;
  const desk = new Desk();
  const logger = {
    warn: (m: string) => guarded.stderr(`${PROGRAM}: warning: ${m}\n`),
    error: (m: string) => guarded.stderr(`${PROGRAM}: error: ${m}\n`),
  };
  const opening: Opening = { inv: resolved.inv, out: guarded, clock: null, terminal: null, extra: {}, env };
  const hub = makeHub(opening, serversOf(resolved, env), {
    hub: {
      name: HUB_NAME,
      logger,
      // The page is the approver; a person may take their time (the call's deadline still bounds it).
      ...(governance
        ? { governance: { ...governance, approve: desk.approve, hookTimeout: 24 * 60 * 60 * 1000 } }
        : {}),
    },
    client: { logger, handler: desk.handler() },
  });
  if (typeof hub === "number") return hub;
  let inspector: Inspector | undefined;
  try {
    inspector = await startInspector({ hub, desk, hubName: HUB_NAME, host: args.host, port: args.port });
    guarded.stdout(args.json ? `${JSON.stringify({ url: inspector.url })}\n` : `inspect: ${inspector.url}\n`);
    if (args.open) openPage(inspector.url);
    await new Promise<void>((resolve) => {
      if (!signal || signal.aborted) return resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    return EXIT.ok;
  } catch (err) {
    guarded.stderr(`${PROGRAM}: inspect: ${(err as Error).message}\n`);
    return EXIT.internal;
  } finally {
    await inspector?.close();
    await hub.close();
  }
}

/** Opens the page with the platform's opener: the URL one argument, never a shell, loopback http only. */
function openPage(url: string): void {
  if (!/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+\/\?token=[A-Za-z0-9_-]+$/.test(url)) return;
  const cmd = process.platform === "darwin" ? "open" : "xdg-open";
  const child = spawn(cmd, [url], { shell: false, stdio: "ignore", detached: true });
  child.on("error", () => {});
  child.unref();
}
