import { describe, expect, it } from "vitest";
import { jsonEqual } from "../src/util/json-equal.js";
import { stableJson } from "../src/util/stable-json.js";
import { randomValue } from "./support/random-json.js";

/** The same value with every object's keys in reverse order (a new copy; arrays keep their order). */
function reordered(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reordered);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).reverse()) out[k] = reordered((v as Record<string, unknown>)[k]);
  return out;
}

/** The same value with one leaf somewhere changed (deterministically by `seed`), or with a key added. */
function changed(v: unknown, seed: number): unknown {
  if (Array.isArray(v)) {
    if (v.length === 0) return [null];
    const i = seed % v.length;
    return v.map((x, j) => (j === i ? changed(x, seed >> 1) : x));
  }
  if (typeof v === "object" && v !== null) {
    const keys = Object.keys(v);
    if (keys.length === 0 || seed % 5 === 0) return { ...v, added: 1 };
    const k = keys[seed % keys.length]!;
    return { ...v, [k]: changed((v as Record<string, unknown>)[k], seed >> 1) };
  }
  return typeof v === "number" ? v + 1 : typeof v === "string" ? `${v}!` : v === null ? 0 : null;
}

const agrees = (a: unknown, b: unknown) => expect(jsonEqual(a, b)).toBe(stableJson(a) === stableJson(b));

describe("jsonEqual", () => {
  it("answers what comparing the two stableJson strings answers, for random values and their variants", () => {
    for (let seed = 1; seed <= 800; seed++) {
      const v = randomValue(seed * 7919);
      const w = randomValue(seed * 104729);
      agrees(v, reordered(v));
      agrees(v, changed(v, seed));
      agrees(reordered(v), changed(v, seed * 31));
      agrees(v, w);
    }
  });

  it("ignores key order at every level, and a key whose value JSON leaves out", () => {
    expect(jsonEqual({ b: 1, a: { d: [1, { y: 2, x: 1 }] } }, { a: { d: [1, { x: 1, y: 2 }] }, b: 1 })).toBe(
      true,
    );
    expect(jsonEqual({ a: 1, u: undefined, f: () => 1 }, { a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(jsonEqual([undefined, Number.NaN], [null, null])).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: [] }, { a: {} })).toBe(false);
    expect(jsonEqual(undefined, null)).toBe(false);
    expect(jsonEqual(undefined, () => 1)).toBe(true);
  });

  it("leaves out the top-level keys it is told to ignore, and only at the top", () => {
    const tool = { name: "t", inputSchema: { type: "object" }, serverId: "a", meta: { x: 1 } };
    const again = { meta: { x: 2 }, serverId: "b", inputSchema: { type: "object" }, name: "t" };
    expect(jsonEqual(tool, again, ["serverId", "meta"])).toBe(true);
    expect(jsonEqual(tool, again)).toBe(false);
    expect(jsonEqual({ ...tool, description: "d" }, again, ["serverId", "meta"])).toBe(false);
    expect(jsonEqual({ n: { serverId: "a" } }, { n: { serverId: "b" } }, ["serverId", "meta"])).toBe(false);
  });

  it("defers to stableJson for toJSON, and throws its TypeError for a cycle or a BigInt", () => {
    expect(jsonEqual({ when: new Date(0) }, { when: "1970-01-01T00:00:00.000Z" })).toBe(true);
    expect(jsonEqual({ k: { toJSON: (key: string) => key } }, { k: "k" })).toBe(true);
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    const b: Record<string, unknown> = { x: 1 };
    b.self = b;
    expect(() => jsonEqual(a, b)).toThrow(TypeError);
    expect(() => jsonEqual({ n: 1n }, { n: 1n })).toThrow(TypeError);
  });
});

describe("jsonEqual with keys JSON does not see", () => {
  it("counts only own enumerable keys, as Object.keys does", () => {
    const hidden = Object.defineProperty({ y: 2 }, "x", { value: 1, enumerable: false });
    expect(jsonEqual({ x: 1 }, hidden)).toBe(false);
    expect(jsonEqual({ y: 2 }, hidden)).toBe(true);
    const inherited = Object.create({ x: 1 }) as Record<string, unknown>;
    inherited.y = 2;
    expect(jsonEqual({ x: 1, y: 2 }, inherited)).toBe(false);
    expect(jsonEqual({ y: 2 }, inherited)).toBe(true);
    expect(jsonEqual(inherited, { y: 2 })).toBe(true);
  });
});

describe("jsonEqual on two parses of one text (the walk in step, with the keys in one order)", () => {
  const text = JSON.stringify({ a: [1, "x", { b: null, c: true }], d: { e: 2.5, f: [] } });

  it("answers equal for the same text, and unequal for one changed string, number or length", () => {
    expect(jsonEqual(JSON.parse(text), JSON.parse(text))).toBe(true);
    expect(jsonEqual(JSON.parse(text), JSON.parse(text.replace('"x"', '"y"')))).toBe(false);
    expect(jsonEqual(JSON.parse(text), JSON.parse(text.replace("2.5", "2.25")))).toBe(false);
    expect(jsonEqual(JSON.parse(text), JSON.parse(text.replace("[]", "[0]")))).toBe(false);
  });

  it("still sees what JSON does not write: a hidden toJSON, a __proto__ key, a value left out", () => {
    const hiddenToJson = Object.defineProperty(JSON.parse(text), "toJSON", { value: () => 1 });
    agrees(JSON.parse(text), hiddenToJson);
    agrees(JSON.parse('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":2}}'));
    agrees(JSON.parse('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":1}}'));
    agrees({ a: 1, u: undefined }, { a: 1, v: undefined });
    agrees({ a: [Number.NaN] }, { a: [null] });
  });

  it("does not take an enumerable key on Object.prototype for one of the object's own", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.extra = 1;
    try {
      agrees(JSON.parse('{"a":{"b":1}}'), JSON.parse('{"a":{"b":1}}'));
      agrees(JSON.parse('{"a":{"b":1,"extra":1}}'), JSON.parse('{"a":{"b":1}}'));
    } finally {
      delete proto.extra;
    }
  });
});
