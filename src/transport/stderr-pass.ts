/**
 * A stdio server's stderr passed on to this process's stderr with every live `Secret` scrubbed.
 * A server given a token in its environment may print it (a debug dump, a failed request's URL);
 * the client's own messages are scrubbed, so what it passes on is too. Text is scrubbed a whole
 * line at a time, since a secret can be split across two chunks; a line that does not end soon
 * is passed on anyway, so a prompt without a newline still shows.
 */
import { StringDecoder } from "node:string_decoder";
import { hasLiveSecrets, redactSecrets } from "../shared/secret.js";

/** How long a partial line waits for its end, and how much of one is held at most. */
const PARTIAL_LINE_MS = 100;
const MAX_HELD_CHARS = 16 * 1024;

export class StderrPassOn {
  readonly #write: (text: string | Buffer) => void;
  /** Once a secret is live, text is decoded and held by line for the rest of the stream. */
  #decoder: StringDecoder | undefined;
  #held = "";
  #timer: NodeJS.Timeout | undefined;

  constructor(write: (text: string | Buffer) => void) {
    this.#write = write;
  }

  push(chunk: Buffer): void {
    if (!this.#decoder) {
      // Nothing to scrub: passed on as it comes, bytes unchanged.
      if (!hasLiveSecrets()) return this.#write(chunk);
      this.#decoder = new StringDecoder("utf8");
    }
    this.#held += this.#decoder.write(chunk);
    const end = this.#held.lastIndexOf("\n");
    if (end !== -1) {
      this.#write(redactSecrets(this.#held.slice(0, end + 1)));
      this.#held = this.#held.slice(end + 1);
    }
    if (this.#held.length > MAX_HELD_CHARS) this.flush();
    else if (this.#held.length > 0) this.#schedule();
  }

  /** What is held, scrubbed, now (the partial line's wait is over, or the stream ended). */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const rest = this.#held + (this.#decoder?.end() ?? "");
    this.#held = "";
    if (this.#decoder) this.#decoder = new StringDecoder("utf8");
    if (rest.length > 0) this.#write(redactSecrets(rest));
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush();
    }, PARTIAL_LINE_MS);
    this.#timer.unref();
  }
}
