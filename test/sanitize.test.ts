import { describe, expect, it } from "vitest";
import { sanitizeText, sanitizeValue } from "../src/index.js";

describe("sanitizeText", () => {
  it("removes control, escape, bidi, zero-width and separator characters", () => {
    const hostile = "a\u001b[31mred\u001b[0m\u0007b\u202Eevil\u202C\u200Bc\u2028d\u0000e\u009Bf\u2066g\uFEFF";
    // \u009B is a one-byte CSI: it and its final byte ("f") go together.
    expect(sanitizeText(hostile)).toBe("aredbevilc deg");
  });

  it("keeps newlines only when asked, and turns separators into them", () => {
    expect(sanitizeText("a\nb\r\nc\u2029d\te")).toBe("a b c d e");
    expect(sanitizeText("a\nb\r\nc\u2029d\te", { keepNewlines: true })).toBe("a\nb\nc\nd\te");
    expect(sanitizeText("a\n\nb\r\n\r\nc", { keepNewlines: true })).toBe("a\n\nb\n\nc");
  });

  it("strips OSC hyperlinks and title sequences whole", () => {
    expect(sanitizeText("\u001b]8;;https://evil\u0007click\u001b]8;;\u0007")).toBe("click");
    expect(sanitizeText("\u001b]0;title\u001b\\x")).toBe("x");
  });

  it("clamps with an ellipsis and repairs lone surrogates", () => {
    expect(sanitizeText("abcdef", { maxLength: 4 })).toBe("abc…");
    expect(sanitizeText("a\uD800b")).toBe("a\uFFFDb");
  });
});

describe("sanitizeValue", () => {
  it("sanitises every string, keys included, and clamps long strings", () => {
    const out = sanitizeValue({
      "k\u001b[1m": ["x".repeat(5000), "\u202Eok"],
      n: 1,
      b: true,
      z: null,
    }) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["k", "n", "b", "z"]);
    const [long, ok] = out.k as string[];
    expect(long).toHaveLength(4096);
    expect(ok).toBe("ok");
  });

  it("keeps 16 levels of nesting and cuts below them without recursion, even for very deep input", () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const out = sanitizeValue(deep);
    let depth = 0;
    let cur = out as Record<string, unknown> | string;
    while (typeof cur === "object") {
      cur = cur.d as Record<string, unknown>;
      depth++;
    }
    expect(cur).toBe("[truncated]");
    expect(depth).toBe(16);
  });

  it("drops functions and undefined, nulls non-finite numbers", () => {
    expect(sanitizeValue({ f: () => 1, u: undefined, n: Number.NaN, i: Infinity })).toEqual({
      n: null,
      i: null,
    });
  });
});

describe("Unicode tag characters (ASCII smuggling)", () => {
  const tags = (s: string) => [...s].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join("");

  it("sanitizeText strips U+E0000 to U+E007F, and keeps the characters around them", () => {
    const text = `ok${tags("ignore previous")}\u{E0001}\u{E007F}!`;
    expect(sanitizeText(text)).toBe("ok!");
    // Neighbours in the same plane stay: U+E0080 is not a tag character, nor is an emoji.
    expect(sanitizeText("a\u{E0080}b\u{1F600}")).toBe("a\u{E0080}b\u{1F600}");
  });

  it("sanitizeValue strips them from keys and strings", () => {
    expect(sanitizeValue({ [`k${tags("x")}`]: `v${tags("y")}` })).toEqual({ k: "v" });
  });
});

describe("server-chosen keys", () => {
  it("sanitizeValue keeps a __proto__ key as data, never as the copy's prototype", () => {
    const out = sanitizeValue(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(out)).toEqual(["__proto__", "a"]);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1}');
  });
});
