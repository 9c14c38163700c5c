// `conduit-mcp --config FILE <command>`: the file's servers behind one hub (tools, call, info),
// or one entry of it with `--server NAME` for any command (run as for a single server).

import type { GovernanceOptions } from "../governance/index.js";
import {
  Hub,
  type HubListing,
  type HubServerConfig,
  type HubStatus,
  loadServersConfig,
  McpClientError,
  Secret,
  sanitizeText,
} from "../index.js";
import { EXIT, internalError, libraryMessage, type Output, PROGRAM, scrubbed, usageError } from "./common.js";
import { cliGovernance } from "./governance.js";
import { HUB_COMMANDS } from "./hub-args.js";
import { cliHandler, streamTerminal, type Terminal } from "./input.js";
import { type Invocation, UsageError } from "./invocation.js";
import { jsonDocument, renderToolResult, renderTools, toolResultJson, withoutServerId } from "./render.js";
import { clientError } from "./report.js";

type Runner = (
  inv: Invocation,
  out: Output,
  signal?: AbortSignal,
  terminal?: Terminal | null,
) => Promise<number>;

export async function runConfigInvocation(
  inv: Invocation,
  out: Output,
  signal: AbortSignal | undefined,
  terminal: Terminal | null | undefined,
  env: Readonly<Record<string, string | undefined>>,
  run: { single: Runner; watch: Runner },
): Promise<number> {
  const target = inv.target;
  if (target.kind !== "config") throw new Error("runConfigInvocation needs a --config target");
  let servers: Record<string, HubServerConfig>;
  try {
    servers = loadServersConfig(target.file, {
      env,
      logger: { warn: (m) => out.stderr(`${PROGRAM}: warning: ${m}\n`) },
    });
  } catch (err) {
    if (!(err instanceof TypeError)) return internalError(err, out, inv.json);
    return usageError(new UsageError("bad_config", libraryMessage(err)), out, inv.json);
  }
  // Whatever a server echoes, the file's secrets never reach the terminal.
  const guarded = secretsOf(servers).reduce((o, secret) => scrubbed(o, secret), out);

  if (target.server !== null) {
    const entry = Object.hasOwn(servers, target.server) ? servers[target.server] : undefined;
    if (!entry) {
      const names = Object.keys(servers).map((n) => JSON.stringify(sanitizeText(n, { maxLength: 60 })));
      return usageError(
        new UsageError(
          "unknown_server",
          `--server ${JSON.stringify(sanitizeText(target.server, { maxLength: 60 }))} is not an enabled entry of the file (it has ${names.join(", ") || "none"})`,
        ),
        out,
        inv.json,
      );
    }
    const one: Invocation = { ...inv, target: { ...target, transport: entry.transport } };
    return inv.command.name === "watch"
      ? run.watch(one, guarded, signal, terminal)
      : run.single(one, guarded, signal, terminal);
  }
  if (!(HUB_COMMANDS as readonly string[]).includes(inv.command.name)) {
    return usageError(
      new UsageError(
        "needs_server",
        `${inv.command.name} talks to one server: add --server <name> (with --config, only ${HUB_COMMANDS.join(", ")} run over every server)`,
      ),
      out,
      inv.json,
    );
  }
  return runHub(inv, servers, guarded, signal, terminal);
}

