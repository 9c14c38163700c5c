/**
 * What OpenAI's strict mode (Structured Outputs) accepts, from its guide, section "Supported
 * schemas" (platform.openai.com/docs/guides/structured-outputs#supported-schemas). The converter
 * (strict-schema.ts) and the checker (strict-check.ts) both read these.
 *
 * - Types: string, number, boolean, integer, object, array, enum, anyOf (and `null` in a type
 *   union: "emulate an optional parameter by using a union type with null").
 * - "The root level object of a schema must be an object, and not use anyOf."
 * - "All fields must be required"; "additionalProperties: false must always be set in objects".
 * - string: `pattern`, `format` (the nine formats below); number: `multipleOf`, `maximum`,
 *   `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; array: `minItems`, `maxItems`. The guide
 *   lists `minLength` and `maxLength` among the keywords fine-tuned models "additionally do not
 *   support", so other models take them.
 * - Not supported: "Composition: allOf, not, dependentRequired, dependentSchemas, if, then, else"
 *   (and, for fine-tuned models, also patternProperties). Keywords the guide does not list
 *   (oneOf, patternProperties, propertyNames, unevaluated*, prefixItems, contains, uniqueItems,
 *   minProperties, maxProperties, ...) are treated as unsupported.
 * - "Definitions are supported" (`$defs`, referenced with `$ref`) and "Recursive schemas are
 *   supported" (`#` for the root).
 * - "A schema may have up to 5000 object properties total, with up to 10 levels of nesting."
 * - "total string length of all property names, definition names, enum values, and const values
 *   cannot exceed 120,000 characters."
 * - "up to 1000 enum values across all enum properties", and "For a single enum property with
 *   string values, the total string length of all enum values cannot exceed 15,000 characters
 *   when there are more than 250 enum values."
 *
 * Nesting is counted as object levels on a path, the root object being level 1 (the guide does
 * not say how it counts; its heading is "Objects have limitations on nesting depth and size").
 */
export const OPENAI_STRICT_LIMITS = {
  maxObjectDepth: 10,
  maxProperties: 5000,
  maxStringChars: 120_000,
  maxEnumValues: 1000,
  /** Above this many string values in one enum, `maxLargeEnumChars` applies to it. */
  largeEnumValues: 250,
  maxLargeEnumChars: 15_000,
} as const;

export const STRICT_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

export const STRICT_TYPES: ReadonlySet<string> = new Set([
  "string",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "null",
]);

/** The constraint keywords of the subset: carried over as they are by the conversion. */
export const STRICT_CONSTRAINTS = [
  "pattern",
  "minLength",
  "maxLength",
  "multipleOf",
  "maximum",
  "exclusiveMaximum",
  "minimum",
  "exclusiveMinimum",
  "minItems",
  "maxItems",
] as const;

/** Keywords a strict schema may carry (the structural ones, the constraints above, annotations). */
export const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "format",
  ...STRICT_CONSTRAINTS,
]);
