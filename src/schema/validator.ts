/**
 * JSON Schema validation of values a model or a server produced, with `@cfworker/json-schema`
 * (draft 2020-12, a pure interpreter: no code generation, so a hostile schema cannot become
 * code). Loaded on first use only: importing the client does not load it.
 *
 * A schema comes from an untrusted server, so it is vetted before it is used:
 * - never fetched: a `$ref` that is not inside the schema itself fails validation, nothing is
 *   loaded from anywhere;
 * - bounded: at most {@link SCHEMA_LIMITS}`.maxDepth` levels and `.maxNodes` objects and arrays;
 * - patterns: every `pattern` and `patternProperties` key is matched with RE2, in time linear in
 *   the input, and on bounded input (patterns.ts); one RE2 cannot compile (a back-reference,
 *   look-around) is refused, and so is one longer than `.maxPatternLength`.
 * A refused schema validates nothing: every value is invalid, with the reason as the error.
 * Compiled validators are cached per schema object (a `WeakMap`: they go with the schema).
 */
import type { Validator } from "@cfworker/json-schema";
import { sanitizeText } from "../shared/sanitize.js";
import {
  type CompiledPatterns,
  compilePatterns,
  loadPatternEngine,
  PATTERN_LIMITS,
  PatternInputTooLong,
  withLinearPatterns,
} from "./patterns.js";

export type ValidationOutcome = { valid: true } | { valid: false; errors: string[] };

export const SCHEMA_LIMITS = {
  maxDepth: 64,
  maxNodes: 10_000,
  maxPatternLength: PATTERN_LIMITS.maxPatternLength,
  /** Errors reported per validation, each at most `maxErrorChars` characters. */
  maxErrors: 8,
  maxErrorChars: 200,
} as const;

type ValidatorClass = typeof Validator;
let loading: Promise<ValidatorClass> | undefined;

/** Loads the validator library (once); later calls share the first load. */
export function loadValidator(): Promise<ValidatorClass> {
  loading ??= import("@cfworker/json-schema").then((m) => m.Validator);
  return loading;
}

/** A compiled schema (with its patterns compiled for RE2, if it has any), or why it was refused. */
type Compiled = { validator: Validator; patterns: CompiledPatterns | null } | { refused: string };
const compiled = new WeakMap<object, Compiled>();

/**
 * Validates `value` against `schema` (a JSON Schema object or boolean). Never throws for a bad
 * schema or value: the outcome says why it is invalid, in short sanitised lines.
 */
export async function validateJson(schema: unknown, value: unknown): Promise<ValidationOutcome> {
  if (schema === true) return { valid: true };
  if (schema === false) return { valid: false, errors: ["the schema accepts nothing"] };
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return { valid: false, errors: ["the schema is not a JSON Schema object"] };
  }
  const ValidatorClass = await loadValidator();
  let entry = compiled.get(schema);
  if (!entry) {
    entry = await compile(ValidatorClass, schema);
    compiled.set(schema, entry);
  }
  if ("refused" in entry) return { valid: false, errors: [`schema refused: ${entry.refused}`] };
  const { validator, patterns } = entry;
  try {
    const result =
      patterns === null
        ? validator.validate(value)
        : withLinearPatterns(patterns, () => validator.validate(value));
    if (result.valid) return { valid: true };
    const errors = result.errors
      .slice(0, SCHEMA_LIMITS.maxErrors)
      .map((e) =>
        sanitizeText(`${e.instanceLocation || "#"}: ${e.error}`, { maxLength: SCHEMA_LIMITS.maxErrorChars }),
      );
    return { valid: false, errors: errors.length > 0 ? errors : ["does not match the schema"] };
  } catch (err) {
    if (err instanceof PatternInputTooLong) return { valid: false, errors: [err.message] };
    // An unresolvable $ref (never fetched), a $ref cycle (stack overflow), an invalid regex.
    const why =
      err instanceof RangeError ? "the schema recurses without end" : "the schema cannot be applied";
    return { valid: false, errors: [why] };
  }
}

async function compile(ValidatorClass: ValidatorClass, schema: object): Promise<Compiled> {
  const vetted = vet(schema);
  if (typeof vetted === "string") return { refused: vetted };
  let patterns: CompiledPatterns | null = null;
  if (vetted.size > 0) {
    const compiledPatterns = compilePatterns(await loadPatternEngine(), vetted);
    if (typeof compiledPatterns === "string") return { refused: compiledPatterns };
    patterns = compiledPatterns;
  }
  try {
    // A copy: the library annotates the schema objects it is given, and these belong to the caller.
    return { validator: new ValidatorClass(structuredClone(schema) as never, "2020-12", true), patterns };
  } catch {
    return { refused: "the schema cannot be compiled" };
  }
}

/**
 * Why the schema is refused (too deep, too big), or the patterns it holds (`pattern` values and
 * `patternProperties` keys), to be compiled for RE2. Iterative.
 */
function vet(schema: object): string | Set<string> {
  const stack: Array<[unknown, number]> = [[schema, 1]];
  const patterns = new Set<string>();
  let nodes = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    if (++nodes > SCHEMA_LIMITS.maxNodes) return "the schema is too large";
    if (depth > SCHEMA_LIMITS.maxDepth) return "the schema is nested too deeply";
    if (Array.isArray(node)) {
      for (const child of node) stack.push([child, depth + 1]);
      continue;
    }
    const o = node as Record<string, unknown>;
    if (typeof o.pattern === "string") patterns.add(o.pattern);
    if (typeof o.patternProperties === "object" && o.patternProperties !== null) {
      for (const key of Object.keys(o.patternProperties)) patterns.add(key);
    }
    for (const key in o) stack.push([o[key], depth + 1]);
  }
  return patterns;
}
