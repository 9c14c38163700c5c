/**
 * JSON with object keys sorted, so two equal values give one string whatever their key order.
 *
 * The output is exactly `JSON.stringify` of the value with every plain object's own enumerable
 * keys in `Array.prototype.sort` order (UTF-16 code units), except that array-index keys ("0",
 * "10") come first in numeric order, as JSON.stringify writes them for any object: `toJSON` is honoured, `undefined`,
 * functions and symbols are left out of objects and are `null` in arrays, non-finite numbers are
 * `null`, a boxed primitive is an object like any other, a cycle is a `TypeError`, and a top-level value JSON cannot write gives `undefined`.
 * It writes one string as it walks, with no sorted copy of each object (a copy per object was
 * most of a 1 000-tool listing's time): the tool fingerprints and the governance digest use it.
 */
export function stableJson(value: unknown): string {
  return write(value, "", []) as string;
}

function write(value: unknown, key: string, stack: object[]): string | undefined {
  let v = value;
  if (v !== null && (typeof v === "object" || typeof v === "bigint")) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, key);
  }
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "number":
      return Number.isFinite(v) ? String(v) : "null";
    case "boolean":
      return v ? "true" : "false";
    case "object":
      break;
    case "bigint":
      return JSON.stringify(v); // throws the TypeError JSON.stringify throws for a BigInt
    default:
      return undefined; // undefined, functions and symbols
  }
  if (v === null) return "null";
  if (stack.includes(v)) throw new TypeError("Converting circular structure to JSON");
  stack.push(v);
  let out: string;
  if (Array.isArray(v)) {
    out = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out += ",";
      out += write(v[i], String(i), stack) ?? "null";
    }
    out += "]";
  } else {
    const o = v as Record<string, unknown>;
    const keys = sortedKeys(o);
    out = "{";
    let first = true;
    for (const k of keys) {
      const s = write(o[k], k, stack);
      if (s === undefined) continue;
      out += first ? `${JSON.stringify(k)}:${s}` : `,${JSON.stringify(k)}:${s}`;
      first = false;
    }
    out += "}";
  }
  stack.pop();
  return out;
}

/**
 * The keys as JSON.stringify writes an object built from the sorted keys: array-index keys first
 * (Object.keys already lists them first, in numeric order; no object can hold them otherwise),
 * then the others sorted.
 */
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  if (keys.length === 0 || !isArrayIndex(keys[0]!)) return keys.sort();
  let p = 1;
  while (p < keys.length && isArrayIndex(keys[p]!)) p++;
  if (p === keys.length) return keys;
  const rest = keys.slice(p).sort();
  keys.length = p;
  for (const k of rest) keys.push(k);
  return keys;
}

function isArrayIndex(k: string): boolean {
  const c = k.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  const n = Number(k);
  return n < 4294967295 && String(n >>> 0) === k;
}
