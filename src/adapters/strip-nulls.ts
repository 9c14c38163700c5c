import { putOwn } from "./own-property.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** How deep a value is followed; below it nothing is stripped (the validator then judges it). */
const MAX_DEPTH = 128;

/**
 * A copy of a model's `value` without the `null`s strict mode makes it send: a property the
 * tool's original `schema` leaves optional and whose schema does not take `null`, sent as
 * `null`, is taken out (strict mode makes every property required, the optional ones
 * nullable, and the model must send something). Read from the original schema, not from how the
 * tool was handed out: whatever adapter, strict mode or process listed it, and whatever the
 * property's type. A `null` the original schema allows, or at a required property, is left for
 * the validator. At any depth: nested objects, arrays of them, local `$ref`s; in an `anyOf` or
 * `oneOf`, an object follows the one branch whose properties hold all its keys (exactly, first).
 */
export function stripOptionalNulls(value: unknown, schema: unknown): unknown {
  return strip(value, schema, schema, 0);
}

function strip(value: unknown, schema: unknown, root: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || !isObj(schema)) return value;
  let out = value;
  if (schema.$ref !== undefined) out = strip(out, resolve(schema.$ref, root), root, depth + 1);
  for (const key of ["anyOf", "oneOf"] as const) {
    const branch = pickBranch(out, schema[key], root);
    if (branch !== undefined) out = strip(out, branch, root, depth + 1);
  }
  if (Array.isArray(out) && isObj(schema.items)) {
    const items = schema.items;
    return out.map((v) => strip(v, items, root, depth + 1));
  }
  if (!isObj(out) || !isObj(schema.properties)) return out;
  const properties = schema.properties;
  const required = Array.isArray(schema.required) ? schema.required : [];
  const copy: Obj = {};
  for (const [key, v] of Object.entries(out)) {
    const child = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (child === undefined) {
      putOwn(copy, key, v);
      continue;
    }
    if (v === null && !required.includes(key) && refusesNull(child, root, 0)) continue;
    putOwn(copy, key, strip(v, child, root, depth + 1));
  }
  return copy;
}

/** The branch an object value belongs to: the one whose properties are its keys, else the one holding them all. */
function pickBranch(value: unknown, branches: unknown, root: unknown): unknown {
  if (!isObj(value) || !Array.isArray(branches)) return undefined;
  const keys = Object.keys(value);
  const named = branches.map((b) => {
    const target = isObj(b) && b.$ref !== undefined ? resolve(b.$ref, root) : b;
    return {
      branch: b,
      names: isObj(target) && isObj(target.properties) ? Object.keys(target.properties) : null,
    };
  });
  const holding = named.filter((n) => n.names !== null && keys.every((k) => n.names!.includes(k)));
  const exact = holding.filter((n) => n.names!.length === keys.length);
  if (exact.length === 1) return exact[0]!.branch;
  return holding.length === 1 ? holding[0]!.branch : undefined;
}

/** Whether `schema` surely refuses `null` (when unsure, false: the null is then kept). */
function refusesNull(schema: unknown, root: unknown, depth: number): boolean {
  if (schema === false) return true;
  if (!isObj(schema) || depth > MAX_DEPTH) return false;
  if (schema.$ref !== undefined && refusesNull(resolve(schema.$ref, root), root, depth + 1)) return true;
  const type = schema.type;
  if (typeof type === "string" && type !== "null") return true;
  if (Array.isArray(type) && !type.includes("null")) return true;
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) return true;
  if (schema.const !== undefined && schema.const !== null) return true;
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      if (branches.every((b) => refusesNull(b, root, depth + 1))) return true;
    }
  }
  return Array.isArray(schema.allOf) && schema.allOf.some((b) => refusesNull(b, root, depth + 1));
}

/** A local `$ref` (`#`, `#/$defs/name`, any JSON pointer into the schema), or undefined. */
function resolve(ref: unknown, root: unknown): unknown {
  if (typeof ref !== "string" || !ref.startsWith("#")) return undefined;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node = root;
  for (const raw of ref.slice(2).split("/")) {
    let token: string;
    try {
      token = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    } catch {
      return undefined;
    }
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, token)) return undefined;
    node = (node as Obj)[token];
  }
  return node;
}
