/**
 * JSON Schema validation of values a model or a server produced, with `@cfworker/json-schema`
 * (draft 2020-12, a pure interpreter: no code generation, so a hostile schema cannot become
 * code). Loaded on first use only: importing the client does not load it.
 *
 * A schema comes from an untrusted server, so it is vetted before it is used:
 * - never fetched: a `$ref` that is not inside the schema itself fails validation, nothing is
 *   loaded from anywhere;
 * - bounded: at most {@link SCHEMA_LIMITS}`.maxDepth` levels and `.maxNodes` objects and arrays;
 * - patterns: JavaScript regexes backtrack, so a `pattern` (or `patternProperties` key) longer
 *   than `.maxPatternLength`, with a back-reference, or with a quantified group that itself holds
 *   a quantifier (`(a+)+`, the classic catastrophic shape) is refused. This is a heuristic: it
 *   stops the known catastrophic shapes, not every slow regex.
 * A refused schema validates nothing: every value is invalid, with the reason as the error.
 * Compiled validators are cached per schema object (a `WeakMap`: they go with the schema).
 */
import type { Validator } from "@cfworker/json-schema";
import { sanitizeText } from "../shared/sanitize.js";

export type ValidationOutcome = { valid: true } | { valid: false; errors: string[] };

export const SCHEMA_LIMITS = {
  maxDepth: 64,
  maxNodes: 10_000,
  maxPatternLength: 512,
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

/** A compiled schema, or why the schema was refused. */
type Compiled = { validator: Validator } | { refused: string };
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
    entry = compile(ValidatorClass, schema);
    compiled.set(schema, entry);
  }
  if ("refused" in entry) return { valid: false, errors: [`schema refused: ${entry.refused}`] };
  try {
    const result = entry.validator.validate(value);
    if (result.valid) return { valid: true };
    const errors = result.errors
      .slice(0, SCHEMA_LIMITS.maxErrors)
      .map((e) =>
        sanitizeText(`${e.instanceLocation || "#"}: ${e.error}`, { maxLength: SCHEMA_LIMITS.maxErrorChars }),
      );
    return { valid: false, errors: errors.length > 0 ? errors : ["does not match the schema"] };
  } catch (err) {
    // An unresolvable $ref (never fetched), a $ref cycle (stack overflow), an invalid regex.
    const why =
      err instanceof RangeError ? "the schema recurses without end" : "the schema cannot be applied";
    return { valid: false, errors: [why] };
  }
}

function compile(ValidatorClass: ValidatorClass, schema: object): Compiled {
  const problem = vet(schema);
  if (problem) return { refused: problem };
  try {
    // A copy: the library annotates the schema objects it is given, and these belong to the caller.
    return { validator: new ValidatorClass(structuredClone(schema) as never, "2020-12", true) };
  } catch {
    return { refused: "the schema cannot be compiled" };
  }
}

const BACKREFERENCE = /\\[1-9]|\\k</;
/** A group with a quantifier inside, itself quantified: `(a+)+`, `(a*b?)*`, `(x{2,})+`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[*+?]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[*+]|\{\d+,\d*\})/;

function vetPattern(p: unknown): string | undefined {
  if (typeof p !== "string") return undefined;
  if (p.length > SCHEMA_LIMITS.maxPatternLength) return "a pattern is too long";
  if (BACKREFERENCE.test(p)) return "a pattern uses a back-reference";
  if (NESTED_QUANTIFIER.test(p)) return "a pattern nests quantifiers";
  return undefined;
}

/** Why the schema is refused (too deep, too big, a dangerous pattern), or undefined. Iterative. */
function vet(schema: object): string | undefined {
  const stack: Array<[unknown, number]> = [[schema, 1]];
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
    const bad = vetPattern(o.pattern);
    if (bad) return bad;
    if (typeof o.patternProperties === "object" && o.patternProperties !== null) {
      for (const key of Object.keys(o.patternProperties)) {
        const badKey = vetPattern(key);
        if (badKey) return badKey;
      }
    }
    for (const key in o) stack.push([o[key], depth + 1]);
  }
  return undefined;
}
