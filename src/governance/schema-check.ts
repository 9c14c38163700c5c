import { validateJson } from "../schema/validator.js";
import type { JsonObject } from "../shared/guards.js";

/** What the shared validator says when it could not judge at all (the schema is at fault). */
const UNUSABLE =
  /^(schema refused:|the schema (recurses without end|cannot be applied|is not a JSON Schema object))/;

/**
 * Whether `args` satisfy a tool's input schema: `"ok"`, `"invalid"`, or `"unusable"` when the
 * schema cannot be applied (refused as hostile, uncompilable, an unresolvable `$ref`): a changed
 * call cannot then be shown to be safe, so the caller refuses it. The validator is the client's
 * shared one (loaded on first use only).
 */
export async function checkArguments(
  schema: JsonObject,
  args: Record<string, unknown>,
): Promise<"ok" | "invalid" | "unusable"> {
  const outcome = await validateJson(schema, args);
  if (outcome.valid) return "ok";
  return outcome.errors.length === 1 && UNUSABLE.test(outcome.errors[0]!) ? "unusable" : "invalid";
}
