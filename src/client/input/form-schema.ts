/**
 * Form elicitation: the requested schema limited to the spec's flat primitive subset, the
 * fields that look like they ask for a secret, and the answer checked against the schema with
 * its defaults applied.
 */
import { isObject, type JsonObject } from "../../shared/guards.js";
import { isUnsafeKey } from "../../shared/keys.js";

/** A property of a flat form: one primitive, or a multi-select array of strings. */
type Property = JsonObject & { type: "string" | "number" | "integer" | "boolean" | "array" };

export interface FormSchema {
  properties: Record<string, Property>;
  required: string[];
}

const FORMATS = new Set(["email", "uri", "date", "date-time"]);
/** Keys whose values may be arrays or objects; any other key must hold a primitive (an annotation). */
const STRUCTURAL = new Set(["enum", "enumNames", "oneOf", "items", "default", "examples"]);
const MAX_FIELDS = 100;

/** The schema as a `FormSchema`, or a short reason it is not the flat primitive subset. */
export function checkFormSchema(schema: unknown): FormSchema | { invalid: string } {
  if (!isObject(schema)) return { invalid: "requestedSchema must be an object" };
  if (schema.type !== "object") return { invalid: 'requestedSchema.type must be "object"' };
  if (!isObject(schema.properties)) return { invalid: "requestedSchema.properties must be an object" };
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties" || k === "required") continue;
    if (k === "additionalProperties" && typeof v === "boolean") continue;
    if (typeof v === "object" && v !== null) return { invalid: `requestedSchema.${k} is not allowed` };
  }
  const names = Object.keys(schema.properties);
  if (names.length > MAX_FIELDS) return { invalid: `more than ${MAX_FIELDS} fields` };
  const properties: Record<string, Property> = {};
  for (const name of names) {
    // Answers are keyed by field name: a name no object can hold as data is refused.
    if (isUnsafeKey(name)) return { invalid: `field ${JSON.stringify(name)} is not allowed` };
    const p = schema.properties[name];
    const why = checkProperty(p);
    if (why) return { invalid: `field ${JSON.stringify(name.slice(0, 64))}: ${why}` };
    properties[name] = p as Property;
  }
  let required: string[] = [];
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required) || !schema.required.every((r) => typeof r === "string")) {
      return { invalid: "requestedSchema.required must be an array of strings" };
    }
    required = schema.required as string[];
    const unknown = required.find((r) => !Object.hasOwn(properties, r));
    if (unknown !== undefined)
      return { invalid: "requestedSchema.required names a field it does not define" };
  }
  return { properties, required };
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string");
}

function isOptions(v: unknown): v is Array<{ const: string; title?: string }> {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.every(
      (o) =>
        isObject(o) &&
        typeof o.const === "string" &&
        (o.title === undefined || typeof o.title === "string") &&
        Object.values(o).every((x) => typeof x !== "object" || x === null),
    )
  );
}

