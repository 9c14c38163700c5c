/**
 * The audit log of `serve`: one JSON line per tool call, with who called what, what governance
 * decided, how long it took and how it ended. Arguments and results are never written.
 */
import { appendFile } from "node:fs/promises";
import { sanitizeText } from "../shared/sanitize.js";

export interface AuditEntry {
  /** ISO 8601, when the call ended. */
  time: string;
  principal: string | null;
  server: string | null;
  /** The tool's name on its server (the public name when the tool was not found). */
  tool: string;
  decision: "allow" | "deny" | "ask";
  durationMs: number;
  /** `ok`, `tool_error`, or the error kind (`denied`, `not_found`, `timeout`, ...). */
  outcome: string;
}

/** Where entries go: a file (JSON lines, appended in order) or a function. */
export type AuditSink = string | ((entry: AuditEntry) => void);

export class AuditLog {
  readonly #sink: AuditSink | null;
  #chain: Promise<void> = Promise.resolve();

  constructor(
    sink: AuditSink | undefined,
    readonly warn: (text: string) => void,
  ) {
    if (sink !== undefined && typeof sink !== "string" && typeof sink !== "function") {
      throw new TypeError('conduit-mcp: option "audit" must be a file path or a function');
    }
    this.#sink = sink ?? null;
  }

  /** Entries go somewhere (without a sink, callers need not build them). */
  get enabled(): boolean {
    return this.#sink !== null;
  }

  write(entry: AuditEntry): void {
    const sink = this.#sink;
    if (sink === null) return;
    const clean = { ...entry, tool: sanitizeText(entry.tool, { maxLength: 200 }) };
    if (typeof sink === "function") {
      try {
        sink(clean);
      } catch (err) {
        this.warn(`the audit function threw: ${String(err)}`);
      }
      return;
    }
    // Appends one after another, so lines keep the order the calls ended in.
    this.#chain = this.#chain
      .then(() => appendFile(sink, `${JSON.stringify(clean)}\n`, { mode: 0o600 }))
      .catch((err) => this.warn(`cannot write the audit log: ${String((err as Error).message)}`));
  }

  /** Resolves when every entry written so far is on disk. */
  flush(): Promise<void> {
    return this.#chain;
  }
}
