/**
 * Progress of a long request on stderr: a bar with the percent, the server's message and the
 * time so far on a terminal, redrawn in place; one JSON object per line with --json; a plain
 * line per update when stderr is not a terminal and --progress asked for it. Nothing otherwise.
 */
import { type ProgressParams, sanitizeText } from "../index.js";

export type ProgressMode = "bar" | "lines" | "json" | "off";

export function progressMode(o: {
  json: boolean;
  progress: boolean;
  stderrIsTerminal: boolean;
}): ProgressMode {
  if (!o.stderrIsTerminal && !o.progress) return "off";
  if (o.json) return "json";
  return o.stderrIsTerminal ? "bar" : "lines";
}

const BAR_WIDTH = 20;
/** Erase the current line and return to its start. */
const CLEAR_LINE = "\r\u001b[2K";

export class ProgressDisplay {
  readonly #mode: ProgressMode;
  readonly #write: (text: string) => void;
  readonly #start = Date.now();
  /** Whether a bar is on the screen (and must be erased before anything else is written). */
  #drawn = false;

  constructor(mode: ProgressMode, write: (text: string) => void) {
    this.#mode = mode;
    this.#write = write;
  }

  update(p: ProgressParams): void {
    if (this.#mode === "off") return;
    const elapsedMs = Date.now() - this.#start;
    const total = typeof p.total === "number" && p.total > 0 ? p.total : undefined;
    const fraction = total === undefined ? undefined : Math.min(1, Math.max(0, p.progress / total));
    const message = typeof p.message === "string" ? sanitizeText(p.message, { maxLength: 120 }) : undefined;
    if (this.#mode === "json") {
      const line = {
        type: "progress",
        progress: p.progress,
        ...(total === undefined ? {} : { total }),
        ...(message === undefined ? {} : { message }),
        elapsedMs,
      };
      this.#write(`${JSON.stringify(line)}\n`);
      return;
    }
    const percent = fraction === undefined ? "" : `${Math.round(fraction * 100)}%`;
    const count = total === undefined ? `${p.progress}` : `${p.progress}/${total}`;
    const seconds = `${Math.floor(elapsedMs / 1000)}s`;
    if (this.#mode === "lines") {
      this.#write(`progress ${[count, percent, message, seconds].filter(Boolean).join(" ")}\n`);
      return;
    }
    const filled = fraction === undefined ? 0 : Math.round(fraction * BAR_WIDTH);
    const bar = `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`;
    const width = process.stderr.columns || 80;
    const text = [bar, percent || count, message, seconds].filter(Boolean).join(" ");
    this.#write(`${CLEAR_LINE}${text.slice(0, width - 1)}`);
    this.#drawn = true;
  }

  /** Erases the bar, before a question or the result is written. */
  clear(): void {
    if (!this.#drawn) return;
    this.#write(CLEAR_LINE);
    this.#drawn = false;
  }
}
