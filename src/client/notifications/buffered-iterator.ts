/**
 * An async iterator fed by pushes, with a bounded buffer: a consumer slower than the server
 * loses the oldest entries (counted in `dropped`), never the process's memory.
 */
export class BufferedIterator<T> implements AsyncIterableIterator<T> {
  readonly #buffer: T[] = [];
  readonly #capacity: number;
  #waiting: ((r: IteratorResult<T>) => void) | undefined;
  #done = false;
  #onDone: () => void;
  /** Entries lost to a full buffer since the iterator was made. */
  dropped = 0;

  constructor(capacity: number, onDone: () => void) {
    this.#capacity = capacity;
    this.#onDone = onDone;
  }

  push(value: T): void {
    if (this.#done) return;
    if (this.#waiting) {
      const resolve = this.#waiting;
      this.#waiting = undefined;
      resolve({ value, done: false });
      return;
    }
    if (this.#buffer.length >= this.#capacity) {
      this.#buffer.shift();
      this.dropped += 1;
    }
    this.#buffer.push(value);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.#buffer.length > 0) return Promise.resolve({ value: this.#buffer.shift()!, done: false });
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** Ends the iteration (a `break` in `for await` lands here too). */
  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#buffer.length = 0;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.#onDone();
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
