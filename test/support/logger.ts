import type { Logger } from "../../src/index.js";

/** A logger that prints nothing and remembers every line, by level. */
export interface SilentLogger extends Logger {
  readonly warnings: string[];
  readonly errors: string[];
  readonly lines: Array<{ level: "debug" | "info" | "warn" | "error"; message: string }>;
}

export function silentLogger(): SilentLogger {
  const warnings: string[] = [];
  const errors: string[] = [];
  const lines: SilentLogger["lines"] = [];
  return {
    warnings,
    errors,
    lines,
    debug: (message) => void lines.push({ level: "debug", message }),
    info: (message) => void lines.push({ level: "info", message }),
    warn: (message) => {
      warnings.push(message);
      lines.push({ level: "warn", message });
    },
    error: (message) => {
      errors.push(message);
      lines.push({ level: "error", message });
    },
  };
}

/** A logger of warnings and errors that keeps every line, in order. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, warn: (m) => lines.push(m), error: (m) => lines.push(m) };
}
