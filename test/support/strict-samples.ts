/**
 * Values a model could send for a strict schema, for the round-trip test: `"nulls"` takes `null`
 * wherever the schema allows it (as a model skipping every optional field would) and the fewest
 * array items; `"full"` takes a non-null branch everywhere and one item or more per array.
 * Returns undefined when no value can be made (a pattern none of the candidates match).
 */
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const FORMAT_SAMPLES: Record<string, string> = {
  "date-time": "2026-01-02T03:04:05Z",
  time: "03:04:05Z",
  date: "2026-01-02",
  duration: "P1D",
  email: "a@example.com",
  hostname: "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
};
const PATTERN_CANDIDATES = ["a", "abc", "A1", "abc123", "x-y", "2026-01-02", "@user", "ab_cd", "1"];

class NoSample extends Error {}

export function sampleFor(schema: Obj, mode: "nulls" | "full"): unknown {
  const defs = (
    isObj(schema.$defs) ? schema.$defs : isObj(schema.definitions) ? schema.definitions : {}
  ) as Obj;
  const make = (node: unknown, depth: number): unknown => {
    if (!isObj(node)) throw new NoSample();
    if (typeof node.$ref === "string") {
      if (depth > 6) throw new NoSample();
      const target = node.$ref === "#" ? schema : defs[node.$ref.split("/").pop() as string];
      return make(target, depth + 1);
    }
    if (Array.isArray(node.anyOf)) {
      const nullBranch = node.anyOf.find((b) => isObj(b) && b.type === "null");
      if (mode === "nulls" && nullBranch) return null;
      for (const b of node.anyOf) {
        if (b === nullBranch) continue;
        try {
          return make(b, depth + 1);
        } catch (err) {
          if (!(err instanceof NoSample)) throw err;
        }
      }
      if (nullBranch) return null;
      throw new NoSample();
    }
    if (node.const !== undefined) return node.const;
    const types = (Array.isArray(node.type) ? node.type : [node.type]) as string[];
    if (Array.isArray(node.enum)) {
      if (mode === "nulls" && node.enum.includes(null)) return null;
      const v = node.enum.find((e) => e !== null);
      return v === undefined ? null : v;
    }
    if (mode === "nulls" && types.includes("null")) return null;
    const t = types.find((x) => x !== "null") ?? "null";
    switch (t) {
      case "null":
        return null;
      case "boolean":
        return true;
      case "integer":
      case "number": {
        let n = typeof node.minimum === "number" ? node.minimum : 0;
        if (typeof node.exclusiveMinimum === "number") n = Math.max(n, node.exclusiveMinimum + 1);
        if (typeof node.multipleOf === "number") n = Math.ceil(n / node.multipleOf) * node.multipleOf;
        if (t === "integer") n = Math.ceil(n);
        return n;
      }
      case "string": {
        if (typeof node.format === "string") return FORMAT_SAMPLES[node.format] ?? "x";
        const min = typeof node.minLength === "number" ? node.minLength : 0;
        if (typeof node.pattern === "string") {
          const re = new RegExp(node.pattern, "u");
          const hit = PATTERN_CANDIDATES.find((c) => re.test(c) && c.length >= min);
          if (hit === undefined) throw new NoSample();
          return hit;
        }
        return "a".repeat(Math.max(min, 1));
      }
      case "array": {
        const min = typeof node.minItems === "number" ? node.minItems : 0;
        const count = mode === "full" ? Math.max(min, 1) : min;
        if (count > 0 && depth > 6) throw new NoSample();
        return Array.from({ length: count }, () => make(node.items, depth + 1));
      }
      case "object": {
        const out: Obj = {};
        for (const [k, v] of Object.entries((node.properties ?? {}) as Obj)) out[k] = make(v, depth + 1);
        return out;
      }
      default:
        throw new NoSample();
    }
  };
  try {
    return make(schema, 0);
  } catch (err) {
    if (err instanceof NoSample) return undefined;
    throw err;
  }
}