function checkProperty(p: unknown): string | null {
  if (!isObject(p)) return "not an object";
  for (const [k, v] of Object.entries(p)) {
    if (!STRUCTURAL.has(k) && typeof v === "object" && v !== null) return `${k} is not allowed`;
  }
  for (const k of ["title", "description"]) {
    if (p[k] !== undefined && typeof p[k] !== "string") return `${k} must be a string`;
  }
  for (const k of ["minLength", "maxLength", "minItems", "maxItems"]) {
    if (p[k] !== undefined && !(Number.isSafeInteger(p[k]) && (p[k] as number) >= 0)) {
      return `${k} must be a non-negative integer`;
    }
  }
  for (const k of ["minimum", "maximum"]) {
    if (p[k] !== undefined && !(typeof p[k] === "number" && Number.isFinite(p[k])))
      return `${k} must be a number`;
  }
  if (
    p.examples !== undefined &&
    !(Array.isArray(p.examples) && p.examples.every((x) => typeof x !== "object" || x === null))
  ) {
    return "examples must be an array of primitives";
  }
  switch (p.type) {
    case "string": {
      if (p.format !== undefined && !FORMATS.has(p.format as string)) return "unsupported format";
      if (p.enum !== undefined && !(isStringArray(p.enum) && p.enum.length > 0))
        return "enum must list strings";
      if (p.enumNames !== undefined && !isStringArray(p.enumNames)) return "enumNames must list strings";
      if (p.oneOf !== undefined && !isOptions(p.oneOf)) return "oneOf must list { const, title }";
      if (p.items !== undefined) return "items is not allowed on a string";
      if (p.default !== undefined && typeof p.default !== "string") return "default must be a string";
      return null;
    }
    case "number":
    case "integer":
      if (p.enum !== undefined || p.oneOf !== undefined || p.items !== undefined) return "not a primitive";
      if (p.default !== undefined && !(typeof p.default === "number" && Number.isFinite(p.default))) {
        return "default must be a number";
      }
      return null;
    case "boolean":
      if (p.enum !== undefined || p.oneOf !== undefined || p.items !== undefined) return "not a primitive";
      if (p.default !== undefined && typeof p.default !== "boolean") return "default must be a boolean";
      return null;
    case "array": {
      // Only the multi-select enum: items { type: "string", enum } or { anyOf: [{ const, title }] }.
      const items = p.items;
      if (!isObject(items)) return "a multi-select needs items";
      const untitled =
        items.type === "string" &&
        isStringArray(items.enum) &&
        items.enum.length > 0 &&
        Object.keys(items).every((k) => k === "type" || k === "enum");
      const titled = isOptions(items.anyOf) && Object.keys(items).every((k) => k === "anyOf" || k === "type");
      if (!untitled && !titled) return "items must be a string enum";
      if (p.enum !== undefined || p.oneOf !== undefined) return "not a multi-select";
      if (p.default !== undefined && !isStringArray(p.default)) return "default must list strings";
      return null;
    }
    default:
      return "type must be string, number, integer, boolean or array (multi-select)";
  }
}

/** The values a field may take, for enums (single or multi-select); undefined when free. */
export function choicesOf(p: Property): string[] | undefined {
  if (p.type === "array") {
    const items = p.items as JsonObject;
    if (Array.isArray(items.enum)) return items.enum as string[];
    return (items.anyOf as Array<{ const: string }>).map((o) => o.const);
  }
  if (Array.isArray(p.enum)) return p.enum as string[];
  if (Array.isArray(p.oneOf)) return (p.oneOf as Array<{ const: string }>).map((o) => o.const);
  return undefined;
}

/** Display labels for a field's choices (titles where the schema gives them). */
export function choiceLabels(p: Property): Array<{ value: string; label: string }> | undefined {
  const values = choicesOf(p);
  if (!values) return undefined;
  let titles: Array<string | undefined> = [];
  if (p.type === "array") {
    const anyOf = (p.items as JsonObject).anyOf;
    if (Array.isArray(anyOf)) titles = anyOf.map((o) => (o as { title?: string }).title);
  } else if (Array.isArray(p.oneOf)) {
    titles = (p.oneOf as Array<{ title?: string }>).map((o) => o.title);
  } else if (Array.isArray(p.enumNames)) {
    titles = p.enumNames as string[];
  }
  return values.map((value, i) => ({ value, label: titles[i] ?? value }));
}

const SENSITIVE =
  /pass(?:word|phrase|code|wd)?\b|passw|pwd|\bpin\b|token|secret|api[\s_-]?key|apikey|access[\s_-]?key|private[\s_-]?key|credential|\bssn\b|social[\s_-]?security|card|\bcvv\b|\bcvc\b|\biban\b|account[\s_-]?number|routing[\s_-]?number|\botp\b|one[\s_-]?time|2fa|mfa|auth(?:orization)?[\s_-]?code|session[\s_-]?id|cookie|bearer/i;

/**
 * A clause that tells the user what not to give ("do not give us your phone number, pin, ...")
 * names secrets without asking for one: it runs to the end of its sentence or parenthesis.
 */
