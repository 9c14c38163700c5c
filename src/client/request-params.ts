import { isObject, type JsonObject } from "../shared/guards.js";
import { OptionError } from "../shared/option-error.js";
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

/** `prompts/get` params from `getPrompt`'s arguments, checked (a `TypeError` names a bad one). */
export function promptParams(name: unknown, args: Record<string, unknown> | undefined): JsonObject {
  if (typeof name !== "string" || name.length === 0)
    throw new TypeError("conduit-mcp: prompt name must be a string");
  if (args !== undefined && !isObject(args))
    throw new TypeError("conduit-mcp: prompt arguments must be an object");
  const params: JsonObject = { name };
  const strArgs = promptArguments(args);
  if (strArgs) params.arguments = strArgs;
  return params;
}

/** `completion/complete` params: the reference, the argument (checked) and the context, if any. */
export function completeParams(ref: JsonObject, argument: unknown, context: unknown): JsonObject {
  if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
    throw new TypeError("conduit-mcp: argument must be { name: string, value: string }");
  }
  const params: JsonObject = { ref, argument: { name: argument.name, value: argument.value } };
  if (context !== undefined) {
    if (!isObject(context)) throw new OptionError("context", "invalid", "an object");
    params.context = context;
  }
  return params;
}
