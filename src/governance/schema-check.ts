import type { JsonObject } from "../protocol/guards.js";

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
interface AjvLike {
  compile(schema: object): Validate;
}

/** Ajv is loaded only when a hook changes arguments: the client's import time does not grow. */
let ajv: Promise<AjvLike> | undefined;
const compiled = new WeakMap<object, Validate | null>();

async function loadAjv(): Promise<AjvLike> {
  const mod = (await import("ajv/dist/2020.js")) as unknown as {
    default: (new (o: object) => AjvLike) & { default?: new (o: object) => AjvLike };
  };
  const Ajv2020 = mod.default.default ?? mod.default;
  // Formats are hints, not checks here; unknown keywords (x-mcp-header) are a server's own.
  return new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
}

/**
 * Whether `args` satisfy a tool's input schema: `"ok"`, `"invalid"`, or `"unusable"` when the
 * schema cannot be compiled (a changed call cannot be shown to be safe, so the caller refuses).
 * The schema's `$schema` is set aside: servers still name draft-07, which these schemas keep to.
 */
export async function checkArguments(
  schema: JsonObject,
  args: Record<string, unknown>,
): Promise<"ok" | "invalid" | "unusable"> {
  let validate = compiled.get(schema);
  if (validate === undefined) {
    ajv ??= loadAjv();
    const { $schema: _dialect, ...rest } = schema;
    try {
      validate = (await ajv).compile(rest);
    } catch {
      validate = null;
    }
    compiled.set(schema, validate);
  }
  if (validate === null) return "unusable";
  return validate(args) ? "ok" : "invalid";
}
