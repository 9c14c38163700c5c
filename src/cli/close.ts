/**
 * Closing the session at the end of a command, within a bound. The answer is printed by then;
 * what closing waits for is the server's: a legacy HTTP server that never answers the `DELETE`
 * ending its session held the command for the transport's `requestTimeout` (60 s) after its
 * answer. The bound is longer than a stdio server's stop (`stdinGrace` then `termGrace`, 2 s
 * each, then SIGKILL), so a stdio server is still stopped in full before the program exits.
 */
export const CLOSE_WAIT_MS = 5_000;

export async function closeWithin(session: { close(): Promise<void> }, ms = CLOSE_WAIT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  try {
    await Promise.race([session.close(), bound]);
  } finally {
    clearTimeout(timer);
  }
}
