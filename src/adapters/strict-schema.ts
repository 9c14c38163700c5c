import { sanitizeText } from "../shared/sanitize.js";
import {
  OPENAI_STRICT_LIMITS as LIMITS,
  STRICT_CONSTRAINTS,
  STRICT_FORMATS,
  STRICT_TYPES,
} from "./openai-limits.js";
import { putOwn } from "./own-property.js";
import { MAX_SCHEMA_TEXT } from "./schema-text.js";

/**
 * A server's `inputSchema` turned into OpenAI's strict subset (see openai-limits.ts for the rules
 * and where they come from), or the reason it cannot be.
 *
 * The conversion only ever narrows: every value valid for the strict schema, once the `null`s it
 * added are stripped (strip-nulls.ts), is valid for the original. So it refuses rather than drop
 * a constraint it cannot carry (an unsupported `format`, `uniqueItems`, ...): the tool is then
 * given to the model with `strict: false` and its original schema.
 *
 * - every object gets `additionalProperties: false` and lists all its properties in `required`;
 *   an optional one becomes a union with `null` (unless it already takes `null`); strip-nulls.ts
 *   takes such nulls out of the model's arguments, reading the original schema;
 * - annotations the subset does not list (`default`, `examples`, `$schema`, `$comment`, ...) and
 *   unknown keywords (which validate nothing) are dropped; `description` and `title` are
 *   sanitised and clamped;
 * - `$defs` (or `definitions`) at the root are kept, and `$ref`s to them or to `#`.
 */

export type StrictFallbackReason =
  | "root_not_object"
  | "unsupported_keyword"
  | "unsupported_type"
  | "unsupported_format"
  | "unsupported_ref"
  | "untyped_schema"
  | "open_object"
  | "array_without_items"
  | "required_not_in_properties"
  | "boolean_schema"
  | "invalid_schema"
  | "nesting_limit"
  | "property_limit"
  | "string_size_limit"
  | "enum_limit"
  | "too_deep";

export type StrictConversion =
  | { ok: true; schema: Record<string, unknown> }
  | { ok: false; reason: StrictFallbackReason; detail: string };

// Composition and applicators strict mode does not take: their presence means fallback.
const UNSUPPORTED = new Set([
  "allOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
  "prefixItems",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "uniqueItems",
  "minProperties",
  "maxProperties",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "$dynamicRef",
  "$dynamicAnchor",
  "$recursiveRef",
  "$recursiveAnchor",
  "$anchor",
]);

/** Schema nesting (of any kind) past which a schema is refused, so no walk can overflow. */
const MAX_SCHEMA_DEPTH = 64;

class Refusal {
  constructor(
    readonly reason: StrictFallbackReason,
    readonly detail: string,
  ) {}
}

function refuse(reason: StrictFallbackReason, detail: string): never {
  throw new Refusal(reason, sanitizeText(detail, { maxLength: 120 }));
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

interface Budget {
  properties: number;
  stringChars: number;
  enumValues: number;
}

interface Ctx {
  budget: Budget;
  defNames: Set<string>;
}

export function toStrictSchema(input: unknown): StrictConversion {
  try {
    if (!isObj(input)) refuse("invalid_schema", "the schema is not an object");
    if (
      input.anyOf !== undefined ||
      !typeIncludes(input.type, "object") ||
      typeList(input.type).length !== 1
    ) {
      refuse("root_not_object", "the root must be a plain object schema");
    }
    const ctx: Ctx = {
      budget: { properties: 0, stringChars: 0, enumValues: 0 },
      defNames: new Set(),
    };
    const defsKey =
      input.$defs !== undefined ? "$defs" : input.definitions !== undefined ? "definitions" : null;
    if (input.$defs !== undefined && input.definitions !== undefined) {
      refuse("unsupported_keyword", "both $defs and definitions");
    }
    const rawDefs = defsKey === null ? {} : input[defsKey];
    if (!isObj(rawDefs)) refuse("invalid_schema", `${defsKey} is not an object`);
    for (const name of Object.keys(rawDefs)) {
      ctx.defNames.add(name);
      spend(ctx, "stringChars", name.length, "definition names");
    }
    const defs: Obj = {};
    for (const [name, def] of Object.entries(rawDefs)) {
      putOwn(defs, name, convert(def, ctx, `/${defsKey}/${name}`, 1, 0, defsKey));
    }
    const schema = convert(input, ctx, "", 1, 0, defsKey, true);
    if (defsKey !== null) schema[defsKey] = defs;
    return { ok: true, schema };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: err.reason, detail: err.detail };
    throw err;
  }
}

