import { Deadline } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";
import { PromiseCaller } from "./op.js";
import type { OpCaller, ParamsBuilder } from "./types.js";

export interface HealthCheck<S> {
  /** Milliseconds between checks of a ready connection. */
  interval: number;
  /** The request that checks (legacy `ping`, modern `server/discover`). */
  method: (session: S) => string;
  build: ParamsBuilder<S>;
}

/** What the checks need of the connection: a way to send, and to give up on the transport. */
export interface HealthTarget<S> {
  /** Whether the connection is ready (checks run only then). */
  ready(): boolean;
  /** The connection's current generation: an answer from an older one says nothing. */
  generation(): number;
  /** Sends one request of the connection's own (no queue, no caller's slot) within `deadline`. */
  send(method: (session: S) => string, caller: OpCaller<S>, deadline: Deadline): void;
  /** The server stopped answering: restart the transport. */
  failed(error: McpClientError): void;
}

/** A health check unanswered this many times in a row restarts the transport. */
export const MAX_MISSED_HEALTH_CHECKS = 2;

/**
 * Health checks of a ready connection: one request every `interval`, each within that interval;
 * unanswered twice in a row (a timeout), the transport is restarted. An error answer is an
 * answer: the server is alive.
 */
export class HealthChecks<S> {
  readonly #hc: HealthCheck<S>;
  readonly #target: HealthTarget<S>;
  #timer: NodeJS.Timeout | undefined;
  #missed = 0;

  constructor(check: HealthCheck<S>, target: HealthTarget<S>) {
    this.#hc = check;
    this.#target = target;
  }

  start(): void {
    this.#missed = 0;
    clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#check(), this.#hc.interval);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #check(): void {
    const t = this.#target;
    if (!t.ready()) return;
    const gen = t.generation();
    const hc = this.#hc;
    const caller = new PromiseCaller(
      hc.build,
      () => {
        this.#missed = 0;
      },
      (err: unknown) => {
        if (gen !== t.generation()) return;
        if (err instanceof McpClientError && err.kind === "protocol") {
          this.#missed = 0;
          return;
        }
        this.#missed += 1;
        if (this.#missed >= MAX_MISSED_HEALTH_CHECKS) {
          t.failed(new McpClientError("transport", "health_check_failed"));
        }
      },
    );
    t.send(hc.method, caller, new Deadline(hc.interval));
  }
}
