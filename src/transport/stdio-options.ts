import { isAbsolute } from "node:path";
import { type MaybeSecret, Secret } from "../shared/secret.js";
import {
  checkKeys,
  checkObject,
  fail,
  isPlainObject,
  optBoolean,
  optInt,
  optString,
} from "../util/option-check.js";

/** A stdio server as plain data: the `transport` option `{ type: "stdio", ... }`. */
export interface StdioTransportOptions {
  type: "stdio";
  /** An executable name looked up in `PATH`, or an absolute path. No whitespace, never a shell. */
  command: string;
  /** Passed as they are; no shell sees them. Default `[]`. */
  args?: readonly string[];
  /**
   * Extra environment for the server; values may be `Secret`s. The server inherits only
   * `HOME LOGNAME PATH SHELL TERM USER` from this process; `env` wins over those.
   */
  env?: Readonly<Record<string, MaybeSecret>> | ReadonlyArray<readonly [string, MaybeSecret]>;
  /** The server's working directory: an absolute path to an existing directory. Default: ours. */
  cd?: string;
  /** `"inherit"` (default), `"discard"`, or `{ file }` (an absolute path, appended to). */
  stderr?: "inherit" | "discard" | { file: string };
  /** Allow a `.bat`/`.cmd` executable (Windows). Default false. */
  allowBatchFiles?: boolean;
  /** The longest stdout line accepted, in bytes. Default 8 MiB. */
  maxMessageBytes?: number;
  /** Consecutive non-JSON-RPC stdout lines tolerated. Default 10. */
  maxJunkLines?: number;
  /** Milliseconds the server gets to exit after stdin closes, before SIGTERM. Default 2 000. */
  stdinGrace?: number;
  /** Milliseconds after SIGTERM before SIGKILL. Default 2 000. */
  termGrace?: number;
  /**
   * Bytes (UTF-8) written to the server's stdin and not yet taken by it. A message that would
   * pass this fails with `overloaded` (a server that stops reading cannot make the client buffer
   * without bound). Default 16 MiB.
   */
  maxWriteQueueBytes?: number;
}

export interface ResolvedStdioOptions {
  command: string;
  args: string[];
  env: Array<[string, MaybeSecret]>;
  cd: string | undefined;
  stderr: "inherit" | "discard" | { file: string };
  allowBatchFiles: boolean;
  maxMessageBytes: number;
  maxJunkLines: number;
  stdinGrace: number;
  termGrace: number;
  maxWriteQueueBytes: number;
}

export const STDIO_DEFAULTS = {
  maxMessageBytes: 8 * 1024 * 1024,
  maxJunkLines: 10,
  stdinGrace: 2000,
  termGrace: 2000,
  maxWriteQueueBytes: 16 * 1024 * 1024,
} as const;

/** What the server inherits from this process's environment (POSIX). */
export const INHERITED_ENV = ["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"] as const;

const KEYS = [
  "type",
  "command",
  "args",
  "env",
  "cd",
  "stderr",
  "allowBatchFiles",
  "maxMessageBytes",
  "maxJunkLines",
  "stdinGrace",
  "termGrace",
  "maxWriteQueueBytes",
] as const;

