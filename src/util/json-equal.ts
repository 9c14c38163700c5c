import { stableJson } from "./stable-json.js";

/**
 * Whether two values are the same JSON whatever their key order: exactly
 * `stableJson(a) === stableJson(b)`, without writing either. Two parses of one text (the usual
 * case: a listing against the previous one) are walked in step, allocating only one key list per
 * object; anything else by an exact walk that allocates nothing. `ignore` names top-level keys
 * left out of the comparison (a tool's `serverId` and `meta`).
 *
 * Values that are not plain data (a `toJSON` method, a BigInt, nesting deeper than
 * {@link MAX_WALK}, which a cycle reaches) are compared by `stableJson` itself, so the answer is
 * the one `stableJson` gives; where that would throw (a cycle, a BigInt), this throws the same
 * TypeError, unless a difference found first already settles the answer as false.
 */
export function jsonEqual(a: unknown, b: unknown, ignore?: readonly string[]): boolean {
  // Parsed JSON first: a lean walk that answers for plain data and gives up on anything else.
  const quick = plainTop(a, b, ignore);
  if (quick !== UNSURE) return quick === YES;
  // At the top, a value JSON cannot write is no JSON at all (stableJson gives undefined).
  if (isOmitted(a) || isOmitted(b)) return isOmitted(a) && isOmitted(b);
  if (ignore === undefined || !isPlainObject(a) || !isPlainObject(b) || hasToJson(a) || hasToJson(b)) {
    if (ignore !== undefined && isPlainObject(a) && isPlainObject(b)) {
      return stableJson(without(a, ignore)) === stableJson(without(b, ignore));
    }
    const r = same(a, b, 0);
    return r === UNSURE ? stableJson(a) === stableJson(b) : r === YES;
  }
  const r = sameObjects(a, b, 0, ignore);
  return r === UNSURE ? stableJson(without(a, ignore)) === stableJson(without(b, ignore)) : r === YES;
}

/** Deeper than this, the walk stops and `stableJson` decides (it reports a cycle as JSON.stringify does). */
const MAX_WALK = 512;

const NO = 0;
const YES = 1;
const UNSURE = 2;
type Answer = typeof NO | typeof YES | typeof UNSURE;

function hasToJson(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === "function";
}

const isEnumerable = Object.prototype.propertyIsEnumerable;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function without(o: Record<string, unknown>, ignore: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) if (!ignore.includes(k)) out[k] = o[k];
  return out;
}

/** What JSON writes in place of a value it cannot write: nothing in an object, `null` in an array. */
function isOmitted(v: unknown): boolean {
  return v === undefined || typeof v === "function" || typeof v === "symbol";
}

function same(a: unknown, b: unknown, depth: number): Answer {
  if (a === b) {
    // Objects still need a look: the same object holding a toJSON or a cycle is stableJson's case.
    if (typeof a !== "object" || a === null) return typeof a === "bigint" ? UNSURE : YES;
  }
  const ta = typeof a;
  const tb = typeof b;
  if (ta === "object" && a !== null && tb === "object" && b !== null) {
    if (depth >= MAX_WALK) return UNSURE;
    if (hasToJson(a as object) || hasToJson(b as object)) return UNSURE;
    const arr = Array.isArray(a);
    if (arr !== Array.isArray(b)) return NO;
    if (arr) return sameArrays(a as unknown[], b as unknown[], depth);
    return sameObjects(a as Record<string, unknown>, b as Record<string, unknown>, depth, undefined);
  }
  if (ta === "bigint" || tb === "bigint") return UNSURE;
  if (ta === "object" && a !== null) return hasToJson(a as object) ? UNSURE : NO;
  if (tb === "object" && b !== null) return hasToJson(b as object) ? UNSURE : NO;
  // Two scalars (or nulls, or values JSON leaves out) that are not identical.
  if (ta === "number" && tb === "number") {
    // Non-finite numbers are written as null; -0 === 0 already.
    return !Number.isFinite(a as number) && !Number.isFinite(b as number) ? YES : NO;
  }
  return asNull(a) && asNull(b) ? YES : NO;
}

/** Written as `null` (in an array): null, a non-finite number, or a value JSON leaves out. */
function asNull(v: unknown): boolean {
  return v === null || isOmitted(v) || (typeof v === "number" && !Number.isFinite(v));
}

function sameArrays(a: unknown[], b: unknown[], depth: number): Answer {
  if (a.length !== b.length) return NO;
  let unsure = false;
  for (let i = 0; i < a.length; i++) {
    const r = same(a[i], b[i], depth + 1);
    if (r === NO) return NO;
    if (r === UNSURE) unsure = true;
  }
  return unsure ? UNSURE : YES;
}

