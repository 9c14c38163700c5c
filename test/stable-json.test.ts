import { describe, expect, it } from "vitest";
import { stableJson } from "../src/util/stable-json.js";
import { randomValue } from "./support/random-json.js";

/** The definition stableJson keeps: JSON.stringify with every object's keys sorted (a copy each). */
function reference(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}

describe("stableJson", () => {
  it("writes what JSON.stringify writes with every object's keys sorted", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const v = randomValue(seed * 7919);
      expect(stableJson(v)).toBe(reference(v));
    }
  });

  it("gives one string for equal values whatever their key order", () => {
    expect(stableJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(
      stableJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
    expect(stableJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });

  it("keeps JSON's rules: toJSON, left-out values, nulls in arrays, boxed primitives, the top level", () => {
    const cases: unknown[] = [
      { when: new Date(0), f: () => 1, s: Symbol("x"), u: undefined },
      [undefined, () => 1, Symbol("y"), Number.NaN, -0],
      { toJSON: (key: string) => ({ z: key, a: 1 }) },
      { nested: { toJSON: (key: string) => `key:${key}` } },
      [{ toJSON: (key: string) => `index:${key}` }],
      { n: new Number(5), s: new String("ab"), b: new Boolean(false) },
      "top",
      42,
      null,
    ];
    for (const v of cases) expect(stableJson(v)).toBe(reference(v));
    expect(stableJson(undefined)).toBe(reference(undefined));
    expect(stableJson(() => 1)).toBe(reference(() => 1));
  });

  it("refuses a cycle and a BigInt with a TypeError", () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    expect(() => stableJson(a)).toThrow(TypeError);
    expect(() => stableJson({ n: 1n })).toThrow(TypeError);
  });

  it("writes a value seen twice (not a cycle) twice", () => {
    const shared = { k: [1, 2] };
    expect(stableJson({ a: shared, b: [shared, shared] })).toBe(
      reference({ a: shared, b: [shared, shared] }),
    );
  });
});
