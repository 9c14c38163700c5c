/** The command line read into an `Invocation`: ours before `--`, the server command after it. */
import { isAbsolute, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type LogLevel, PROTOCOL_CHOICES, type ProtocolChoice, Secret } from "../index.js";
import { withinDepth } from "../shared/depth.js";
import { configTarget, HUB_OPTIONS } from "./hub-args.js";
import {
  type Command,
  type CommandName,
  DEFAULT_HEALTH_CHECK,
  DEFAULT_INPUT_TIMEOUT,
  DEFAULT_MAX_TIME,
  DEFAULT_TIMEOUT,
  type GovernanceArgs,
  LOG_LEVEL_CHOICES,
  type ParsedArgs,
  type Target,
  UsageError,
} from "./invocation.js";
import { USAGE } from "./usage.js";

const PROGRAM = "conduit-mcp";

/** Positional arguments after the command name: [required, optional]. */
const COMMANDS: Record<CommandName, { required: string[]; optional: string[] }> = {
  info: { required: [], optional: [] },
  tools: { required: [], optional: [] },
  search: { required: ["query"], optional: [] },
  call: { required: ["tool"], optional: ["json-arguments"] },
  resources: { required: [], optional: [] },
  read: { required: ["uri"], optional: [] },
  prompts: { required: [], optional: [] },
  prompt: { required: ["name"], optional: ["json-arguments"] },
  watch: { required: [], optional: [] },
};