function sameObjects(
  a: Record<string, unknown>,
  b: Record<string, unknown>,
  depth: number,
  ignore: readonly string[] | undefined,
): Answer {
  if (depth >= MAX_WALK) return UNSURE;
  let unsure = false;
  let count = 0;
  for (const k in a) {
    if (!Object.hasOwn(a, k)) continue;
    const va = a[k];
    if (isOmitted(va) || ignore?.includes(k)) continue;
    count++;
    if (!isEnumerable.call(b, k)) return NO;
    const vb = b[k];
    if (isOmitted(vb)) return NO;
    const r = same(va, vb, depth + 1);
    if (r === NO) return NO;
    if (r === UNSURE) unsure = true;
  }
  // b holds each of those keys as its own enumerable key: if it lists no other, it is the same
  // object (the usual case, counted without reading a value); else count what JSON would write.
  let listed = 0;
  for (const _ in b) listed++;
  if (ignore === undefined && listed === count) return unsure ? UNSURE : YES;
  for (const k in b) {
    if (!Object.hasOwn(b, k) || isOmitted(b[k]) || ignore?.includes(k)) continue;
    count--;
  }
  if (count !== 0) return NO;
  return unsure ? UNSURE : YES;
}

// The lean walk, for what listings are: parsed JSON, two objects with the same keys in the same
// order (JSON.parse of the same text gives that). Object.keys gives each side's own enumerable
// keys (what JSON writes), so walking them in step needs no own-key lookup per key, which was
// most of the exact walk's cost. It answers YES or NO only where the exact walk would; anything
// else (a toJSON, a `__proto__` key, a value JSON leaves out, keys in another order or number)
// is UNSURE, and the exact walk decides.

function plainTop(a: unknown, b: unknown, ignore: readonly string[] | undefined): Answer {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return UNSURE;
  if (!noInheritedKeys()) return UNSURE;
  if (ignore === undefined) return plainObject(a, b, 0);
  if (Array.isArray(a) || Array.isArray(b) || hasToJson(a) || hasToJson(b)) return UNSURE;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  let j = 0;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i] as string;
    if (ignore.includes(k)) continue;
    while (j < kb.length && ignore.includes(kb[j] as string)) j++;
    if (k !== kb[j] || k === "__proto__") return UNSURE;
    j++;
    const r = plainValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], 1);
    if (r !== YES) return r;
  }
  while (j < kb.length && ignore.includes(kb[j] as string)) j++;
  return j === kb.length ? YES : UNSURE;
}

function plainValue(a: unknown, b: unknown, depth: number): Answer {
  if (a === b) {
    const t = typeof a;
    if (t === "string" || t === "boolean" || a === null) return YES;
    if (t === "object") return plainObject(a as object, b as object, depth);
    return t === "number" && Number.isFinite(a) ? YES : UNSURE;
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    return plainObject(a, b, depth);
  }
  // Two different strings are the one difference between scalars this walk settles.
  return typeof a === "string" && typeof b === "string" ? NO : UNSURE;
}

function plainObject(a: object, b: object, depth: number): Answer {
  if (depth >= MAX_WALK || hasToJson(a) || hasToJson(b)) return UNSURE;
  if (Array.isArray(a)) {
    if (!Array.isArray(b)) return UNSURE;
    const n = a.length;
    if (n !== b.length) return NO;
    for (let i = 0; i < n; i++) {
      const r = plainValue(a[i], b[i], depth + 1);
      if (r !== YES) return r;
    }
    return YES;
  }
  if (Array.isArray(b) || protoOf(a) !== OBJECT_PROTO) return UNSURE;
  // for-in over `a` (Object.prototype checked at the top) yields its own enumerable keys; they
  // must be b's own enumerable keys, in the same order.
  const kb = Object.keys(b);
  let i = 0;
  for (const k in a) {
    if (k !== kb[i] || k === "__proto__") return UNSURE;
    i++;
    const r = plainValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], depth + 1);
    if (r !== YES) return r;
  }
  return i === kb.length ? YES : UNSURE;
}

const OBJECT_PROTO = Object.prototype;
const protoOf = Object.getPrototypeOf;

/** Whether Object.prototype has no enumerable key (so for-in over a plain object lists only its own). */
function noInheritedKeys(): boolean {
  for (const _ in OBJECT_PROTO) return false;
  return true;
}
