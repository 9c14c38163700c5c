import { putOwn } from "./own-property.js";
import type { NullPlan, RootPlan } from "./strict-schema.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** How deep a value is followed; below it nothing is stripped (the validator then judges it). */
const MAX_DEPTH = 128;

/**
 * A copy of `value` without the `null`s the strict conversion added: a property whose null the
 * plan records, sent as `null`, is taken out (it was optional, and the model had to send
 * something). A `null` the original schema allows is left alone. In an `anyOf`, an object follows
 * the branch whose property names are exactly its keys (strict objects list every property).
 */
export function stripAddedNulls(value: unknown, plan: RootPlan): unknown {
  return strip(value, plan.root, plan, 0);
}

function strip(value: unknown, node: NullPlan, root: RootPlan, depth: number): unknown {
  if (depth > MAX_DEPTH) return value;
  if (node.ref !== undefined) {
    const target = node.ref === "#" ? root.root : root.defs[node.ref];
    return target === undefined ? value : strip(value, target, root, depth + 1);
  }
  if (node.anyOf !== undefined) {
    const branch = isObj(value)
      ? (node.anyOf.find((b) => b.keys !== null && sameKeys(b.keys, value)) ??
        (node.anyOf.length === 1 ? node.anyOf[0] : undefined))
      : node.anyOf.find((b) => b.keys === null);
    return branch === undefined ? value : strip(value, branch.plan, root, depth + 1);
  }
  if (Array.isArray(value)) {
    const items = node.items;
    return items === undefined ? value : value.map((v) => strip(v, items, root, depth + 1));
  }
  if (!isObj(value) || (node.added === undefined && node.properties === undefined)) return value;
  const out: Obj = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null && node.added?.includes(key)) continue;
    const child = node.properties?.[key];
    putOwn(out, key, child === undefined ? v : strip(v, child, root, depth + 1));
  }
  return out;
}

function sameKeys(keys: string[], value: Obj): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && own.every((k) => keys.includes(k));
}
