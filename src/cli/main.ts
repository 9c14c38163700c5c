#!/usr/bin/env node
// The `conduit-mcp` program: process glue only (argv, signals, exit). The work is in run.ts and runner.ts.
import { isWatch } from "./args.js";
import { onReaderGone } from "./reader-gone.js";
import { runCli } from "./run.js";

const interrupt = new AbortController();

// A reader that goes away (`conduit-mcp tools -- ... | head -1`) is not an error worth a trace;
// for `watch`, which would otherwise write on forever, it is the end, like an interrupt.
process.stdout.on("error", (err: NodeJS.ErrnoException) => {
  if (err.code !== "EPIPE") throw err;
  interrupt.abort();
});

// A watch on a quiet server writes nothing, so EPIPE would come only with its next line: notice
// the reader's exit at once instead.
const stopReaderCheck = isWatch(process.argv.slice(2)) ? onReaderGone(1, () => interrupt.abort()) : () => {};

const onSignal = () => {
  // A second signal means "now": exit at once (the library kills its servers on exit).
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

const exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrIsTerminal: process.stderr.isTTY === true,
  },
  interrupt.signal,
);
stopReaderCheck();
process.off("SIGINT", onSignal);
process.off("SIGTERM", onSignal);
process.exitCode = exitCode;
// Nothing should be left running; if something is, do not let it keep the user waiting.
setTimeout(() => process.exit(exitCode), 2_000).unref();