function spend(ctx: Ctx, what: keyof Budget, amount: number, label: string): void {
  ctx.budget[what] += amount;
  const limit =
    what === "properties"
      ? LIMITS.maxProperties
      : what === "stringChars"
        ? LIMITS.maxStringChars
        : LIMITS.maxEnumValues;
  if (ctx.budget[what] > limit) {
    const reason =
      what === "properties" ? "property_limit" : what === "stringChars" ? "string_size_limit" : "enum_limit";
    refuse(reason, `more than ${limit} ${label}`);
  }
}

function typeList(type: unknown): string[] {
  if (typeof type === "string") return [type];
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return type as string[];
  return [];
}

function typeIncludes(type: unknown, t: string): boolean {
  return typeList(type).includes(t);
}

function text(value: unknown): string | undefined {
  return typeof value === "string"
    ? sanitizeText(value, { keepNewlines: true, maxLength: MAX_SCHEMA_TEXT })
    : undefined;
}

/** The JSON type of an enum or const value, as a schema type. */
function valueType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function convert(
  node: unknown,
  ctx: Ctx,
  path: string,
  objectDepth: number,
  depth: number,
  defsKey: string | null,
  isRoot = false,
): Obj {
  if (depth > MAX_SCHEMA_DEPTH) refuse("too_deep", `nesting past ${MAX_SCHEMA_DEPTH} at ${path || "/"}`);
  if (typeof node === "boolean") refuse("boolean_schema", `boolean schema at ${path || "/"}`);
  if (!isObj(node)) refuse("invalid_schema", `a schema at ${path || "/"} is not an object`);
  for (const key of Object.keys(node)) {
    if (UNSUPPORTED.has(key)) refuse("unsupported_keyword", `${key} at ${path || "/"}`);
  }
  if ((node.$defs !== undefined || node.definitions !== undefined) && !isRoot) {
    refuse("unsupported_keyword", `$defs below the root at ${path}`);
  }
  const out: Obj = {};
  const description = text(node.description);
  const title = text(node.title);

  if (node.$ref !== undefined) {
    const ref = node.$ref;
    let target: string | undefined;
    if (ref === "#") target = "#";
    else if (typeof ref === "string" && defsKey !== null && ref.startsWith(`#/${defsKey}/`)) {
      const name = decodePointer(ref.slice(defsKey.length + 3));
      if (ctx.defNames.has(name)) target = name;
    }
    if (target === undefined) refuse("unsupported_ref", `$ref at ${path || "/"}`);
    for (const key of Object.keys(node)) {
      if (key !== "$ref" && key !== "description" && key !== "title" && isValidationKeyword(key)) {
        refuse("unsupported_keyword", `$ref with ${key} beside it at ${path || "/"}`);
      }
    }
    out.$ref = ref;
    if (description === undefined && title === undefined) return out;
    // A $ref takes nothing beside it; its description is kept on a one-branch anyOf around it.
    const wrapped: Obj = {};
    if (description !== undefined) wrapped.description = description;
    if (title !== undefined) wrapped.title = title;
    wrapped.anyOf = [out];
    return wrapped;
  }

  if (Array.isArray(node.anyOf)) {
    if (node.anyOf.length === 0) refuse("invalid_schema", `empty anyOf at ${path}`);
    for (const key of Object.keys(node)) {
      if (key !== "anyOf" && key !== "description" && key !== "title" && isValidationKeyword(key)) {
        refuse("unsupported_keyword", `anyOf with ${key} beside it at ${path}`);
      }
    }
    const branches = node.anyOf.map((b, i) =>
      convert(b, ctx, `${path}/anyOf/${i}`, objectDepth, depth + 1, defsKey),
    );
    if (description !== undefined) out.description = description;
    if (title !== undefined) out.title = title;
    out.anyOf = branches;
    return out;
  }
  if (node.anyOf !== undefined) refuse("invalid_schema", `anyOf is not an array at ${path}`);

  let types = typeList(node.type);
  if (node.type !== undefined && types.length === 0) refuse("unsupported_type", `type at ${path || "/"}`);
  for (const t of types)
    if (!STRICT_TYPES.has(t)) refuse("unsupported_type", `type "${t}" at ${path || "/"}`);

  if (node.enum !== undefined) {
    if (!Array.isArray(node.enum) || node.enum.length === 0) refuse("invalid_schema", `enum at ${path}`);
    spend(ctx, "enumValues", node.enum.length, "enum values");
    let chars = 0;
    let strings = 0;
    for (const v of node.enum) {
      if (typeof v === "string") {
        chars += v.length;
        strings += 1;
      } else if (typeof v === "object" && v !== null)
        refuse("unsupported_keyword", `enum of objects at ${path}`);
      else chars += String(v).length;
    }
    if (strings > LIMITS.largeEnumValues && chars > LIMITS.maxLargeEnumChars) {
      refuse(
        "enum_limit",
        `an enum of ${strings} strings over ${LIMITS.maxLargeEnumChars} characters at ${path}`,
      );
    }
    spend(ctx, "stringChars", chars, "characters of names and enum values");
    out.enum = node.enum;
    if (types.length === 0)
      types = [...new Set(node.enum.map(valueType))].map((t) => (t === "integer" ? "number" : t));
  }
  if (node.const !== undefined) {
    if (typeof node.const === "object" && node.const !== null)
      refuse("unsupported_keyword", `const object at ${path}`);
    spend(ctx, "stringChars", String(node.const).length, "characters of names and enum values");
    out.const = node.const;
    if (types.length === 0) types = [valueType(node.const) === "integer" ? "number" : valueType(node.const)];
  }
  if (types.length === 0) refuse("untyped_schema", `a schema with no type at ${path || "/"}`);
  out.type = types.length === 1 ? types[0] : types;
  if (description !== undefined) out.description = description;
  if (title !== undefined) out.title = title;

  if (node.format !== undefined) {
    if (typeof node.format !== "string" || !STRICT_FORMATS.has(node.format)) {
      refuse("unsupported_format", `format "${String(node.format)}" at ${path}`);
    }
    out.format = node.format;
  }
  for (const key of STRICT_CONSTRAINTS) if (node[key] !== undefined) out[key] = node[key];

  if (types.includes("object")) {
    if (objectDepth > LIMITS.maxObjectDepth) {
      refuse("nesting_limit", `more than ${LIMITS.maxObjectDepth} levels of objects at ${path}`);
    }
    const props = node.properties ?? {};
    if (!isObj(props)) refuse("invalid_schema", `properties at ${path || "/"}`);
    const names = Object.keys(props);
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== false && extra !== true) {
      refuse("open_object", `additionalProperties schema at ${path || "/"}`);
    }
    // An object with no properties is a closed empty object only at the root (a tool without
    // arguments); below it, or when extra keys are asked for, it is a free-form map.
    if (names.length === 0 && (!isRoot || extra === true)) {
      refuse("open_object", `an object with no properties at ${path || "/"}`);
    }
    const required = node.required ?? [];
    if (!Array.isArray(required) || !required.every((r) => typeof r === "string")) {
      refuse("invalid_schema", `required at ${path || "/"}`);
    }
    for (const r of required) {
      if (!names.includes(r)) refuse("required_not_in_properties", `"${r}" at ${path || "/"}`);
    }
    spend(ctx, "properties", names.length, "object properties");
    const outProps: Obj = {};
    for (const name of names) {
      spend(ctx, "stringChars", name.length, "characters of names and enum values");
      const child = convert(
        props[name],
        ctx,
        `${path}/properties/${name}`,
        objectDepth + 1,
        depth + 1,
        defsKey,
      );
      putOwn(outProps, name, !required.includes(name) && !acceptsNull(child) ? withNull(child) : child);
    }
    out.properties = outProps;
    out.required = names;
    out.additionalProperties = false;
  } else if (node.properties !== undefined || node.required !== undefined) {
    refuse("invalid_schema", `properties on a non-object at ${path}`);
  }

  if (types.includes("array")) {
    if (node.items === undefined) refuse("array_without_items", `an array with no items at ${path}`);
    if (Array.isArray(node.items)) refuse("unsupported_keyword", `tuple items at ${path}`);
    out.items = convert(node.items, ctx, `${path}/items`, objectDepth, depth + 1, defsKey);
  }
  return out;
}

