#!/usr/bin/env node
// The `conduit-mcp` program: process glue only (argv, the interrupt, exit). The work is in
// run.ts and runner.ts.
import { isWatch } from "./args.js";
import { processInterrupt } from "./interrupt.js";
import { runCli } from "./run.js";

const argv = process.argv.slice(2);
const interrupt = processInterrupt(isWatch(argv));
const exitCode = await runCli(
  argv,
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTerminal: process.stderr.isTTY === true,
  },
  interrupt.signal,
);
interrupt.dispose();
process.exitCode = exitCode;
// Nothing should be left running; if something is, do not let it keep the user waiting.
setTimeout(() => process.exit(exitCode), 2_000).unref();
