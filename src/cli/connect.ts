/**
 * What a target is opened as: a client for one server (a command, a URL, one entry of a config
 * file) or a hub over a config file, with the CLI's input handler, logger, transport and
 * credentials. The library validates the target before any I/O; its TypeErrors become usage
 * errors here, in the command line's terms.
 */
import { basename } from "node:path";
import {
  Client,
  type ClientOptions,
  Hub,
  type HubClientOptions,
  type HubOptions,
  type HubServerConfig,
  OptionError,
} from "../index.js";
import { bearerAuth, storedLoginAuth } from "./auth.js";
import type { Clock } from "./clock.js";
import { internalError, libraryMessage, type Output, PROGRAM, usageError } from "./common.js";
import type { governanceOption } from "./governance.js";
import { type AskingHooks, cliHandler, type Terminal } from "./input.js";
import { type Invocation, type Target, UsageError } from "./invocation.js";

/**
 * What of a command line says how to open its target. serve and inspect, with a grammar of
 * their own, give the target part only: no roots, no --input-timeout.
 */
export type TargetLine = Pick<Invocation, "target" | "protocol" | "json"> &
  Partial<Pick<Invocation, "roots" | "inputTimeout">>;

/** What every client and hub the CLI makes shares. */
export interface Opening<L extends TargetLine = TargetLine> {
  inv: L;
  out: Output;
  /** `--timeout` for each request; null keeps the library's (serve and inspect run long). */
  clock: Pick<Clock, "timeout"> | null;
  terminal: Terminal | null;
  /** Options the runner adds to a client's or a hub's: governance. */
  extra: ReturnType<typeof governanceOption>;
  /** Where the tokens `login` stored are looked up. */
  env: Readonly<Record<string, string | undefined>>;
}

/** Options a command sets over the ones makeHub gives: its own input handler, reconnects. */
export interface HubOverrides {
  hub?: Partial<HubOptions>;
  client?: HubClientOptions;
}

/** The request timeout and the input timeout, when the command line has them. */
function timeouts(o: Opening): Partial<ClientOptions> {
  return {
    ...(o.clock ? { requestTimeout: o.clock.timeout } : {}),
    // A person answering a form or a link has --input-timeout, not a server's --timeout.
    ...(o.inv.inputTimeout !== undefined ? { handlerTimeout: { elicitation: o.inv.inputTimeout } } : {}),
  };
}

/** stdout carries the answer (one JSON document with --json); warnings belong on stderr. */
function logger(out: Output) {
  return {
    warn: (message: string) => out.stderr(`${PROGRAM}: warning: ${message}\n`),
    error: (message: string) => out.stderr(`${PROGRAM}: error: ${message}\n`),
  };
}

/**
 * The client for one server; `options` adds or overrides options (reconnects). Returns an exit
 * status instead when the library refuses the target (a usage error, already reported).
 */
export function makeClient(
  o: Opening,
  options: Partial<ClientOptions>,
  asking?: AskingHooks,
): Client | number {
  const { inv, out } = o;
  try {
    return new Client({
      name: PROGRAM,
      serverId: serverLabel(inv.target),
      transport: targetTransport(inv.target, o.env),
      protocol: inv.protocol,
      ...timeouts(o),
      // Forms and links are asked on the terminal (declined without one); --root gives roots.
      handler: cliHandler({
        roots: inv.roots ?? [],
        terminal: o.terminal,
        note: (text) => out.stderr(`${PROGRAM}: ${text}\n`),
        ...(asking ? { asking } : {}),
      }),
      logger: logger(out),
      ...o.extra,
      ...options,
    });
  } catch (err) {
    // The library validates the target before any I/O: the server command line (whitespace in
    // the name), the URL, the headers and the token.
    if (err instanceof TypeError) return usageError(targetError(inv.target, err), out, inv.json);
    return internalError(err, out, inv.json);
  }
}

/**
 * The hub over a config file's servers (`own` over the options given here); an exit status
 * instead when the library refuses them.
 */
