/**
 * The one sanitiser for server text: every string a server sends that reaches a terminal, a log,
 * an error or a model passes through here.
 *
 * Removed: C0 and C1 control characters (tab and, when asked, newline kept), DEL, bidirectional
 * controls (which can make text read differently than it is), zero-width characters (which hide
 * text), Unicode tag characters U+E0000–U+E007F (invisible ASCII look-alikes, "ASCII smuggling")
 * and the Unicode line and paragraph separators. Lone surrogates become U+FFFD.
 */

import { setOwn } from "./keys.js";

// Terminal escape sequences as a whole (CSI, OSC, and the two-character forms), so that what
// is left of one is not printed as "[31m".
const ESCAPES =
  /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)?|[@-Z\\-_])|\u009B[0-?]*[ -/]*[@-~]/g;
// C0 except \t \n, DEL, C1, bidi controls, zero-width and invisible formatting characters, and
// the tag characters (U+E0000–U+E007F: the surrogate pair \uDB40 \uDC00–\uDC7F; matched as a pair
// so the regex needs no "u" flag, which would slow every call).
const STRIP =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]|\uDB40[\uDC00-\uDC7F]/g;
const SEPARATORS = /\r\n|[\u2028\u2029\r\n]/g;
const TAB = /\t/g;

export interface SanitizeTextOptions {
  /** Keep `\n` (and turn `\r\n`, U+2028 and U+2029 into `\n`). Default false: they become a space. */
  keepNewlines?: boolean;
  /** Clamp to this many characters (an ellipsis marks a cut). Default: no clamp. */
  maxLength?: number;
}

export function sanitizeText(input: string, options: SanitizeTextOptions = {}): string {
  let s = typeof input === "string" ? input : String(input);
  if (s.length > 0) {
    s = s.toWellFormed().replace(ESCAPES, "").replace(STRIP, "");
    s = options.keepNewlines ? s.replace(SEPARATORS, "\n") : s.replace(SEPARATORS, " ").replace(TAB, " ");
  }
  const max = options.maxLength;
  if (max !== undefined && s.length > max) s = `${s.slice(0, Math.max(0, max - 1))}…`;
  return s;
}

export interface SanitizeValueOptions {
  /** Longest string kept, in characters. Default 4 096. */
  maxString?: number;
  /** Nesting below this depth is replaced by `"[truncated]"`. Default 16. */
  maxDepth?: number;
  /** Most entries kept per object or array. Default 1 000. */
  maxEntries?: number;
}

/**
 * A copy of a JSON value with every string (keys too) sanitised and clamped, nesting cut at
 * `maxDepth`. Walks with an explicit stack, so no message is deep enough to overflow it.
 */
export function sanitizeValue(value: unknown, options: SanitizeValueOptions = {}): unknown {
  const maxString = options.maxString ?? 4096;
  const maxDepth = options.maxDepth ?? 16;
  const maxEntries = options.maxEntries ?? 1000;
  const text = (s: string) => sanitizeText(s, { keepNewlines: true, maxLength: maxString });

  const leaf = (v: unknown): unknown => {
    if (typeof v === "string") return text(v);
    if (typeof v === "number") return Number.isFinite(v) ? v : null;
    if (typeof v === "boolean" || v === null) return v;
    return undefined;
  };

  const isContainer = (v: unknown): v is object => typeof v === "object" && v !== null;
  if (!isContainer(value)) return leaf(value);

  const root: unknown = Array.isArray(value) ? [] : {};
  const stack: Array<{ src: object; dst: Record<string, unknown> | unknown[]; depth: number }> = [
    { src: value, dst: root as Record<string, unknown>, depth: 1 },
  ];
  while (stack.length > 0) {
    const { src, dst, depth } = stack.pop()!;
    const entries = Array.isArray(src) ? src.map((v, i) => [i, v] as const) : Object.entries(src);
    let count = 0;
    for (const [key, child] of entries) {
      if (count++ >= maxEntries) break;
      let out: unknown;
      if (isContainer(child)) {
        if (depth >= maxDepth) out = "[truncated]";
        else {
          out = Array.isArray(child) ? [] : {};
          stack.push({ src: child, dst: out as Record<string, unknown>, depth: depth + 1 });
        }
      } else {
        out = leaf(child);
        if (out === undefined) continue;
      }
      if (Array.isArray(dst)) dst.push(out);
      else setOwn(dst, typeof key === "string" ? text(key) : String(key), out);
    }
  }
  return root;
}
