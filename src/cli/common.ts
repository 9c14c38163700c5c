// What the commands share: exit statuses, output, the client made from the command line, and
// how errors are reported.
import { basename } from "node:path";
import {
  Client,
  type ClientOptions,
  type HttpAuth,
  McpClientError,
  OptionError,
  sanitizeText,
} from "../index.js";
import { type AskingHooks, cliHandler, type Terminal } from "./input.js";
import { type Invocation, type Target, UsageError } from "./invocation.js";
import { storedLoginAuth } from "./login-store.js";
import { jsonDocument } from "./render.js";

export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  client: 3,
  interrupted: 130,
  /** A bug in this program, not a problem with the server or the command line. */
  internal: 70,
} as const;

/** Where output goes; the tests and main.ts each provide one. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (progress is drawn as a bar there). */
  readonly stderrIsTerminal?: boolean;
}

export const PROGRAM = "conduit-mcp";

/**
 * Output with every occurrence of `secret` (as is, and as it appears inside a JSON string)
 * replaced by `[secret]`: a last guard for the bearer token, which a hostile server could echo.
 * Values shorter than four characters are left alone, as the library's own redaction does:
 * scrubbing them would mangle ordinary text.
 */
export function scrubbed(out: Output, secret: string): Output {
  if (secret.length < 4) return out;
  const forms = [...new Set([secret, JSON.stringify(secret).slice(1, -1)])];
  const scrub = (text: string) => {
    let clean = text;
    for (const form of forms) if (clean.includes(form)) clean = clean.split(form).join("[secret]");
    return clean;
  };
  return {
    stdout: (text) => out.stdout(scrub(text)),
    stderr: (text) => out.stderr(scrub(text)),
    ...(out.stderrIsTerminal === undefined ? {} : { stderrIsTerminal: out.stderrIsTerminal }),
  };
}

export function usageError(err: UsageError, out: Output, json: boolean): number {
  out.stderr(err.isUsage ? err.message : `${PROGRAM}: ${err.message}\nRun '${PROGRAM} --help' for usage.\n`);
  if (json) out.stdout(jsonDocument({ error: { kind: "usage", reason: err.reason, message: err.message } }));
  return EXIT.usage;
}

export function internalError(err: unknown, out: Output, json: boolean): number {
  const message = sanitizeText(`internal error: ${err instanceof Error ? err.message : String(err)}`, {
    maxLength: 500,
  });
  out.stderr(`${PROGRAM}: ${message}\n`);
  if (json) out.stdout(jsonDocument({ error: { kind: "internal", reason: null, message } }));
  return EXIT.internal;
}

/** A library TypeError's message without its own "conduit-mcp: " prefix, which we add anyway. */
export function libraryMessage(err: TypeError): string {
  return err.message.replace(/^conduit-mcp: /, "");
}

/**
 * The client for an invocation, with the CLI's handler and logger; `extra` adds or overrides
 * options (reconnects). Returns an exit status instead when the library refuses the target (a
 * usage error, already reported).
 */
export function makeClient(
  inv: Invocation,
  out: Output,
  terminal: Terminal | null,
  extra: Partial<ClientOptions>,
  asking?: AskingHooks,
): Client | number {
  try {
    return new Client({
      name: PROGRAM,
      serverId: serverLabel(inv.target),
      transport: transportOptions(inv.target),
      protocol: inv.protocol,
      requestTimeout: inv.timeout,
      // Forms and links are asked on the terminal (declined without one); --root gives roots.
      handler: cliHandler({
        roots: inv.roots,
        terminal,
        note: (text) => out.stderr(`${PROGRAM}: ${text}\n`),
        ...(asking ? { asking } : {}),
      }),
      // A person answering a form or a link has --input-timeout, not a server's --timeout.
      handlerTimeout: { elicitation: inv.inputTimeout },
      // stdout carries the answer (one JSON document with --json); warnings belong on stderr.
      logger: {
        warn: (message) => out.stderr(`${PROGRAM}: warning: ${message}\n`),
        error: (message) => out.stderr(`${PROGRAM}: error: ${message}\n`),
      },
      ...extra,
    });
  } catch (err) {
    // The library validates the target before any I/O: the server command line (whitespace in
    // the name), the URL, the headers and the token.
    if (err instanceof TypeError) return usageError(targetError(inv.target, err), out, inv.json);
    return internalError(err, out, inv.json);
  }
}

/** Tokens `conduit-mcp login` stored for this server, if any (and no --bearer-env was given). */
function loginAuth(url: string): { auth?: HttpAuth } {
  const auth = storedLoginAuth(url);
  return auth ? { auth } : {};
}

function transportOptions(target: Target): ClientOptions["transport"] {
  if (target.kind === "config") {
    if (!target.transport) throw new Error("the --config entry was not read");
    return target.transport;
  }
  if (target.kind === "stdio") return { type: "stdio", command: target.command, args: target.args };
  return {
    type: "http",
    url: target.url,
    ...(target.headers.length > 0 ? { headers: target.headers } : {}),
    ...(target.bearer ? { auth: { bearer: target.bearer.token } } : loginAuth(target.url)),
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

/** Templates are optional for a server with resources: "method not found" means none. */
export async function listTemplates(
  client: Client,
  options: { timeout: number; signal: AbortSignal | undefined },
) {
  try {
    return await client.listAllResourceTemplates(options);
  } catch (err) {
    if (McpClientError.is(err, "protocol") && isMethodNotFound(err)) return [];
    throw err;
  }
}

export function isMethodNotFound(err: McpClientError): boolean {
  return err.detail !== undefined && "jsonrpc" in err.detail && err.detail.jsonrpc === -32601;
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
