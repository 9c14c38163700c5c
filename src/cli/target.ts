/**
 * A target made concrete before anything starts: one server (a command, a URL, or one entry of a
 * config file with `--server`) or a config file's servers behind a hub; and the output guarded so
 * that no secret of it (a bearer token, the file's secret values) ever reaches the terminal.
 */

import { variableSecretsOf } from "../hub/config/variable-secrets.js";
import { type HubServerConfig, loadServersConfig, Secret, sanitizeText } from "../index.js";
import { internalError, libraryMessage, type Output, PROGRAM, scrubbed, usageError } from "./common.js";
import type { TargetLine } from "./connect.js";
import { HUB_COMMANDS } from "./hub-args.js";
import { type Invocation, UsageError } from "./invocation.js";

export type Resolved<L extends TargetLine = Invocation> =
  | { kind: "one"; inv: L; out: Output }
  | { kind: "hub"; inv: L; out: Output; servers: Record<string, HubServerConfig> };

/** The target, or an exit status when the command line or the config file is refused (reported). */
export function resolveTarget(
  inv: Invocation,
  out: Output,
  env: Readonly<Record<string, string | undefined>>,
): Resolved | number {
  const resolved = resolveServers(inv, out, env);
  if (typeof resolved === "number" || resolved.kind === "one") return resolved;
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
  return resolved;
}

/**
 * One server, or a config file's servers, with the output guarded; any command's target line
 * (serve and inspect take every config file as a hub). An exit status when refused (reported).
 */
export function resolveServers<L extends TargetLine>(
  inv: L,
  out: Output,
  env: Readonly<Record<string, string | undefined>>,
): Resolved<L> | number {
  const target = inv.target;
  if (target.kind !== "config") {
    // Whatever a server echoes, the token never reaches the terminal or a log.
    const guarded =
      target.kind === "http" && target.bearer ? scrubbed(out, target.bearer.token.reveal()) : out;
    return { kind: "one", inv, out: guarded };
  }
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
    return { kind: "one", inv: { ...inv, target: { ...target, transport: entry.transport } }, out: guarded };
  }
  return { kind: "hub", inv, out: guarded, servers };
}

/**
 * Every `Secret` the file's entries hold (env values and headers built from variables, tokens,
 * what variables put into urls and args).
 */
function secretsOf(servers: Record<string, HubServerConfig>): string[] {
  const found: string[] = [];
  const add = (v: unknown) => {
    if (v instanceof Secret) found.push(v.reveal());
  };
  for (const server of Object.values(servers)) {
    for (const secret of variableSecretsOf(server)) add(secret);
    const transport = server.transport;
    const t = transport as { env?: unknown; headers?: unknown; auth?: { bearer?: unknown } };
    for (const list of [t.env, t.headers]) {
      if (Array.isArray(list)) for (const pair of list) add((pair as unknown[])[1]);
    }
    add(t.auth?.bearer);
  }
  return found;
}
