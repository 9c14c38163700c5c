/**
 * `reconnect()` calls made while one is under way join it: one transport, one handshake. The
 * caller's promise resolves once the new attempt has started (or the reconnect ended before
 * one could); calls join until that attempt settles.
 */
export class ReconnectJoin {
  #current: Promise<void> | undefined;

  /** The reconnect under way, to join, or undefined. */
  get current(): Promise<void> | undefined {
    return this.#current;
  }

  /** Runs `run`, which calls `started` once its attempt is under way and settles with it. */
  begin(run: (started: () => void) => Promise<void>): Promise<void> {
    let started!: () => void;
    const joined = new Promise<void>((resolve) => {
      started = resolve;
    });
    this.#current = joined;
    const settled = () => {
      if (this.#current === joined) this.#current = undefined;
      started();
    };
    run(started).then(settled, settled);
    return joined;
  }
}
