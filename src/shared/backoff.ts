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

/** What was wrong with a delay the caller's backoff gave. */
export type BackoffProblem = "threw" | "not_a_delay" | "over_max_backoff";

/** A bad delay, reported once per guard: what was wrong, for which attempt, and the delay used. */
export interface BackoffReport {
  problem: BackoffProblem;
  attempt: number;
  delay: number;
  /** A sentence for the logger. */
  text: string;
}

/**
 * The backoff to use: the caller's, guarded. One that throws or returns anything but a
 * non-negative integer (NaN, a negative number, a fraction, a string) falls back to the default
 * for that attempt; a delay over `cap` (`maxBackoff`; Infinity too) is clamped to it. Nothing
 * reaches a timer above 2^31-1 ms. The first bad value is reported (the client logs a warning
 * and emits an event); later ones are handled the same way in silence, so a crash loop does not
 * repeat the warning at every attempt.
 */
const defaults = new Map<number, Backoff>();

/** The default backoff under `cap`: one function per cap for every client (issue 26). */
export function defaultBackoff(cap: number = MAX_TIMER_MS): Backoff {
  const ceiling = Math.min(cap, MAX_TIMER_MS);
  let fallback = defaults.get(ceiling);
  if (!fallback) {
    fallback = (attempt: number) => Math.min(fullJitter(attempt), ceiling);
    defaults.set(ceiling, fallback);
  }
  return fallback;
}

export function guardedBackoff(
  backoff: Backoff | undefined,
  report: (bad: BackoffReport) => void,
  cap: number = MAX_TIMER_MS,
): Backoff {
  const ceiling = Math.min(cap, MAX_TIMER_MS);
  const fallback = (attempt: number) => Math.min(fullJitter(attempt), ceiling);
  if (!backoff) return fallback;
  let reported = false;
  const bad = (problem: BackoffProblem, attempt: number, delay: number, text: string): number => {
    if (!reported) {
      reported = true;
      report({ problem, attempt, delay, text });
    }
    return delay;
  };
  return (attempt) => {
    let ms: unknown;
    try {
      ms = backoff(attempt);
    } catch {
      return bad("threw", attempt, fallback(attempt), "the backoff function threw; using the default");
    }
    if (typeof ms === "number" && ms >= 0 && (Number.isInteger(ms) || ms === Number.POSITIVE_INFINITY)) {
      if (ms <= ceiling) return ms;
      return bad(
        "over_max_backoff",
        attempt,
        ceiling,
        `the backoff function returned more than maxBackoff (${ceiling} ms); waiting ${ceiling} ms`,
      );
    }
    return bad(
      "not_a_delay",
      attempt,
      fallback(attempt),
      "the backoff function returned something other than a non-negative integer; using the default",
    );
  };
}
