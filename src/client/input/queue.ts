/**
 * Delivers server notifications and log entries to the handler's `notification` and `log`
 * callbacks: one at a time, in the order they arrived. A callback that throws (or rejects) is
 * logged and skipped; beyond `limit` entries waiting, new ones are dropped.
 */

export const MAX_WAITING_NOTIFICATIONS = 1000;

export class NotificationQueue {
  readonly #waiting: Array<() => unknown> = [];
  readonly #limit: number;
  readonly #onError: (error: unknown) => void;
  readonly #onDrop: () => void;
  #running = false;
  /** Dropped since the queue was last below its limit (one warning per burst). */
  #dropped = 0;

  constructor(options: {
    limit?: number;
    onError: (error: unknown) => void;
    onDrop: (count: number) => void;
  }) {
    this.#limit = options.limit ?? MAX_WAITING_NOTIFICATIONS;
    this.#onError = options.onError;
    this.#onDrop = () => options.onDrop(this.#dropped);
  }

  /** Entries waiting (not counting the one running). */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Queues `deliver`; returns false when it was dropped because too many are waiting. */
  push(deliver: () => unknown): boolean {
    if (this.#waiting.length >= this.#limit) {
      this.#dropped += 1;
      if (this.#dropped === 1) this.#onDrop();
      return false;
    }
    this.#waiting.push(deliver);
    if (!this.#running) void this.#run();
    return true;
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      // Never inside the connection's receive path: callbacks start on a later tick.
      await null;
      for (let next = this.#waiting.shift(); next; next = this.#waiting.shift()) {
        if (this.#waiting.length < this.#limit) this.#dropped = 0;
        try {
          await next();
        } catch (error) {
          try {
            this.#onError(error);
          } catch {
            // A logger that throws must not stop delivery.
          }
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
