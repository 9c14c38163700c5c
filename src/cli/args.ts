import { isAbsolute, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LEGACY_VERSIONS, MODERN_VERSIONS, type ProtocolChoice } from "../index.js";

/** Where the server is. Only stdio for now; an HTTP `--url` becomes a second member. */
export type Target = { kind: "stdio"; command: string; args: string[] };

export type Command =
  | { name: "info" }
  | { name: "tools" }
  | { name: "call"; tool: string; arguments: Record<string, unknown> }
  | { name: "resources" }
  | { name: "read"; uri: string }
  | { name: "prompts" }
  | { name: "prompt"; prompt: string; arguments: Record<string, unknown> };

export type CommandName = Command["name"];

export interface Invocation {
  command: Command;
  target: Target;
  protocol: ProtocolChoice;
  /** Milliseconds for the whole command: handshake and requests. */
  timeout: number;
  json: boolean;
  /** `--root <dir>` (repeatable): the roots offered to the server, as given. */
  roots: string[];
}

export type ParsedArgs =
  | { kind: "run"; invocation: Invocation }
  | { kind: "help" }
  | { kind: "version"; json: boolean };

/** A mistake in the command line: exit status 2. `reason` is a stable code for `--json`. */
export class UsageError extends Error {
  override readonly name = "UsageError";
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

export const DEFAULT_TIMEOUT = 30_000;

export const PROTOCOL_CHOICES: readonly ProtocolChoice[] = [
  "auto",
  "modern",
  "legacy",
  ...MODERN_VERSIONS,
  ...LEGACY_VERSIONS,
];

/** Positional arguments after the command name: [required, optional]. */
const COMMANDS: Record<CommandName, { required: string[]; optional: string[] }> = {
  info: { required: [], optional: [] },
  tools: { required: [], optional: [] },
  call: { required: ["tool"], optional: ["json-arguments"] },
  resources: { required: [], optional: [] },
  read: { required: ["uri"], optional: [] },
  prompts: { required: [], optional: [] },
  prompt: { required: ["name"], optional: ["json-arguments"] },
};

const OPTIONS = {
  protocol: { type: "string" },
  timeout: { type: "string" },
  json: { type: "boolean" },
  root: { type: "string", multiple: true },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

export const USAGE = `Usage: conduit-mcp <command> [options] -- <server command> [args...]

Talks to one MCP server started over stdio and prints what it answers.

Commands:
  info                      era, protocol version, server info and capabilities
  tools                     the server's tools
  call <tool> [json]        call a tool; json is an object of arguments (default {})
  resources                 the server's resources and resource templates
  read <uri>                read a resource
  prompts                   the server's prompts
  prompt <name> [json]      get a prompt; json is an object of arguments (default {})

Options:
  --protocol <choice>       auto (default), modern, legacy, ${[...MODERN_VERSIONS, ...LEGACY_VERSIONS].join(", ")}
  --timeout <ms>            deadline for the whole command, handshake included (default ${DEFAULT_TIMEOUT})
  --json                    print exactly one JSON document on stdout
  --root <dir>              offer this directory to the server as a root (repeatable)
  -h, --help                print this help
  --version                 print the version

When the server asks for input and stdin is a terminal, a form is asked field by field on stderr
and a link is shown (never opened); without a terminal, every such request is declined.

Exit status: 0 success, 1 the tool reported an error (isError), 2 usage error, 3 client error.

Example:
  conduit-mcp call add '{"a":1,"b":2}' -- node examples/server.mjs
`;

/** The arguments before the first `--` (ours) and after it (the server command line). */
function splitAtTerminator(argv: readonly string[]): { own: string[]; server: string[] | null } {
  const at = argv.indexOf("--");
  if (at === -1) return { own: [...argv], server: null };
  return { own: argv.slice(0, at), server: argv.slice(at + 1) };
}

/** Whether `--json` was asked for, even when the rest of the line does not parse. */
export function wantsJson(argv: readonly string[]): boolean {
  return splitAtTerminator(argv).own.includes("--json");
}

/** Parses `argv` (without `node` and the script). Throws `UsageError`. */
export function parseCommandLine(argv: readonly string[]): ParsedArgs {
  const { own, server } = splitAtTerminator(argv);
  // Help and version win over any other mistake on the line, as users expect.
  if (own.includes("--help") || own.includes("-h")) return { kind: "help" };
  if (own.includes("--version")) return { kind: "version", json: own.includes("--json") };

  let values: { protocol?: string; timeout?: string; json?: boolean; root?: string[] };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: own,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    }));
  } catch (err) {
    throw fromParseArgsError(err);
  }

  const [name, ...rest] = positionals;
  if (name === undefined) {
    // A bare `conduit-mcp` gets the whole usage, not just a complaint.
    throw new UsageError(
      "missing_command",
      own.length === 0 && server === null ? USAGE.trimEnd() : "no command given",
    );
  }
  if (!Object.hasOwn(COMMANDS, name))
    throw new UsageError("unknown_command", `unknown command ${quote(name)}`);
  const commandName = name as CommandName;
  const { required, optional } = COMMANDS[commandName];
  if (rest.length < required.length) {
    throw new UsageError("missing_argument", `${commandName} needs <${required[rest.length]}>`);
  }
  if (rest.length > required.length + optional.length) {
    throw new UsageError(
      "extra_argument",
      `unexpected argument ${quote(rest[required.length + optional.length]!)}`,
    );
  }

  const protocol = values.protocol ?? "auto";
  if (!(PROTOCOL_CHOICES as readonly string[]).includes(protocol)) {
    throw new UsageError(
      "bad_option",
      `--protocol must be one of ${PROTOCOL_CHOICES.join(", ")} (got ${quote(protocol)})`,
    );
  }

  let timeout = DEFAULT_TIMEOUT;
  if (values.timeout !== undefined) {
    timeout = Number(values.timeout);
    if (!/^\d+$/.test(values.timeout) || !Number.isSafeInteger(timeout) || timeout < 1) {
      throw new UsageError("bad_option", `--timeout must be a positive whole number of milliseconds`);
    }
  }

  return {
    kind: "run",
    invocation: {
      command: toCommand(commandName, rest),
      target: toTarget(server),
      protocol: protocol as ProtocolChoice,
      timeout,
      json: values.json === true,
      roots: values.root ?? [],
    },
  };
}

