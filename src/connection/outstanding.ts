import type { Transport } from "../transport/transport.js";

/**
 * The work a connection's `close()` waits for, so that no child process or socket outlives it:
 * connection attempts under way, and transports being shut down in the background.
 */
export class Outstanding {
  // Made when something is outstanding and dropped once it empties: between connecting and
  // closing there is nothing, and two empty Sets held ~240 B per client.
  #attempts: Set<Promise<void>> | undefined;
  #retiring: Set<Promise<void>> | undefined;

  /** Keeps `attempt` until it settles. */
  track(attempt: Promise<void>): void {
    this.#attempts ??= new Set();
    const attempts = this.#attempts;
    attempts.add(attempt);
    // Both arms: a `finally` chain would be a second promise rejecting with nobody listening.
    const forget = () => {
      attempts.delete(attempt);
      if (attempts.size === 0 && this.#attempts === attempts) this.#attempts = undefined;
    };
    attempt.then(forget, forget);
  }

  /** Closes a transport in the background; `settled()` still waits for it. */
  retire(transport: Transport): Promise<void> {
    const closing = transport.close().catch(() => {});
    this.#retiring ??= new Set();
    const retiring = this.#retiring;
    retiring.add(closing);
    void closing.finally(() => {
      retiring.delete(closing);
      if (retiring.size === 0 && this.#retiring === retiring) this.#retiring = undefined;
    });
    return closing;
  }

  /** Waits for the attempts, then for every transport being closed (an attempt may retire one). */
  async settled(): Promise<void> {
    await Promise.all(this.#attempts ?? []);
    await Promise.all(this.#retiring ?? []);
  }
}
