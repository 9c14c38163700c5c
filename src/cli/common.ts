// What every part of the CLI shares: exit statuses, output, and the two reports that need no
// server (a usage error, an internal one).
import { sanitizeText } from "../index.js";
import type { UsageError } from "./invocation.js";
import { jsonDocument } from "./render.js";

export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  client: 3,
  interrupted: 130,
  /** A bug in this program, not a problem with the server or the command line. */
  internal: 70,
} as const;

/** Where output goes; the tests and main.ts each provide one. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Whether stderr is a terminal (progress is drawn as a bar there). */
  readonly stderrIsTerminal?: boolean;
}

export const PROGRAM = "conduit-mcp";

/**
 * Output with every occurrence of `secret` (as is, and as it appears inside a JSON string)
 * replaced by `[secret]`: a last guard for the bearer token, which a hostile server could echo.
 * Values shorter than four characters are left alone, as the library's own redaction does:
 * scrubbing them would mangle ordinary text.
 */
export function scrubbed(out: Output, secret: string): Output {
  if (secret.length < 4) return out;
  const forms = [...new Set([secret, JSON.stringify(secret).slice(1, -1)])];
  const scrub = (text: string) => {
    let clean = text;
    for (const form of forms) if (clean.includes(form)) clean = clean.split(form).join("[secret]");
    return clean;
  };
  return {
    stdout: (text) => out.stdout(scrub(text)),
    stderr: (text) => out.stderr(scrub(text)),
    ...(out.stderrIsTerminal === undefined ? {} : { stderrIsTerminal: out.stderrIsTerminal }),
  };
}

export function usageError(err: UsageError, out: Output, json: boolean): number {
  out.stderr(err.isUsage ? err.message : `${PROGRAM}: ${err.message}\nRun '${PROGRAM} --help' for usage.\n`);
  if (json) out.stdout(jsonDocument({ error: { kind: "usage", reason: err.reason, message: err.message } }));
  return EXIT.usage;
}

export function internalError(err: unknown, out: Output, json: boolean): number {
  const message = sanitizeText(`internal error: ${err instanceof Error ? err.message : String(err)}`, {
    maxLength: 500,
  });
  out.stderr(`${PROGRAM}: ${message}\n`);
  if (json) out.stdout(jsonDocument({ error: { kind: "internal", reason: null, message } }));
  return EXIT.internal;
}

/** A library TypeError's message without its own "conduit-mcp: " prefix, which we add anyway. */
export function libraryMessage(err: TypeError): string {
  return err.message.replace(/^conduit-mcp: /, "");
}
