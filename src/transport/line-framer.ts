/**
 * Splits a byte stream into newline-delimited lines, holding at most `maxBytes` of an unfinished
 * line. A line that grows past the cap is reported once and the framer stops: the caller closes
 * the stream, since the rest of that line cannot be trusted to frame anything.
 *
 * The common case (a whole line inside one chunk) decodes straight from the chunk, without copying.
 */
export class LineFramer {
  readonly #maxBytes: number;
  readonly #onLine: (line: string) => void;
  readonly #onOverflow: () => void;
  #parts: Buffer[] = [];
  #partBytes = 0;
  #stopped = false;

  constructor(maxBytes: number, onLine: (line: string) => void, onOverflow: () => void) {
    this.#maxBytes = maxBytes;
    this.#onLine = onLine;
    this.#onOverflow = onOverflow;
  }

  push(chunk: Buffer): void {
    if (this.#stopped) return;
    let start = 0;
    let nl = chunk.indexOf(10);
    while (nl !== -1) {
      const lineBytes = this.#partBytes + (nl - start);
      if (lineBytes > this.#maxBytes) return this.#overflow();
      let line: string;
      if (this.#parts.length === 0) {
        line = chunk.toString("utf8", start, nl);
      } else {
        this.#parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(this.#parts, lineBytes).toString("utf8");
        this.#parts = [];
        this.#partBytes = 0;
      }
      this.#onLine(line);
      if (this.#stopped) return;
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#partBytes += rest.length;
      if (this.#partBytes > this.#maxBytes) return this.#overflow();
      this.#parts.push(rest);
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#parts = [];
    this.#partBytes = 0;
  }

  #overflow(): void {
    this.stop();
    this.#onOverflow();
  }
}
