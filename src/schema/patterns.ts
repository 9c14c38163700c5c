/**
 * Server-supplied regular expressions (`pattern`, `patternProperties`) matched in linear time.
 *
 * JavaScript's `RegExp` backtracks: `^(a|a)*$` against a long string blocks the event loop for
 * seconds, and no heuristic on the pattern's shape catches every such case. So a schema's
 * patterns are compiled with RE2 (re2js, a pure-JS port: time linear in the input, whatever the
 * pattern), loaded on first use only, when a schema has a pattern at all. What RE2 cannot express
 * (back-references, look-around) is refused when the schema is vetted, never run.
 *
 * Linear is not instant: the input is bounded too. A string longer than
 * `PATTERN_LIMITS.maxInput` is never matched (the value is invalid), nor more than
 * `PATTERN_LIMITS.maxInputPerValidation` characters in one validation, so no check blocks the loop
 * for more than a few milliseconds.
 */
import type { RE2JS } from "re2js";
import { sanitizeText } from "../shared/sanitize.js";

export const PATTERN_LIMITS = {
  /** Longest pattern compiled, in characters. */
  maxPatternLength: 512,
  /** Largest compiled program (RE2 instructions): bounds the work per input character. */
  maxProgramSize: 4_000,
  /** Longest string (a value, or an object key for `patternProperties`) matched, in characters. */
  maxInput: 10_000,
  /** Characters matched against patterns in one validation, all patterns and strings together. */
  maxInputPerValidation: 50_000,
} as const;

type Engine = typeof RE2JS;
let loading: Promise<Engine> | undefined;

/** Loads re2js (once); later calls share the first load. */
export function loadPatternEngine(): Promise<Engine> {
  loading ??= import("re2js").then((m) => m.RE2JS);
  return loading;
}

/** A schema's patterns compiled, by their source text as the schema spells them. */
export type CompiledPatterns = ReadonlyMap<string, RE2JS>;

// Checked on the source before translation: re2js's translation turns `\k<n>` into a literal.
const BACKREFERENCE = /\\[1-9]|\\k</;

/** Each pattern compiled, or why one is refused (sanitised, with the pattern shortened). */
export function compilePatterns(engine: Engine, sources: Iterable<string>): CompiledPatterns | string {
  const out = new Map<string, RE2JS>();
  for (const source of sources) {
    if (out.has(source)) continue;
    if (source.length > PATTERN_LIMITS.maxPatternLength) return "a pattern is too long";
    const shown = sanitizeText(source, { maxLength: 40 });
    if (BACKREFERENCE.test(source)) return `a pattern uses a back-reference (${shown})`;
    let re: RE2JS;
    try {
      re = engine.compile(engine.translateRegExp(source));
    } catch {
      return `a pattern cannot be matched in linear time or is not valid (${shown})`;
    }
    if (re.programSize() > PATTERN_LIMITS.maxProgramSize) return `a pattern is too complex (${shown})`;
    out.set(source, re);
  }
  return out;
}

/** A string over the limits: validation stops, and the value is invalid with this message. */
export class PatternInputTooLong extends Error {}

/**
 * Runs `validate` (synchronous) with `RegExp` standing for RE2 on the schema's patterns.
 * @cfworker/json-schema compiles a pattern where it tests it, as `new RegExp(source, "u")`, and
 * offers no hook; so for the length of this synchronous call the global is a function that hands
 * it the RE2 program compiled at vetting instead, and it is restored before anything else runs.
 * A source that is not one of the schema's patterns (the `format: "regex"` check compiles the
 * value to see whether it is a regex: compiling matches nothing) gets the native `RegExp`.
 */
export function withLinearPatterns<T>(patterns: CompiledPatterns, validate: () => T): T {
  const native = globalThis.RegExp;
  let spent = 0;
  function LinearRegExp(source: unknown, flags?: string): { test(input: string): boolean } {
    const re = typeof source === "string" ? patterns.get(source) : undefined;
    if (re === undefined) return new native(source as string, flags);
    return {
      test(input: string): boolean {
        if (input.length > PATTERN_LIMITS.maxInput) {
          throw new PatternInputTooLong(
            `a string of ${input.length} characters is too long to match against a pattern (at most ${PATTERN_LIMITS.maxInput})`,
          );
        }
        spent += input.length;
        if (spent > PATTERN_LIMITS.maxInputPerValidation) {
          throw new PatternInputTooLong(
            `more than ${PATTERN_LIMITS.maxInputPerValidation} characters to match against patterns in one value`,
          );
        }
        return re.test(input);
      },
    };
  }
  globalThis.RegExp = LinearRegExp as unknown as RegExpConstructor;
  try {
    return validate();
  } finally {
    globalThis.RegExp = native;
  }
}
