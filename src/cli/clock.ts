/**
 * The command's one clock: `--timeout` and `--max-time`, read by every step that waits on a
 * server. Made once by the runner; every time limit in the CLI comes from here.
 *
 * - A stretch of steps that share one `--timeout` (the handshake; a hub's whole command; watch's
 *   start: handshake, log level, listings, subscriptions) reads what is left of one `span()`.
 * - One request (`request()`) runs `--timeout` from its start, started again by each progress
 *   notification (the library's `resetTimeoutOnProgress`), never past `--max-time` (even when that
 *   is below `--timeout`), and stopped while the user is being asked for input, since a person
 *   answering a form is not a server stalling (that wait has its own bound, `--input-timeout`,
 *   the handler's timeout). A request the clock ends fails with `timeout: deadline_exceeded`.
 *
 * Only the CLI knows when a person is being asked: the library's deadline keeps running while a
 * modern-era round's questions are answered, and its cap (`maxTotalTimeout`) counts that time in
 * either era. So a request's time is the clock's, given to the library as its signal, with no
 * time limit of the library's own (`timeout: Infinity`, `untimed`).
 */
import { McpClientError } from "../index.js";
import type { AskingHooks } from "./input.js";

export interface Limits {
  /** `--timeout`: the handshake, and each request's window. */
  timeout: number;
  /** `--max-time`: the most a request may last, however often progress renews its window. */
  maxTime: number;
}

/** A stretch of steps that share one `--timeout`: each reads what is left. */
export interface Span {
  /** Milliseconds left, at least 1 (a step needs a positive timeout). */
  left(): number;
}

export class Clock {
  readonly #limits: Limits;
  /** The requests running now: a question to the user stops all their clocks. */
  readonly #open = new Set<RequestDeadline>();

  constructor(limits: Limits) {
    this.#limits = { timeout: limits.timeout, maxTime: limits.maxTime };
  }

  /** `--timeout`, for a step that starts its own window (watch's later listings). */
  get timeout(): number {
    return this.#limits.timeout;
  }

  /** A span starting now, `--timeout` long. */
  span(): Span {
    const end = Date.now() + this.#limits.timeout;
    return { left: () => Math.max(1, end - Date.now()) };
  }

  /** One request's deadline, from now; `dispose()` it when the request settles. */
  request(): RequestDeadline {
    const deadline = new RequestDeadline(this.#limits, (d) => this.#open.delete(d));
    this.#open.add(deadline);
    return deadline;
  }

  /** What the input handler tells: the clocks of every open request stop meanwhile. */
  readonly asking: AskingHooks = {
    begin: () => {
      for (const d of this.#open) d.beginAsking();
    },
    end: () => {
      for (const d of this.#open) d.endAsking();
    },
  };

  /**
   * The library's own time limit for a request the clock times: none, so that only the clock's
   * signal (which stops while the user is asked) ends it.
   */
  static readonly untimed = Number.POSITIVE_INFINITY;
}

/** One request's deadline (see the top of the file). */
export class RequestDeadline {
  readonly #controller = new AbortController();
  readonly #timeout: number;
  readonly #settled: (d: RequestDeadline) => void;
  /** Time the request may still run, asking excluded: `--max-time` less what has run. */
  #budget: number;
  /** Time left in the current `--timeout` window. */
  #window: number;
  /** When the clock last started (null while stopped). */
  #since: number | null = null;
  #timer: NodeJS.Timeout | undefined;
  /** How many questions are open (a modern round may ask several at once). */
  #asking = 0;
  #done = false;

  constructor(limits: Limits, settled: (d: RequestDeadline) => void) {
    this.#timeout = limits.timeout;
    this.#settled = settled;
    // `--max-time` is the request's ceiling even below `--timeout` (unlike the library's cap,
    // max(timeout, maxTotalTimeout)): `--max-time 12000` under the default `--timeout 30000`
    // means 12 s, where a call reporting progress used to run the full 30.
    this.#budget = limits.maxTime;
    this.#window = limits.timeout;
    this.#run();
  }

  /** Aborts, with `timeout: deadline_exceeded` as its reason, when the deadline passes. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** Progress from the server: a new `--timeout` window, within what `--max-time` leaves. */
  renew(): void {
    if (this.#done) return;
    this.#stop();
    this.#window = this.#timeout;
    if (this.#asking === 0) this.#run();
  }

  /** A question to the user begins: the clock stops until every open question has ended. */
  beginAsking(): void {
    if (this.#done) return;
    if (this.#asking++ === 0) this.#stop();
  }

  endAsking(): void {
    if (this.#done || this.#asking === 0) return;
    if (--this.#asking === 0) this.#run();
  }

  /** The request settled: no more timers. */
  dispose(): void {
    this.#done = true;
    this.#stop();
    this.#settled(this);
  }

  #run(): void {
    this.#since = Date.now();
    const ms = Math.min(this.#window, this.#budget);
    this.#timer = setTimeout(() => {
      this.#done = true;
      this.#settled(this);
      this.#controller.abort(new McpClientError("timeout", "deadline_exceeded"));
    }, ms);
  }

  #stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#since === null) return;
    const ran = Date.now() - this.#since;
    this.#since = null;
    this.#window -= ran;
    this.#budget -= ran;
  }
}