const NEGATED_CLAUSE = /\b(?:do not|don't|dont|never|no need to|not)\b[^.;:!?()]*/gi;

/** True when a field's name, title or description looks like it asks for a secret. */
export function looksSensitive(name: string, p: JsonObject): boolean {
  const words = (s: string) => s.replace(/([a-z])([A-Z])/g, "$1 $2").replace(NEGATED_CLAUSE, " ");
  const text = [name, p.title, p.description]
    .filter((x): x is string => typeof x === "string")
    .map(words)
    .join(" | ");
  return SENSITIVE.test(text) || p.format === "password";
}

export function fieldsOf(schema: FormSchema): Record<string, { sensitiveSuspected: boolean }> {
  const fields: Record<string, { sensitiveSuspected: boolean }> = {};
  for (const [name, p] of Object.entries(schema.properties)) {
    fields[name] = { sensitiveSuspected: looksSensitive(name, p) };
  }
  return fields;
}

/**
 * A form `accept`'s content checked against the schema: unknown fields refused, missing fields
 * with a `default` filled in with it, required fields present, each value of its field's type
 * and within its bounds. Returns the content to send, or why it does not fit.
 */
export function checkFormAnswer(
  schema: FormSchema,
  content: unknown,
): { ok: JsonObject } | { invalid: string } {
  if (content === undefined) content = {};
  if (!isObject(content)) return { invalid: "content must be an object" };
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(content)) {
    const p = schema.properties[name];
    if (!p || !Object.hasOwn(schema.properties, name))
      return { invalid: "content has a field the schema does not define" };
    const why = checkValue(p, value);
    if (why) return { invalid: `field ${JSON.stringify(name.slice(0, 64))}: ${why}` };
    out[name] = value;
  }
  for (const [name, p] of Object.entries(schema.properties)) {
    if (!Object.hasOwn(out, name) && p.default !== undefined) out[name] = structuredClone(p.default);
  }
  for (const name of schema.required) {
    if (!Object.hasOwn(out, name))
      return { invalid: `required field ${JSON.stringify(name.slice(0, 64))} is missing` };
  }
  return { ok: out };
}

function checkValue(p: Property, v: unknown): string | null {
  const choices = choicesOf(p);
  switch (p.type) {
    case "string": {
      if (typeof v !== "string") return "must be a string";
      const len = [...v].length;
      if (typeof p.minLength === "number" && len < p.minLength) return "too short";
      if (typeof p.maxLength === "number" && len > p.maxLength) return "too long";
      if (choices && !choices.includes(v)) return "not one of the choices";
      if (typeof p.format === "string" && !fitsFormat(p.format, v)) return `not a valid ${p.format}`;
      return null;
    }
    case "number":
    case "integer": {
      if (typeof v !== "number" || !Number.isFinite(v)) return "must be a number";
      if (p.type === "integer" && !Number.isInteger(v)) return "must be an integer";
      if (typeof p.minimum === "number" && v < p.minimum) return "below the minimum";
      if (typeof p.maximum === "number" && v > p.maximum) return "above the maximum";
      return null;
    }
    case "boolean":
      return typeof v === "boolean" ? null : "must be a boolean";
    case "array": {
      if (!isStringArray(v)) return "must be an array of strings";
      if (choices && !v.every((x) => choices.includes(x))) return "not one of the choices";
      if (typeof p.minItems === "number" && v.length < p.minItems) return "too few items";
      if (typeof p.maxItems === "number" && v.length > p.maxItems) return "too many items";
      return null;
    }
  }
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

function fitsFormat(format: string, v: string): boolean {
  switch (format) {
    case "email":
      return /^[^\s@]+@[^\s@]+$/.test(v);
    case "uri":
      return URL.canParse(v);
    case "date": {
      const m = DATE.exec(v);
      if (!m) return false;
      const d = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(d.getTime()) && d.getUTCDate() === Number(m[3]);
    }
    case "date-time":
      return DATE_TIME.test(v) && !Number.isNaN(Date.parse(v));
    default:
      return true;
  }
}