/** A keyword that constrains values (as opposed to an annotation or an unknown keyword). */
function isValidationKeyword(key: string): boolean {
  return (
    key === "type" ||
    key === "enum" ||
    key === "const" ||
    key === "properties" ||
    key === "required" ||
    key === "additionalProperties" ||
    key === "items" ||
    key === "format" ||
    key === "anyOf" ||
    key === "$ref" ||
    (STRICT_CONSTRAINTS as readonly string[]).includes(key)
  );
}

function decodePointer(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function acceptsNull(schema: Obj): boolean {
  if (typeIncludes(schema.type, "null")) {
    return !Array.isArray(schema.enum) || schema.enum.includes(null);
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((b) => isObj(b) && acceptsNull(b));
  return false;
}

/** The schema, or null: a type union when that is exact, else an `anyOf` with a null branch. */
function withNull(schema: Obj): Obj {
  if (schema.$ref === undefined && schema.anyOf === undefined && schema.const === undefined) {
    const types = typeList(schema.type);
    const out: Obj = { ...schema, type: types.includes("null") ? types : [...types, "null"] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const { description, title, ...rest } = schema;
  const out: Obj = {};
  if (description !== undefined) out.description = description;
  if (title !== undefined) out.title = title;
  out.anyOf = [rest, { type: "null" }];
  return out;
}
