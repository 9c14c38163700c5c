/**
 * `conduit-mcp serve`: a config file's servers (or one server) served as one MCP server, over
 * stdio for a desktop host or over HTTP (docs/serve.md). Its own small grammar, like login; loaded
 * only when this command runs (run.ts), so other commands do not pay for it.
 */
import { parseArgs } from "node:util";
import type { Client, Hub } from "../../index.js";
import type { Caller } from "../../serve/callers.js";
import { readCallersFile, type ServeHandle, serve, serveInputHandler } from "../../serve/index.js";
import { EXIT, libraryMessage, type Output, PROGRAM } from "../common.js";
import { makeClient, makeHub, type Opening, type TargetLine } from "../connect.js";
import { readPolicy } from "../governance.js";
import { UsageError } from "../invocation.js";
import { resolveServers } from "../target.js";
import { TARGET_OPTIONS, TARGET_USAGE, targetLine } from "../target-line.js";

export const SERVE_USAGE = `Usage: ${PROGRAM} serve --config <file> [--server <name>] [options]
       ${PROGRAM} serve --url <url> [--header 'name: value'] [--bearer-env VAR] [options]
       ${PROGRAM} serve [options] -- <command> [args...]

Serves every server of an mcpServers file as one MCP server (tools named mcp__<server>__<tool>),
or one server with its names unchanged. Over stdio by default (what desktop hosts launch).

${TARGET_USAGE}
  --http [host:]port      serve Streamable HTTP at http://host:port/mcp instead (host default
                          127.0.0.1; any other host needs --callers)
  --callers <file>        { "callers": [{ "token": "\${env:VAR}", "principal", "allow", "deny" }] }
  --audit <file>          one JSON line per tool call (appended)
  --policy <file>         governance rules (as call --policy); an ask is put to the host
  --idle-timeout <ms>     close HTTP sessions idle this long (default 1800000)
  --max-sessions <n>      HTTP sessions open at once (default 100)

Stops on SIGINT, SIGTERM, or (stdio) when the host closes stdin.
`;

interface ServeArgs {
  line: TargetLine;
  http: { host: string; port: number } | null;
  callers?: string;
  audit?: string;
  policy?: string;
  idleTimeout?: number;
  maxSessions?: number;
}

function parse(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ServeArgs | "help" {
  const dash = argv.indexOf("--");
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const command = dash === -1 ? null : argv.slice(dash + 1);
  const { values, positionals } = parseArgs({
    args: [...own],
    options: {
      ...TARGET_OPTIONS,
      http: { type: "string" },
      callers: { type: "string" },
      audit: { type: "string" },
      policy: { type: "string" },
      "idle-timeout": { type: "string" },
      "max-sessions": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return "help";
  if (positionals.length > 0) throw new UsageError("bad_option", `unexpected argument "${positionals[0]}"`);
  if (!values.http && values.callers) throw new UsageError("bad_option", "--callers needs --http");
  return {
    line: targetLine(values, command, env),
    http: values.http === undefined ? null : hostPort(values.http),
    ...(values.callers !== undefined ? { callers: values.callers } : {}),
    ...(values.audit !== undefined ? { audit: values.audit } : {}),
    ...(values.policy !== undefined ? { policy: values.policy } : {}),
    ...(values["idle-timeout"] !== undefined
      ? { idleTimeout: int(values["idle-timeout"], "--idle-timeout") }
      : {}),
    ...(values["max-sessions"] !== undefined
      ? { maxSessions: int(values["max-sessions"], "--max-sessions") }
      : {}),
  };
}

function int(text: string, option: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1)
    throw new UsageError("bad_option", `${option} must be an integer >= 1`);
  return n;
}

/** `8931`, `127.0.0.1:8931`, `[::1]:8931`. */
function hostPort(text: string): { host: string; port: number } {
  const m = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(text);
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || port > 65535) throw new UsageError("bad_option", "--http must be [host:]port");
  return { host: (m[1] ?? "127.0.0.1").replace(/^\[|\]$/g, ""), port };
}

const stderrLogger = (out: Output) => ({
  warn: (m: string) => out.stderr(`${PROGRAM} serve: warning: ${m}\n`),
  error: (m: string) => out.stderr(`${PROGRAM} serve: error: ${m}\n`),
});

/** Runs serve until it is interrupted or (stdio) its host goes away. Never throws. */
export async function runServe(
  argv: readonly string[],
  out: Output,
  signal: AbortSignal | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let args: ServeArgs;
  let callers: Caller[] | undefined;
  let policy: ReturnType<typeof readPolicy> | undefined;
  try {
    const parsed = parse(argv, env);
    if (parsed === "help") {
      out.stderr(SERVE_USAGE);
      return EXIT.ok;
    }
    args = parsed;
    if (args.callers) callers = readCallersFile(args.callers, env);
    if (args.policy) policy = readPolicy(args.policy);
  } catch (err) {
    const message = err instanceof TypeError ? libraryMessage(err) : (err as Error).message;
    out.stderr(`${PROGRAM} serve: ${message}\n${err instanceof UsageError ? "" : SERVE_USAGE}`);
    return EXIT.usage;
  }
  // The target as every command opens it; from here on, output is scrubbed of the file's secrets.
  const resolved = resolveServers(args.line, out, env);
  if (typeof resolved === "number") return resolved;
  const guarded = resolved.out;
  const logger = stderrLogger(guarded);
  const opening: Opening = { inv: resolved.inv, out: guarded, clock: null, terminal: null, extra: {}, env };
  // Upstream elicitation and sampling are put to the host (when it can answer).
  const own = { handler: serveInputHandler(), logger };
  const target: Hub | Client | number =
    resolved.kind === "hub"
      ? makeHub(opening, resolved.servers, { hub: { logger }, client: own })
      : makeClient(opening, own);
  if (typeof target === "number") return target;
  let handle: ServeHandle;
  try {
    handle = await serve(target, {
      transport: args.http ? { type: "http", ...args.http } : { type: "stdio" },
      ...(callers ? { callers } : {}),
      ...(policy
        ? {
            policy: {
              policy: policy.policy,
              ...(policy.defaultDecision ? { defaultDecision: policy.defaultDecision } : {}),
            },
          }
        : {}),
      ...(args.audit ? { audit: args.audit } : {}),
      limits: {
        ...(args.idleTimeout ? { idleTimeout: args.idleTimeout } : {}),
        ...(args.maxSessions ? { maxSessions: args.maxSessions } : {}),
      },
      logger,
    });
  } catch (err) {
    await target.close().catch(() => {});
    guarded.stderr(
      `${PROGRAM} serve: ${err instanceof TypeError ? libraryMessage(err) : (err as Error).message}\n`,
    );
    return err instanceof TypeError ? EXIT.usage : EXIT.client;
  }
  if (handle.url) guarded.stderr(`${PROGRAM} serve: listening on ${handle.url}\n`);
  await new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
    void handle.closed.then(resolve);
  });
  await handle.close();
  await target.close().catch(() => {});
  return EXIT.ok;
}
