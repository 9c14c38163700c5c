/**
 * The CLI run in this process, with a terminal made of two streams: what the user types (each
 * line of `typed`) and what the CLI shows (`shown`). `typed: null` runs it with no terminal.
 */
import { PassThrough } from "node:stream";
import { streamTerminal } from "../../src/cli/input.js";
import { runCli } from "../../src/cli/run.js";

export interface TerminalRun {
  code: number;
  stdout: string;
  stderr: string;
  shown: string;
}

export async function runCliWithTerminal(argv: string[], typed: string[] | null): Promise<TerminalRun> {
  let shown = "";
  let terminal = null;
  if (typed) {
    const input = new PassThrough();
    const screen = new PassThrough();
    screen.setEncoding("utf8").on("data", (d: string) => (shown += d));
    terminal = streamTerminal(input, screen);
    input.write(typed.map((l) => `${l}\n`).join(""));
  }
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    argv,
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    undefined,
    terminal,
  );
  terminal?.close();
  return { code, stdout, stderr, shown };
}
