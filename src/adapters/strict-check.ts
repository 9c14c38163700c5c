import {
  OPENAI_STRICT_LIMITS as LIMITS,
  STRICT_FORMATS,
  STRICT_KEYWORDS,
  STRICT_TYPES,
} from "./openai-limits.js";

/**
 * Checks a schema against OpenAI's documented strict-mode rules (openai-limits.ts) and returns
 * every problem found, or `[]`. Written apart from the converter, from the rules alone, so a
 * test can hold the converter's output to them.
 */
export function checkStrictSchema(schema: unknown): string[] {
  const problems: string[] = [];
  const totals = { properties: 0, stringChars: 0, enumValues: 0 };
  if (!isObj(schema)) return ["the root is not an object schema"];
  if (schema.type !== "object") problems.push('the root\'s type is not "object"');
  if (schema.anyOf !== undefined) problems.push("the root uses anyOf");
  const defs = isObj(schema.$defs) ? schema.$defs : isObj(schema.definitions) ? schema.definitions : {};
  for (const name of Object.keys(defs)) totals.stringChars += name.length;

  const walk = (node: unknown, path: string, objectDepth: number, depth: number): void => {
    if (depth > 64) {
      problems.push(`${path}: nested too deep to check`);
      return;
    }
    if (!isObj(node)) {
      problems.push(`${path || "/"}: not a schema object`);
      return;
    }
    for (const key of Object.keys(node)) {
      if (!STRICT_KEYWORDS.has(key)) problems.push(`${path || "/"}: keyword "${key}" is not supported`);
    }
    if ((node.$defs !== undefined || node.definitions !== undefined) && path !== "") {
      problems.push(`${path}: definitions below the root`);
    }
    if (node.$ref !== undefined) {
      const ref = node.$ref;
      const ok =
        ref === "#" ||
        (typeof ref === "string" &&
          (ref.startsWith("#/$defs/") || ref.startsWith("#/definitions/")) &&
          Object.hasOwn(defs, ref.slice(ref.indexOf("/", 2) + 1)));
      if (!ok) problems.push(`${path || "/"}: $ref ${String(ref)} does not name a definition`);
      return;
    }
    if (node.anyOf !== undefined) {
      if (!Array.isArray(node.anyOf) || node.anyOf.length === 0)
        problems.push(`${path}: anyOf is not a list`);
      else for (const [i, b] of node.anyOf.entries()) walk(b, `${path}/anyOf/${i}`, objectDepth, depth + 1);
      return;
    }
    const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type : [];
    if (types.length === 0) problems.push(`${path || "/"}: no type`);
    for (const t of types) if (!STRICT_TYPES.has(t)) problems.push(`${path || "/"}: type ${String(t)}`);
    if (node.format !== undefined && !STRICT_FORMATS.has(node.format as string)) {
      problems.push(`${path}: format ${String(node.format)} is not supported`);
    }
    if (node.enum !== undefined) {
      if (!Array.isArray(node.enum)) problems.push(`${path}: enum is not a list`);
      else {
        totals.enumValues += node.enum.length;
        const strings = node.enum.filter((v) => typeof v === "string") as string[];
        const chars = node.enum.reduce((n: number, v) => n + (v === null ? 0 : String(v).length), 0);
        totals.stringChars += chars;
        if (strings.length > LIMITS.largeEnumValues && chars > LIMITS.maxLargeEnumChars) {
          problems.push(
            `${path}: an enum of more than ${LIMITS.largeEnumValues} strings is over the size limit`,
          );
        }
      }
    }
    if (node.const !== undefined) totals.stringChars += String(node.const).length;
    if (types.includes("object")) {
      if (objectDepth > LIMITS.maxObjectDepth) problems.push(`${path}: more than 10 levels of nesting`);
      if (node.additionalProperties !== false)
        problems.push(`${path || "/"}: additionalProperties is not false`);
      const props = isObj(node.properties) ? node.properties : null;
      if (props === null) problems.push(`${path || "/"}: no properties`);
      const names = props === null ? [] : Object.keys(props);
      const required = Array.isArray(node.required) ? node.required : [];
      for (const n of names)
        if (!required.includes(n)) problems.push(`${path || "/"}: "${n}" is not required`);
      for (const r of required)
        if (!names.includes(r as string)) problems.push(`${path || "/"}: "${r}" is unknown`);
      totals.properties += names.length;
      for (const n of names) {
        totals.stringChars += n.length;
        walk(props![n], `${path}/properties/${n}`, objectDepth + 1, depth + 1);
      }
    }
    if (types.includes("array")) {
      if (!isObj(node.items)) problems.push(`${path}: an array needs an items schema`);
      else walk(node.items, `${path}/items`, objectDepth, depth + 1);
    }
  };

  walk({ ...schema, $defs: undefined, definitions: undefined }, "", 1, 0);
  for (const [name, def] of Object.entries(defs)) walk(def, `/$defs/${name}`, 1, 1);
  if (totals.properties > LIMITS.maxProperties) problems.push(`more than ${LIMITS.maxProperties} properties`);
  if (totals.stringChars > LIMITS.maxStringChars)
    problems.push(`more than ${LIMITS.maxStringChars} characters`);
  if (totals.enumValues > LIMITS.maxEnumValues)
    problems.push(`more than ${LIMITS.maxEnumValues} enum values`);
  return problems;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
