/**
 * The program's interrupt: SIGINT and SIGTERM, and its reader gone (`conduit-mcp ... | head -1`),
 * as one signal the runner reads (it closes the session: exit 130, or 0 for watch). A second
 * SIGINT or SIGTERM means "now": exit at once (the library kills its servers on exit).
 */
import { onReaderGone } from "./reader-gone.js";

export function processInterrupt(watching: boolean): { signal: AbortSignal; dispose(): void } {
  const interrupt = new AbortController();

  // A reader that goes away is not an error worth a trace; for `watch`, which would otherwise
  // write on forever, it is the end, like an interrupt.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
    interrupt.abort();
  });

  // A watch on a quiet server writes nothing, so EPIPE would come only with its next line: notice
  // the reader's exit at once instead.
  const stopReaderCheck = watching ? onReaderGone(1, () => interrupt.abort()) : () => {};

  const onSignal = () => {
    if (interrupt.signal.aborted) process.exit(130);
    interrupt.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: interrupt.signal,
    dispose: () => {
      stopReaderCheck();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}
