/**
 * Splits a byte stream into newline-delimited lines, holding at most `maxBytes` of an unfinished
 * line. A line that grows past the cap is reported once and the framer stops: the caller closes
 * the stream, since the rest of that line cannot be trusted to frame anything.
 *
 * The common case (whole lines inside one chunk) decodes them with one call and splits the text,
 * without copying the bytes.
 */
/** Where the lines go: each whole line, and once, a line over the cap. */
export interface LineSink {
  line(text: string): void;
  overflow(): void;
}

export class LineFramer {
  readonly #maxBytes: number;
  /** One object with both methods (a stdio transport's: no closure per server, issue 26). */
  readonly #sink: LineSink;
  /** The start of an unfinished line, in pieces; none held when undefined. */
  #parts: Buffer[] | undefined;
  #partBytes = 0;
  #stopped = false;

  constructor(maxBytes: number, sink: LineSink) {
    this.#maxBytes = maxBytes;
    this.#sink = sink;
  }

  push(chunk: Buffer): void {
    if (this.#stopped) return;
    let start = 0;
    if (this.#parts !== undefined) {
      // The end of a line begun in an earlier chunk.
      const nl = chunk.indexOf(10);
      if (nl === -1) return this.#hold(chunk);
      const lineBytes = this.#partBytes + nl;
      if (lineBytes > this.#maxBytes) return this.#overflow();
      this.#parts.push(chunk.subarray(0, nl));
      const line = Buffer.concat(this.#parts, lineBytes).toString("utf8");
      this.#parts = undefined;
      this.#partBytes = 0;
      this.#sink.line(line);
      if (this.#stopped) return;
      start = nl + 1;
    }
    const last = chunk.lastIndexOf(10);
    if (last >= start) {
      if (last - start <= this.#maxBytes) {
        // No line here can be over the cap: decode the whole lines at once and split the text
        // (a newline byte is never part of a multi-byte UTF-8 sequence, so the splits match).
        const text = chunk.toString("utf8", start, last);
        let from = 0;
        let nl = text.indexOf("\n");
        while (nl !== -1) {
          this.#sink.line(text.slice(from, nl));
          if (this.#stopped) return;
          from = nl + 1;
          nl = text.indexOf("\n", from);
        }
        this.#sink.line(from === 0 ? text : text.slice(from));
        if (this.#stopped) return;
      } else if (!this.#eachLine(chunk, start, last)) {
        return;
      }
      start = last + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  /** The lines of `chunk` up to the newline at `last`, each checked against the cap; false once stopped. */
  #eachLine(chunk: Buffer, start: number, last: number): boolean {
    let from = start;
    for (;;) {
      const nl = chunk.indexOf(10, from);
      if (nl - from > this.#maxBytes) {
        this.#overflow();
        return false;
      }
      this.#sink.line(chunk.toString("utf8", from, nl));
      if (this.#stopped) return false;
      if (nl === last) return true;
      from = nl + 1;
    }
  }

  /** Keeps the start of an unfinished line, within the cap. */
  #hold(part: Buffer): void {
    this.#partBytes += part.length;
    if (this.#partBytes > this.#maxBytes) return this.#overflow();
    this.#parts ??= [];
    this.#parts.push(part);
  }

  stop(): void {
    this.#stopped = true;
    this.#parts = undefined;
    this.#partBytes = 0;
  }

  #overflow(): void {
    this.stop();
    this.#sink.overflow();
  }
}
