import type { Transport } from "../transport/transport.js";

/**
 * The work a connection's `close()` waits for, so that no child process or socket outlives it:
 * connection attempts under way, and transports being shut down in the background.
 */
export class Outstanding {
  readonly #attempts = new Set<Promise<void>>();
  readonly #retiring = new Set<Promise<void>>();

  /** Keeps `attempt` until it settles. */
  track(attempt: Promise<void>): void {
    this.#attempts.add(attempt);
    // Both arms: a `finally` chain would be a second promise rejecting with nobody listening.
    const forget = () => this.#attempts.delete(attempt);
    attempt.then(forget, forget);
  }

  /** Closes a transport in the background; `settled()` still waits for it. */
  retire(transport: Transport): Promise<void> {
    const closing = transport.close().catch(() => {});
    this.#retiring.add(closing);
    void closing.finally(() => this.#retiring.delete(closing));
    return closing;
  }

  /** Waits for the attempts, then for every transport being closed (an attempt may retire one). */
  async settled(): Promise<void> {
    await Promise.all(this.#attempts);
    await Promise.all(this.#retiring);
  }
}
