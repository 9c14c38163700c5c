/**
 * Starting a stdio server's process: the environment it gets (a short list inherited, the
 * operator's `env` as given), its executable looked up on PATH (never through a shell), its
 * working directory checked, its stderr (read through a pipe, or appended to a file), and the
 * spawn, resolved once the process exists. What it then says, and its end, are stdio.ts's.
 */
import type { ChildProcess } from "node:child_process";
import { access, stat } from "node:fs/promises";
import { delimiter, isAbsolute, join } from "node:path";
import { McpClientError } from "../shared/errors.js";
import { revealIfSecret } from "../shared/secret.js";
import { INHERITED_ENV, type ResolvedStdioOptions } from "./stdio-options.js";

// node:fs without an ESM import: Node builds that facade by reading every export, and the lazy
// stream getters among them load node:stream (milliseconds at import).
const { closeSync, constants, openSync } = process.getBuiltinModule("node:fs");

/** Spawns the server `o` describes; rejects with a `transport` error naming what was wrong. */
export async function spawnServer(o: ResolvedStdioOptions): Promise<ChildProcess> {
  const env = buildEnv(o);
  const file = await findExecutable(o.command, env.PATH);
  if (o.cd !== undefined) {
    const st = await stat(o.cd).catch(() => undefined);
    if (!st?.isDirectory()) throw new McpClientError("transport", "cd_not_a_directory");
  }

  let stderrFd: number | undefined;
  // Read (and passed on to this process's stderr when "inherit"), so that an exit can say what
  // the server wrote last; a file is the server's own.
  let stderr: "pipe" | number = "pipe";
  if (typeof o.stderr === "object") {
    try {
      stderrFd = openSync(o.stderr.file, "a");
    } catch {
      throw new McpClientError("transport", "stderr_file_unwritable");
    }
    stderr = stderrFd;
  }

  let child: ChildProcess;
  try {
    // node:child_process on first use, not at import: loading it costs milliseconds.
    child = process.getBuiltinModule("node:child_process").spawn(file, o.args, {
      cwd: o.cd,
      env,
      stdio: ["pipe", "pipe", stderr],
      detached: process.platform !== "win32",
      windowsHide: true,
      shell: false,
    });
  } catch (err) {
    // Arguments and environment over the system's limit are refused at once, not as an 'error'
    // event: the configuration's fault (not retried), not a failed handshake.
    const code = (err as { code?: unknown }).code;
    if (code !== "E2BIG") throw err;
    throw new McpClientError("transport", "spawn_failed", { code });
  } finally {
    if (stderrFd !== undefined) closeSync(stderrFd);
  }

  await new Promise<void>((resolve, reject) => {
    const onSpawn = () => {
      child.off("error", onError);
      resolve();
    };
    const onError = (err: NodeJS.ErrnoException) => {
      child.off("spawn", onSpawn);
      reject(new McpClientError("transport", "spawn_failed", { code: err.code }));
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
  return child;
}

/**
 * A value of the form `() { ... }` is an exported shell function (what Shellshock rode in on):
 * never passed on from this process, as the official SDK does. The operator's `env` is kept as given.
 */
function inheritable(v: string | undefined): v is string {
  return v !== undefined && !v.startsWith("()");
}

function buildEnv(o: ResolvedStdioOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (process.platform === "win32") {
    for (const [k, v] of Object.entries(process.env)) if (inheritable(v)) env[k] = v;
  } else {
    for (const name of INHERITED_ENV) {
      const v = process.env[name];
      if (inheritable(v)) env[name] = v;
    }
  }
  for (const [name, value] of o.env) env[name] = revealIfSecret(value);
  return env;
}

/** "ok", or why the file cannot be run: missing (or not a file) or without execute permission. */
async function executable(path: string): Promise<"ok" | "missing" | "not_executable"> {
  const st = await stat(path).catch(() => undefined);
  if (!st?.isFile()) return "missing";
  try {
    await access(path, constants.X_OK);
    return "ok";
  } catch {
    return "not_executable";
  }
}

async function findExecutable(command: string, pathVar: string | undefined): Promise<string> {
  let found: "missing" | "not_executable" = "missing";
  const candidates = isAbsolute(command)
    ? [command]
    : (pathVar ?? "")
        .split(delimiter)
        .filter((dir) => dir && isAbsolute(dir))
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    const verdict = await executable(candidate);
    if (verdict === "ok") return candidate;
    if (verdict === "not_executable") found = verdict;
  }
  throw new McpClientError("transport", found === "missing" ? "command_not_found" : "command_not_executable");
}
