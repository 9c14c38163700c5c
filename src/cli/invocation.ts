/** What a command line asks for, once parsed: the target, the command, the options and the defaults. */
import type { HubServerConfig, LogLevel, ProtocolChoice, Secret } from "../index.js";
import { LOG_LEVELS } from "../index.js";

/** Where the server is: a command started over stdio (`-- cmd`), or a URL (`--url`). */
export type Target =
  | { kind: "stdio"; command: string; args: string[] }
  | {
      kind: "http";
      url: string;
      /** `--header name:value` (repeatable), in order; values kept as secrets (they may be keys). */
      headers: Array<[string, Secret]>;
      /** `--bearer-env VAR`: the variable's name (for messages) and its value. */
      bearer: { variable: string; token: Secret } | null;
    }
  | {
      /** `--config FILE` (`-c`): an mcpServers file; see hub-args.ts. */
      kind: "config";
      file: string;
      /** `--server NAME`: one entry, for the single-server commands; null for the whole file. */
      server: string | null;
      /** The chosen entry's transport, filled in once the file is read (target.ts). */
      transport?: HubServerConfig["transport"];
    };

export type Command =
  | { name: "info" }
  | { name: "tools" }
  | { name: "search"; query: string }
  | { name: "call"; tool: string; arguments: Record<string, unknown> }
  | { name: "resources" }
  | { name: "read"; uri: string }
  | { name: "prompts" }
  | { name: "prompt"; prompt: string; arguments: Record<string, unknown> }
  | {
      name: "watch";
      /** `--log-level`; null when not given (then `info`, and only if the server does logging). */
      logLevel: LogLevel | null;
      /** `--subscribe <uri>` (repeatable). */
      subscribe: string[];
      /** `--health-check <ms>`: the client's `healthCheckInterval`; 0 for none. */
      healthCheck: number;
    };

export type CommandName = Command["name"];

/** What the command line said about governance (`call --policy FILE`, `--approve`). */
export interface GovernanceArgs {
  /** `--policy FILE`, as given. */
  policyFile: string | null;
  /** `--approve`: ask on the terminal. */
  approve: boolean;
}

export interface Invocation {
  command: Command;
  target: Target;
  protocol: ProtocolChoice;
  /**
   * Milliseconds for the handshake and each request; renewed by the server's progress, never
   * running while the user is being asked for input.
   */
  timeout: number;
  /** `--max-time <ms>`: the ceiling of a request whose deadline progress keeps renewing. */
  maxTime: number;
  /** `--input-timeout <ms>`: how long a person may take to answer one form or link. */
  inputTimeout: number;
  /** `--progress`: show progress even when stderr is not a terminal. */
  progress: boolean;
  json: boolean;
  /** `--root <dir>` (repeatable): the roots offered to the server, as given. */
  roots: string[];
  /** `call --policy FILE` / `--approve`, or null (see governance.ts). */
  governance: GovernanceArgs | null;
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
    /** The message is the usage text itself (a bare `conduit-mcp`): print it as it is. */
    readonly isUsage = false,
  ) {
    super(message);
  }
}

export const DEFAULT_TIMEOUT = 30_000;
/** As the library's `maxTotalTimeout`: five minutes for a call the server keeps reporting on. */
export const DEFAULT_MAX_TIME = 300_000;
/** A person filling in a form: ten minutes. */
export const DEFAULT_INPUT_TIMEOUT = 600_000;

/** The RFC 5424 levels, least severe first (the values `--log-level` takes). */
export const LOG_LEVEL_CHOICES: readonly LogLevel[] = LOG_LEVELS;
export const DEFAULT_LOG_LEVEL: LogLevel = "info";
/** How often watch checks the server by default (ms): a server that restarted is noticed. */
export const DEFAULT_HEALTH_CHECK = 10_000;
