/**
 * One command line run to completion: login and logout (their own small grammar), help and
 * version, or a command against its target (runner.ts).
 */
import { VERSION } from "../index.js";
import { parseCommandLine, wantsJson } from "./args.js";
import { runLogin, runLogout } from "./commands/login.js";
import { EXIT, internalError, type Output, PROGRAM, usageError } from "./common.js";
import type { Terminal } from "./input.js";
import { UsageError } from "./invocation.js";
import { jsonDocument } from "./render.js";
import { runTarget } from "./runner.js";
import { USAGE } from "./usage.js";

export { EXIT, type Output } from "./common.js";

/**
 * Runs one command line to completion and returns the exit status. Never throws. `terminal` is
 * where server input is asked; by default the process's stdin and stderr when stdin is a
 * terminal, else none (every elicitation is declined).
 */
export async function runCli(
  argv: readonly string[],
  out: Output,
  signal?: AbortSignal,
  terminal?: Terminal | null,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  if (argv[0] === "login") return runLogin(argv.slice(1), out, signal, env);
  if (argv[0] === "logout") return runLogout(argv.slice(1), out, env);
  if (argv[0] === "serve") {
    // Loaded only for serve: other commands do not pay for the server side.
    const { runServe } = await import("./commands/serve.js");
    return runServe(argv.slice(1), out, signal, env);
  }
  // The inspector (its HTTP server and page) is loaded only for this command.
  if (argv[0] === "inspect")
    return (await import("./commands/inspect.js")).runInspect(argv.slice(1), out, signal, env);
  const json = wantsJson(argv);
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) return internalError(err, out, json);
    return usageError(err, out, json);
  }
  switch (parsed.kind) {
    case "help":
      out.stdout(USAGE);
      return EXIT.ok;
    case "version":
      out.stdout(parsed.json ? jsonDocument({ name: PROGRAM, version: VERSION }) : `${PROGRAM} ${VERSION}\n`);
      return EXIT.ok;
    case "run":
      return runTarget(parsed.invocation, out, signal, terminal, env);
  }
}