export function makeHub(
  o: Opening,
  servers: Record<string, HubServerConfig>,
  own: HubOverrides = {},
): Hub | number {
  const { inv, out } = o;
  try {
    return new Hub({
      name: PROGRAM,
      servers,
      ...o.extra,
      logger: logger(out),
      ...(o.clock ? { listTimeout: o.clock.timeout } : {}),
      ...own.hub,
      clientOptions: {
        protocol: inv.protocol,
        ...timeouts(o),
        logger: logger(out),
        handler: cliHandler({
          roots: inv.roots ?? [],
          terminal: o.terminal,
          note: (text) => out.stderr(`${PROGRAM}: ${text}\n`),
        }),
        ...own.client,
      },
    });
  } catch (err) {
    if (err instanceof TypeError) {
      return usageError(new UsageError("bad_config", libraryMessage(err)), out, inv.json);
    }
    return internalError(err, out, inv.json);
  }
}

/** The transport of one server's target (inspect puts it behind a hub). */
export function targetTransport(
  target: Target,
  env: Readonly<Record<string, string | undefined>>,
): ClientOptions["transport"] {
  if (target.kind === "config") {
    if (!target.transport) throw new Error("the --config entry was not read");
    return target.transport;
  }
  if (target.kind === "stdio") return { type: "stdio", command: target.command, args: target.args };
  // Tokens `conduit-mcp login` stored for this server are used unless --bearer-env was given.
  const auth = target.bearer ? bearerAuth(target.bearer.token) : storedLoginAuth(target.url, env);
  return {
    type: "http",
    url: target.url,
    ...(target.headers.length > 0 ? { headers: target.headers } : {}),
    ...(auth ? { auth } : {}),
  };
}

/**
 * The library's TypeError about the target, in the command line's terms. Its messages name the
 * option (`transport.headers.authorization`) and what it must be, never a value.
 */
function targetError(target: Target, err: TypeError): UsageError {
  const detail = libraryMessage(err);
  if (target.kind === "config") return new UsageError("bad_config", `server ${target.server}: ${detail}`);
  if (target.kind === "stdio") return new UsageError("bad_server", `bad server command line: ${detail}`);
  const m =
    err instanceof OptionError ? /^transport\.(url|headers|auth)(?:\.(.*))?$/s.exec(err.option) : null;
  if (!(err instanceof OptionError) || !m || err.problem === "unknown") {
    return new UsageError("bad_url", `the HTTP options were refused: ${detail}`);
  }
  const [, option, rest] = m as unknown as [string, string, string | undefined];
  const expected = err.expected;
  if (option === "url") return new UsageError("bad_url", `--url must be ${expected}`);
  if (option === "headers") {
    if (rest === undefined) return new UsageError("bad_header", `--header: each must be ${expected}`);
    const name = JSON.stringify(rest);
    if (err.problem === "reserved") {
      const hint = rest.toLowerCase() === "authorization" ? "; for a bearer token use --bearer-env" : "";
      const list = /\(.*\)/.exec(expected)?.[0] ?? "";
      return new UsageError("bad_header", `--header ${name} is one the transport sets itself ${list}${hint}`);
    }
    return new UsageError("bad_header", `--header ${name} must be ${expected}`);
  }
  const variable = target.bearer?.variable ?? "?";
  if (err.problem === "insecure") {
    return new UsageError(
      "insecure_url",
      `a bearer token is never sent over plain http:// to a host that is not loopback; use https:// (or drop --bearer-env)`,
    );
  }
  return new UsageError("bad_token", `the token in ${variable} must be ${expected}`);
}

/**
 * How warnings name the server: `node server.mjs`, not the whole command line (it may hold
 * tokens); over HTTP the URL's host, not its path or query (which may hold them too).
 */
function serverLabel(target: Target): string {
  if (target.kind === "config") return target.server ?? "hub";
  if (target.kind === "http") {
    try {
      return new URL(target.url).host || "http";
    } catch {
      return "http";
    }
  }
  const [first] = target.args;
  const parts = [basename(target.command)];
  if (first !== undefined && !first.startsWith("-")) parts.push(basename(first));
  return parts.join(" ");
}
