/** Running the built CLI as users run it (`node dist/cli/main.js ...`) and reading its output. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";

export const root = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = `${root}dist/cli/main.js`;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI to its end; `interruptAfterMs` sends SIGINT that much later, `interruptOn` once
 * stderr shows that text (an order, not a guess at how long the start takes).
 */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; interruptAfterMs?: number; interruptOn?: string } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
    });
    if (options.interruptAfterMs !== undefined)
      setTimeout(() => child.kill("SIGINT"), options.interruptAfterMs);
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      const before = stderr;
      stderr += d;
      const on = options.interruptOn;
      if (on !== undefined && !before.includes(on) && stderr.includes(on)) child.kill("SIGINT");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** stdout must be exactly one JSON document. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read arbitrary JSON documents.
export function parseJson(run: Run): any {
  expect(run.stdout.endsWith("\n")).toBe(true);
  expect(run.stdout.trimEnd().split("\n")).toHaveLength(1);
  return JSON.parse(run.stdout);
}
