/**
 * The intake check of a tool's `inputSchema` and `outputSchema` (intake.ts): a schema is the
 * server's, untrusted, and the client validates with it later (output schemas, adapters), so it
 * is admitted only when
 * - it stays inside its own document: every `$ref` (`$dynamicRef`, `$recursiveRef`) and `$id` (`id`) is
 *   a local `#` fragment, and `$schema` is one of the JSON Schema drafts' own URIs. Nothing is
 *   ever fetched (the validator has no loader either); a reference elsewhere is refused here, with
 *   its reason, instead of failing every later validation;
 * - it is small enough to walk: at most {@link MAX_SCHEMA_NODES} JSON values in all. The walk is
 *   iterative and stops at the budget, so a 50 000-branch `anyOf` costs what the budget costs.
 */

/** The most JSON values (objects, arrays and every member of them) one tool schema may hold. */
export const MAX_SCHEMA_NODES = 10_000;

export type SchemaProblem = "schema_too_large" | "remote_schema_reference";

/** The JSON Schema metaschema URIs a `$schema` may name (draft-04 to 2020-12, http or https, `#` or not). */
const KNOWN_DRAFT =
  /^https?:\/\/json-schema\.org\/(?:draft-0[4-7]\/schema|draft\/20(?:19-09|20-12)\/schema)#?$/;

/**
 * Keywords whose string value is a reference or a base URI: only a fragment of this document is
 * allowed. `id` is draft-04's `$id`, which the validator honours too.
 */
const REFERENCE_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef", "$id", "id"] as const;

/** Keywords whose value is data (an instance), not a schema: a `$ref` inside one is just a value. */
const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples"]);

/** Why `schema` is refused at intake, or undefined. Never recurses, never throws. */
export function schemaProblem(schema: unknown): SchemaProblem | undefined {
  // Two stacks side by side: each value, and whether it sits where a schema does (its reference
  // keywords count) rather than inside data such as an `enum`.
  const stack: unknown[] = [schema];
  const isSchema: boolean[] = [true];
  let nodes = 0;
  while (stack.length > 0) {
    const node = stack.pop();
    const asSchema = isSchema.pop()!;
    if (++nodes > MAX_SCHEMA_NODES) return "schema_too_large";
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        stack.push(node[i]);
        isSchema.push(asSchema);
      }
      continue;
    }
    const o = node as Record<string, unknown>;
    if (asSchema && offDocument(o)) return "remote_schema_reference";
    for (const key in o) {
      stack.push(o[key]);
      isSchema.push(asSchema && !DATA_KEYWORDS.has(key));
    }
  }
  return undefined;
}

function offDocument(o: Record<string, unknown>): boolean {
  for (const key of REFERENCE_KEYWORDS) {
    const v = o[key];
    if (typeof v === "string" && !v.startsWith("#")) return true;
  }
  const s = o.$schema;
  return typeof s === "string" && !KNOWN_DRAFT.test(s);
}