async function runHub(
  inv: Invocation,
  servers: Record<string, HubServerConfig>,
  out: Output,
  signal: AbortSignal | undefined,
  terminal: Terminal | null | undefined,
): Promise<number> {
  const deadline = Date.now() + inv.timeout;
  const remaining = () => Math.max(1, deadline - Date.now());
  const ownTerminal =
    terminal === undefined && process.stdin.isTTY ? streamTerminal(process.stdin, process.stderr) : undefined;
  const term = terminal === undefined ? (ownTerminal ?? null) : terminal;
  const logger = {
    warn: (message: string) => out.stderr(`${PROGRAM}: warning: ${message}\n`),
    error: (message: string) => out.stderr(`${PROGRAM}: error: ${message}\n`),
  };
  let governance: GovernanceOptions | undefined;
  try {
    governance = inv.governance
      ? cliGovernance(inv.governance, term, (text) => out.stderr(`${PROGRAM}: ${text}\n`))
      : undefined;
  } catch (err) {
    ownTerminal?.close();
    return err instanceof UsageError ? usageError(err, out, inv.json) : internalError(err, out, inv.json);
  }
  let hub: Hub;
  try {
    hub = new Hub({
      name: PROGRAM,
      servers,
      ...(governance ? { governance } : {}),
      logger,
      listTimeout: inv.timeout,
      clientOptions: {
        protocol: inv.protocol,
        requestTimeout: inv.timeout,
        // One command: a server that dies is an answer, not something to wait out or restart.
        maxReconnects: 0,
        onGiveUp: "stop",
        logger,
        handler: cliHandler({
          roots: inv.roots,
          terminal: term,
          note: (text) => out.stderr(`${PROGRAM}: ${text}\n`),
        }),
        handlerTimeout: { elicitation: inv.inputTimeout },
      },
    });
  } catch (err) {
    ownTerminal?.close();
    if (err instanceof TypeError) {
      return usageError(new UsageError("bad_config", libraryMessage(err)), out, inv.json);
    }
    return internalError(err, out, inv.json);
  }
  const onAbort = () => void hub.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    await hub.ready({ timeout: remaining() });
    const command = inv.command;
    if (command.name === "tools") {
      const listing = await hub.listToolsDetailed({ timeout: remaining() });
      const answered = Object.values(listing.servers).some((s) => s.status === "ok");
      if (inv.json) out.stdout(jsonDocument(toolsJson(listing)));
      else out.stdout(renderHubTools(listing));
      return answered ? EXIT.ok : EXIT.client;
    }
    if (command.name === "call") {
      const result = await hub.callTool(command.tool, command.arguments, { timeout: remaining(), signal });
      if (inv.json) out.stdout(jsonDocument(toolResultJson(result)));
      else {
        out.stdout(renderToolResult(result));
        if (result.isError) out.stderr(`${PROGRAM}: the tool reported an error (isError)\n`);
      }
      return result.isError ? EXIT.toolError : EXIT.ok;
    }
    const info = infoOf(hub, hub.status());
    if (inv.json) out.stdout(jsonDocument({ servers: info }));
    else out.stdout(renderHubInfo(info));
    return Object.values(info).some((s) => s.state === "ready") ? EXIT.ok : EXIT.client;
  } catch (err) {
    if (signal?.aborted) {
      out.stderr(`${PROGRAM}: interrupted\n`);
      if (inv.json)
        out.stdout(jsonDocument({ error: { kind: "interrupted", reason: null, message: "interrupted" } }));
      return EXIT.interrupted;
    }
    if (err instanceof McpClientError) {
      const hint =
        err.kind === "not_found" && inv.command.name === "call"
          ? "no listed tool has that name; run 'tools' for the qualified names (mcp__<server>__<tool>)"
          : undefined;
      return clientError(err, out, inv.json, { phase: "request", inv, hint });
    }
    if (err instanceof TypeError) {
      return usageError(new UsageError("bad_arguments", libraryMessage(err)), out, inv.json);
    }
    return internalError(err, out, inv.json);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    ownTerminal?.close();
    await hub.close();
  }
}

/** Every `Secret` the file's entries hold (env values and headers built from variables, tokens). */
function secretsOf(servers: Record<string, HubServerConfig>): string[] {
  const found: string[] = [];
  const add = (v: unknown) => {
    if (v instanceof Secret) found.push(v.reveal());
  };
  for (const { transport } of Object.values(servers)) {
    const t = transport as { env?: unknown; headers?: unknown; auth?: { bearer?: unknown } };
    for (const list of [t.env, t.headers]) {
      if (Array.isArray(list)) for (const pair of list) add((pair as unknown[])[1]);
    }
    add(t.auth?.bearer);
  }
  return found;
}

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
