/**
 * The deadline of one request as the CLI runs it: `--timeout` from the start, started again by
 * each progress notification (the library's `resetTimeoutOnProgress`), never past `--max-time`
 * (even when that is below `--timeout`);
 * and stopped while the user is being asked for input, since a person answering a form is not a
 * server stalling (that wait has its own bound, `--input-timeout`, the handler's timeout).
 *
 * The CLI keeps this clock itself because only it knows when a person is being asked; the
 * library gets the signal, and a request aborted by it fails with `timeout: deadline_exceeded`.
 */
import { McpClientError } from "../index.js";

export class Deadline {
  readonly #controller = new AbortController();
  readonly #timeout: number;
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

  constructor(timeout: number, maxTime: number) {
    this.#timeout = timeout;
    // `--max-time` is the request's ceiling even below `--timeout` (unlike the library's cap,
    // max(timeout, maxTotalTimeout)): `--max-time 12000` under the default `--timeout 30000`
    // means 12 s, where a call reporting progress used to run the full 30.
    this.#budget = maxTime;
    this.#window = timeout;
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
  }

  #run(): void {
    this.#since = Date.now();
    const ms = Math.min(this.#window, this.#budget);
    this.#timer = setTimeout(() => {
      this.#done = true;
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
