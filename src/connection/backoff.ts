/**
 * Delays between reconnect attempts. The default is "full jitter": a random delay between 1 ms
 * and `min(cap, base * 2 ** attempt)`, so that many clients of one restarted server do not come
 * back in lockstep.
 */

export interface FullJitterOptions {
  /** Milliseconds of the first envelope (attempt 0). Default 500. */
  base?: number;
  /** The largest delay. Default 30 000. */
  cap?: number;
}

/** A random delay in [1, min(cap, base * 2 ** attempt)] ms; `attempt` counts from 0. */
export function fullJitter(attempt: number, options: FullJitterOptions = {}): number {
  const base = options.base ?? 500;
  const cap = options.cap ?? 30_000;
  const envelope = Math.max(1, Math.min(cap, base * 2 ** Math.max(0, attempt)));
  return 1 + Math.floor(Math.random() * envelope);
}

export type Backoff = (attempt: number) => number;

/**
 * The longest delay a timer can wait: Node fires a longer one after 1 ms (a busy loop with a
 * `TimeoutOverflowWarning`), so no cap may exceed it.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The backoff to use: the caller's, guarded. One that throws or returns anything but a
 * non-negative safe integer falls back to the default for that attempt, with a warning; a delay
 * over `cap` (`maxBackoff`) is clamped to it, with a warning.
 */
export function guardedBackoff(
  backoff: Backoff | undefined,
  warn: (text: string) => void,
  cap: number = MAX_TIMER_MS,
): Backoff {
  const ceiling = Math.min(cap, MAX_TIMER_MS);
  if (!backoff) return (attempt) => Math.min(fullJitter(attempt), ceiling);
  return (attempt) => {
    try {
      const ms = backoff(attempt);
      if (typeof ms === "number" && Number.isSafeInteger(ms) && ms >= 0) {
        if (ms <= ceiling) return ms;
        warn(`the backoff function returned more than maxBackoff (${ceiling} ms); waiting ${ceiling} ms`);
        return ceiling;
      }
      warn("the backoff function returned something other than a non-negative integer; using the default");
    } catch {
      warn("the backoff function threw; using the default");
    }
    return Math.min(fullJitter(attempt), ceiling);
  };
}