function toCommand(name: CommandName, rest: string[]): Command {
  switch (name) {
    case "call":
      return { name, tool: rest[0]!, arguments: parseJsonObject(rest[1]) };
    case "prompt":
      return { name, prompt: rest[0]!, arguments: parseJsonObject(rest[1]) };
    case "read":
      return { name, uri: rest[0]! };
    default:
      return { name };
  }
}

function toTarget(server: string[] | null): Target {
  if (server === null) {
    throw new UsageError("missing_server", "missing `--` followed by the server command");
  }
  const [command, ...args] = server;
  if (command === undefined || command.length === 0) {
    throw new UsageError("missing_server", "no server command after `--`");
  }
  // The library takes a name looked up in PATH or an absolute path; on a command line people
  // write ./server too, so a relative path is resolved against the working directory here.
  const resolved = command.includes("/") && !isAbsolute(command) ? resolve(command) : command;
  return { kind: "stdio", command: resolved, args };
}

function parseJsonObject(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    throw new UsageError("bad_json", `the arguments are not valid JSON: ${detail}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError("bad_json", "the arguments must be a JSON object, such as '{\"a\":1}'");
  }
  return value as Record<string, unknown>;
}

function fromParseArgsError(err: unknown): UsageError {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  // parseArgs's messages carry advice about `--` that does not fit this program; keep the first sentence.
  const first = message.split(/\.\s/)[0] ?? message;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") return new UsageError("unknown_option", first);
  return new UsageError("bad_option", first);
}

function quote(text: string): string {
  return JSON.stringify(text);
}