const OPTIONS = {
  protocol: { type: "string" },
  timeout: { type: "string" },
  "max-time": { type: "string" },
  "input-timeout": { type: "string" },
  progress: { type: "boolean" },
  json: { type: "boolean" },
  root: { type: "string", multiple: true },
  url: { type: "string" },
  header: { type: "string", multiple: true },
  "bearer-env": { type: "string" },
  "log-level": { type: "string" },
  subscribe: { type: "string", multiple: true },
  "health-check": { type: "string" },
  ...HUB_OPTIONS,
  policy: { type: "string" },
  approve: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

/** The arguments before the first `--` (ours) and after it (the server command line). */
function splitAtTerminator(argv: readonly string[]): { own: string[]; server: string[] | null } {
  const at = argv.indexOf("--");
  if (at === -1) return { own: [...argv], server: null };
  return { own: argv.slice(0, at), server: argv.slice(at + 1) };
}

/** Whether the line runs `watch` (false when it does not parse). */
export function isWatch(argv: readonly string[]): boolean {
  try {
    const parsed = parseCommandLine(argv);
    return parsed.kind === "run" && parsed.invocation.command.name === "watch";
  } catch {
    return false;
  }
}

/** Whether `--json` was asked for, even when the rest of the line does not parse. */
export function wantsJson(argv: readonly string[]): boolean {
  return splitAtTerminator(argv).own.includes("--json");
}

/** The options that say where the server is. */
export type TargetValues = Pick<OptionValues, "url" | "header" | "bearer-env" | "config" | "server">;

type OptionValues = {
  protocol?: string;
  timeout?: string;
  "max-time"?: string;
  "input-timeout"?: string;
  progress?: boolean;
  json?: boolean;
  root?: string[];
  url?: string;
  header?: string[];
  "bearer-env"?: string;
  "log-level"?: string;
  subscribe?: string[];
  "health-check"?: string;
  config?: string;
  server?: string;
  policy?: string;
  approve?: boolean;
};

/**
 * Parses `argv` (without `node` and the script). Throws `UsageError`. `env` is where
 * `--bearer-env` looks its variable up.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedArgs {
  const { own, server } = splitAtTerminator(argv);
  // Help and version win over any other mistake on the line, as users expect.
  if (own.includes("--help") || own.includes("-h")) return { kind: "help" };
  if (own.includes("--version")) return { kind: "version", json: own.includes("--json") };

  let values: OptionValues;
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
    if (own.length === 0 && server === null) throw new UsageError("missing_command", USAGE, true);
    throw new UsageError("missing_command", "no command given");
  }
  if (!Object.hasOwn(COMMANDS, name))
    throw new UsageError("unknown_command", `unknown command ${quote(name)}`);
  const commandName = name as CommandName;
  const { required, optional } = COMMANDS[commandName];
  if (rest.length < required.length) {
    throw new UsageError("missing_argument", `${commandName} needs <${required[rest.length]}>`);
  }
  if (rest.length > required.length + optional.length) {
    const extra = rest[required.length + optional.length]!;
    // The usual cause: the server command without the `--` that starts it.
    const hint =
      server === null && values.url === undefined
        ? `; the server command goes after \`--\`, as in: ${PROGRAM} ${commandName} -- ${rest.slice(required.length + optional.length).join(" ")}`
        : "";
    throw new UsageError("extra_argument", `unexpected argument ${quote(extra)}${hint}`);
  }

  const protocol = protocolOf(values.protocol);

  const timeout = milliseconds(values.timeout, "timeout", DEFAULT_TIMEOUT);
  const maxTime = milliseconds(values["max-time"], "max-time", DEFAULT_MAX_TIME);
  const inputTimeout = milliseconds(values["input-timeout"], "input-timeout", DEFAULT_INPUT_TIMEOUT);

  if (commandName !== "watch") {
    for (const option of ["log-level", "subscribe", "health-check"] as const) {
      if (values[option] !== undefined) {
        throw new UsageError("bad_option", `--${option} is an option of watch only`);
      }
    }
  }

  return {
    kind: "run",
    invocation: {
      command: toCommand(commandName, rest, values),
      target: toTarget(server, values, env),
      protocol,
      timeout,
      maxTime,
      inputTimeout,
      progress: values.progress === true,
      json: values.json === true,
      roots: values.root ?? [],
      governance: governanceArgs(commandName, values),
    },
  };
}

/** `--protocol`, `auto` when not given. */
export function protocolOf(text: string | undefined): ProtocolChoice {
  const protocol = text ?? "auto";
  if (!(PROTOCOL_CHOICES as readonly string[]).includes(protocol)) {
    throw new UsageError(
      "bad_option",
      `--protocol must be one of ${PROTOCOL_CHOICES.join(", ")} (got ${quote(protocol)})`,
    );
  }
  return protocol as ProtocolChoice;
}

/** Reads `--policy` / `--approve` from the parsed options; only `call` takes them. */
function governanceArgs(
  command: string,
  values: { policy?: string; approve?: boolean },
): GovernanceArgs | null {
  if (values.policy === undefined && values.approve === undefined) return null;
  if (command !== "call")
    throw new UsageError("bad_option", "--policy and --approve are options of call only");
  if (values.policy !== undefined && values.policy.length === 0) {
    throw new UsageError("bad_option", "--policy needs a file name");
  }
  return { policyFile: values.policy ?? null, approve: values.approve === true };
}

function toCommand(name: CommandName, rest: string[], values: OptionValues): Command {
  switch (name) {
    case "call":
      return { name, tool: rest[0]!, arguments: parseJsonObject(rest[1]) };
    case "prompt":
      return { name, prompt: rest[0]!, arguments: parseJsonObject(rest[1]) };
    case "read":
      return { name, uri: rest[0]! };
    case "search":
      return { name, query: rest[0]! };
    case "watch": {
      const level = values["log-level"];
      if (level !== undefined && !(LOG_LEVEL_CHOICES as readonly string[]).includes(level)) {
        throw new UsageError(
          "bad_option",
          `--log-level must be one of ${LOG_LEVEL_CHOICES.join(", ")} (got ${quote(level)})`,
        );
      }
      const subscribe = values.subscribe ?? [];
      if (subscribe.some((uri) => uri.length === 0)) {
        throw new UsageError("bad_option", "--subscribe needs a non-empty URI");
      }
      let healthCheck = DEFAULT_HEALTH_CHECK;
      if (values["health-check"] !== undefined) {
        healthCheck = wholeNumber(values["health-check"]);
        if (healthCheck < 0) {
          throw new UsageError(
            "bad_option",
            "--health-check must be a whole number of milliseconds (0: never)",
          );
        }
      }
      return {
        name,
        logLevel: (level as LogLevel | undefined) ?? null,
        subscribe: [...new Set(subscribe)],
        healthCheck,
      };
    }
    default:
      return { name };
  }
}

/** The target of a command line (serve and inspect read theirs with this too). */
export function toTarget(
  server: string[] | null,
  values: TargetValues,
  env: Readonly<Record<string, string | undefined>>,
): Target {
  const config = configTarget(server, values, (reason, message) => {
    throw new UsageError(reason, message);
  });
  if (config) return config;
  if (values.url !== undefined) {
    if (server !== null) {
      throw new UsageError(
        "conflicting_server",
        "give either --url or `--` followed by the server command, not both",
      );
    }
    return httpTarget(values.url, values, env);
  }
  for (const option of ["header", "bearer-env"] as const) {
    if (values[option] !== undefined) {
      throw new UsageError("bad_option", `--${option} needs --url (it is for servers reached over HTTP)`);
    }
  }
  if (server === null) {
    throw new UsageError(
      "missing_server",
      "missing `--` followed by the server command, or --url followed by the server's URL",
    );
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

/**
 * The HTTP target. The library checks the URL, the headers and the token when the client is
 * made (connect.ts turns its TypeErrors into usage errors); here only the command line's own forms.
 * Neither a header's value nor the token is ever put in a message: either may be a credential.
 */
function httpTarget(
  url: string,
  values: TargetValues,
  env: Readonly<Record<string, string | undefined>>,
): Target {
  if (url.length === 0) throw new UsageError("bad_url", "--url needs the server's URL");
  const headers: Array<[string, Secret]> = [];
  for (const header of values.header ?? []) {
    const colon = header.indexOf(":");
    const name = colon === -1 ? "" : header.slice(0, colon).trim();
    if (name.length === 0) {
      throw new UsageError("bad_header", "--header must be name:value, such as 'X-Tenant: acme'");
    }
    // As in HTTP itself, whitespace around the value is not part of it.
    headers.push([name, new Secret(header.slice(colon + 1).trim())]);
  }
  let bearer: { variable: string; token: Secret } | null = null;
  const variable = values["bearer-env"];
  if (variable !== undefined) {
    if (variable.length === 0) throw new UsageError("bad_option", "--bearer-env needs a variable name");
    const token = env[variable];
    if (token === undefined || token.length === 0) {
      throw new UsageError(
        "missing_token",
        `--bearer-env: the environment variable ${variable} is ${token === undefined ? "not set" : "empty"}`,
      );
    }
    bearer = { variable, token: new Secret(token) };
  }
  return { kind: "http", url, headers, bearer };
}

/** An option's positive whole number of milliseconds, or its default when not given. */
function milliseconds(text: string | undefined, option: string, fallback: number): number {
  if (text === undefined) return fallback;
  const ms = wholeNumber(text);
  // setTimeout's own ceiling (about 24.8 days): a longer delay would fire at once.
  if (ms < 1 || ms > 2_147_483_647) {
    throw new UsageError("bad_option", `--${option} must be a positive whole number of milliseconds`);
  }
  return ms;
}

/** A whole number of milliseconds, or -1 when the text is not one. */
function wholeNumber(text: string): number {
  const n = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(n) ? n : -1;
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
  // Deeper fails later in JSON.stringify (a stack overflow: "transport: send_failed", or an
  // internal error for a prompt); the client's own limit for what a server sends.
  if (!withinDepth(value, 64)) throw new UsageError("bad_json", "the arguments nest deeper than 64 levels");
  return value as Record<string, unknown>;
}

function fromParseArgsError(err: unknown): UsageError {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  // parseArgs's messages carry advice about `--` that does not fit this program; keep the first sentence.
  const first = message.split(/\.\s/)[0] ?? message;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    // Node's "Unknown option '--bogus'", in this program's own words.
    const option = /'([^']*)'/.exec(first)?.[1];
    return new UsageError("unknown_option", option ? `unknown option ${quote(option)}` : first.toLowerCase());
  }
  // Such as "Option '--timeout <value>' argument missing".
  const option = /'(--?[\w-]+)/.exec(first)?.[1];
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option && /argument missing/.test(first)) {
    return new UsageError("bad_option", `${option} needs a value`);
  }
  return new UsageError("bad_option", first);
}

function quote(text: string): string {
  return JSON.stringify(text);
}
