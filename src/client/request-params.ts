import { isObject, type JsonObject } from "../shared/guards.js";
import type { CompletionRef } from "./types.js";

/**
 * `prompts/get` arguments as the spec wants them: strings. Objects become JSON, other values
 * their string form; null and undefined are dropped. Undefined when none are left.
 */
export function promptArguments(
  args: Record<string, unknown> | undefined,
): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const [k, v] of Object.entries(args ?? {})) {
    if (v === null || v === undefined) continue;
    out ??= {};
    out[k] = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
  }
  return out;
}

/** A completion reference in any of its accepted forms, as the wire's `ref/prompt` or `ref/resource`. */
export function toWireRef(input: CompletionRef): JsonObject {
  const ref: JsonObject | undefined = isObject(input) ? input : undefined;
  if (ref) {
    if (ref.type === "ref/prompt" && typeof ref.name === "string")
      return { type: "ref/prompt", name: ref.name };
    if (ref.type === "ref/resource" && typeof ref.uri === "string")
      return { type: "ref/resource", uri: ref.uri };
    if (typeof ref.prompt === "string") return { type: "ref/prompt", name: ref.prompt };
    if (typeof ref.resource === "string") return { type: "ref/resource", uri: ref.resource };
  }
  throw new TypeError(
    "conduit-mcp: ref must be { prompt: name }, { resource: uriTemplate } or a wire reference",
  );
}
