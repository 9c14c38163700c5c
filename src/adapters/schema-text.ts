import { sanitizeText } from "../shared/sanitize.js";
import { putOwn } from "./own-property.js";

/** Longest `description` or `title` inside a schema that reaches a model. */
export const MAX_SCHEMA_TEXT = 1024;

// Values under these keys are data, not schemas: a "description" key inside them is not text
// for the model and must stay as the server wrote it.
const DATA_KEYS = new Set(["const", "enum", "default", "examples"]);

/**
 * A copy of a schema whose `description` and `title` strings are sanitised and clamped (they are
 * server text on their way to a model). Walks with an explicit stack, so no depth overflows it.
 */
export function sanitizeSchemaText(schema: Record<string, unknown>): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const stack: Array<[src: unknown, dst: Record<string, unknown> | unknown[]]> = [[schema, root]];
  while (stack.length > 0) {
    const [src, dst] = stack.pop()!;
    const entries: Array<[string | number, unknown]> = Array.isArray(src)
      ? src.map((v, i) => [i, v])
      : Object.entries(src as object);
    for (const [key, value] of entries) {
      let out: unknown = value;
      if (typeof key === "string" && DATA_KEYS.has(key)) out = value;
      else if ((key === "description" || key === "title") && typeof value === "string") {
        out = sanitizeText(value, { keepNewlines: true, maxLength: MAX_SCHEMA_TEXT });
      } else if (typeof value === "object" && value !== null) {
        out = Array.isArray(value) ? [] : {};
        stack.push([value, out as Record<string, unknown> | unknown[]]);
      }
      if (Array.isArray(dst)) dst.push(out);
      else putOwn(dst, key as string, out);
    }
  }
  return root;
}
