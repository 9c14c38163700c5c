/**
 * The built CLI in a pseudo-terminal, as a person runs it: util-linux `script` gives it a
 * terminal for stdin, stdout and stderr (no native module needed). `screen` is everything the
 * terminal showed; `type` is what the person types.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { CLI, root } from "./cli.js";

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

export class Pty {
  readonly child: ChildProcess;
  screen = "";
  readonly exited: Promise<number | null>;
  #waiters = new Set<() => void>();

  /** `redirect` is appended to the command line (say `> out.json`: stdout not a terminal). */
  constructor(args: readonly string[], redirect = "") {
    const command = [process.execPath, CLI, ...args].map(quote).join(" ");
    // -q: no banner; -e: its exit status is the CLI's; -f: output as it comes.
    this.child = spawn("script", ["-qefc", `${command}${redirect ? ` ${redirect}` : ""}`, "/dev/null"], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, TERM: "xterm", COLUMNS: "100" },
    });
    this.child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      this.screen += d;
      for (const w of this.#waiters) w();
    });
    this.exited = new Promise((resolve) => this.child.once("close", (code) => resolve(code)));
  }

  /** Resolves once the screen shows `text` (after `from`, a position in `screen`). */
  shows(text: string, from = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const at = this.screen.indexOf(text, from);
        if (at === -1) return;
        this.#waiters.delete(check);
        resolve(at + text.length);
      };
      this.#waiters.add(check);
      this.exited.then(() => {
        check();
        if (this.#waiters.delete(check)) reject(new Error(`ended without showing ${JSON.stringify(text)}`));
      });
      check();
    });
  }

  type(text: string): void {
    this.child.stdin!.write(text);
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}