const ENV_NAME = /^[^=\0]+$/;
const BATCH_UNSAFE = /["%^&|<>]/;

export function isBatchFile(path: string): boolean {
  return /\.(bat|cmd)$/i.test(path);
}

/** Validates the stdio options without touching the file system. */
/**
 * Options this module resolved: a transport made from one takes it as it is (the client's
 * factory makes a transport per attempt from one resolved value: no copy per client, issue 26).
 */
export const RESOLVED_STDIO = new WeakSet<object>();

export function resolveStdioOptions(input: unknown, path = "transport"): ResolvedStdioOptions {
  const o = checkObject(input, path);
  checkKeys(o, KEYS, path);
  if (o.type !== "stdio") fail(`${path}.type`, '"stdio"');

  const command = optString(o.command, `${path}.command`);
  if (command === undefined || command.length === 0) fail(`${path}.command`, "a non-empty string");
  if (/\s/.test(command)) fail(`${path}.command`, "an executable without whitespace (put arguments in args)");
  if (command.includes("\0")) fail(`${path}.command`, "free of NUL characters");
  if (!isAbsolute(command) && command.includes("/")) {
    fail(`${path}.command`, "an executable name looked up in PATH, or an absolute path");
  }

  const args: string[] = [];
  if (o.args !== undefined) {
    if (!Array.isArray(o.args)) fail(`${path}.args`, "an array of strings");
    o.args.forEach((a, i) => {
      if (typeof a !== "string" || a.includes("\0")) fail(`${path}.args[${i}]`, "a string without NUL");
      args.push(a);
    });
  }

  const env: Array<[string, MaybeSecret]> = [];
  if (o.env !== undefined) {
    const pairs: unknown[] = Array.isArray(o.env)
      ? o.env
      : isPlainObject(o.env)
        ? Object.entries(o.env)
        : fail(`${path}.env`, "an object or a list of [name, value] pairs");
    for (const pair of pairs) {
      if (!Array.isArray(pair) || pair.length !== 2) fail(`${path}.env`, "a list of [name, value] pairs");
      const [name, value] = pair as [unknown, unknown];
      if (typeof name !== "string" || !ENV_NAME.test(name)) fail(`${path}.env`, "keyed by variable names");
      if (typeof value !== "string" && !(value instanceof Secret)) {
        fail(`${path}.env.${name}`, "a string or a Secret");
      }
      if (typeof value === "string" && value.includes("\0")) fail(`${path}.env.${name}`, "free of NUL");
      env.push([name, value]);
    }
  }

  const cd = optString(o.cd, `${path}.cd`);
  if (cd !== undefined && !isAbsolute(cd)) fail(`${path}.cd`, "an absolute path");

  let stderr: ResolvedStdioOptions["stderr"] = "inherit";
  if (o.stderr !== undefined) {
    if (o.stderr === "inherit" || o.stderr === "discard") stderr = o.stderr;
    else if (isPlainObject(o.stderr)) {
      checkKeys(o.stderr, ["file"], `${path}.stderr`);
      const file = optString(o.stderr.file, `${path}.stderr.file`);
      if (file === undefined || !isAbsolute(file)) fail(`${path}.stderr.file`, "an absolute path");
      stderr = { file };
    } else fail(`${path}.stderr`, '"inherit", "discard" or { file }');
  }

  const allowBatchFiles = optBoolean(o.allowBatchFiles, `${path}.allowBatchFiles`) ?? false;
  if (isBatchFile(command)) {
    if (!allowBatchFiles) fail(`${path}.command`, "not a .bat/.cmd file unless allowBatchFiles is true");
    args.forEach((a, i) => {
      if (BATCH_UNSAFE.test(a)) fail(`${path}.args[${i}]`, 'free of "%^&|<> for a batch file');
    });
  }

  const resolved: ResolvedStdioOptions = {
    command,
    args,
    env,
    cd,
    stderr,
    allowBatchFiles,
    maxMessageBytes:
      optInt(o.maxMessageBytes, `${path}.maxMessageBytes`, 1) ?? STDIO_DEFAULTS.maxMessageBytes,
    maxJunkLines: optInt(o.maxJunkLines, `${path}.maxJunkLines`) ?? STDIO_DEFAULTS.maxJunkLines,
    stdinGrace: optInt(o.stdinGrace, `${path}.stdinGrace`) ?? STDIO_DEFAULTS.stdinGrace,
    termGrace: optInt(o.termGrace, `${path}.termGrace`) ?? STDIO_DEFAULTS.termGrace,
    maxWriteQueueBytes:
      optInt(o.maxWriteQueueBytes, `${path}.maxWriteQueueBytes`, 1) ?? STDIO_DEFAULTS.maxWriteQueueBytes,
  };
  RESOLVED_STDIO.add(resolved);
  return resolved;
}
