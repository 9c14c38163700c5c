/**
 * src/schema/validator.ts, the shared JSON Schema wrapper (output schemas here, model arguments
 * in the adapters): draft 2020-12, no remote refs, bounded cost, short sanitised errors.
 */
import { execFileSync } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { PATTERN_LIMITS } from "../src/schema/patterns.js";
import { loadValidator, SCHEMA_LIMITS, validateJson } from "../src/schema/validator.js";
import { stableJson } from "../src/util/stable-json.js";

describe("validateJson", () => {
  it("validates draft 2020-12 (prefixItems, $defs, unevaluatedProperties)", async () => {
    const schema = {
      type: "object",
      $defs: { n: { type: "integer", minimum: 0 } },
      properties: {
        pair: { type: "array", prefixItems: [{ type: "string" }, { $ref: "#/$defs/n" }], items: false },
      },
      unevaluatedProperties: false,
    };
    expect(await validateJson(schema, { pair: ["a", 1] })).toEqual({ valid: true });
    const bad = await validateJson(schema, { pair: ["a", -1], extra: true });
    expect(bad.valid).toBe(false);
    expect(await validateJson(schema, { pair: ["a", 1, 2] })).toMatchObject({ valid: false });
  });

  it("boolean and non-object schemas", async () => {
    expect(await validateJson(true, 1)).toEqual({ valid: true });
    expect(await validateJson(false, 1)).toMatchObject({ valid: false });
    expect(await validateJson("nope", 1)).toMatchObject({ valid: false });
  });

  it("never fetches a $ref: a remote or missing one makes every value invalid, no throw", async () => {
    for (const ref of ["https://example.invalid/s.json", "http://127.0.0.1:1/s", "#/$defs/missing"]) {
      expect(await validateJson({ $ref: ref }, 1)).toEqual({
        valid: false,
        errors: ["the schema cannot be applied"],
      });
    }
  });

  it("a $ref cycle with no progress is invalid, not a stack overflow", async () => {
    const schema = { $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" };
    expect(await validateJson(schema, 1)).toMatchObject({ valid: false });
  });

  it("matches every pattern in linear time: catastrophic shapes run, and answer", async () => {
    // Each backtracks exponentially in JavaScript's RegExp; RE2 answers at once.
    const long = `${"a".repeat(5_000)}!`;
    for (const pattern of ["^(a+)+$", "(a*)*b", "^(a|a)*$", "^(\\w+\\s?)*$"]) {
      expect(await validateJson({ type: "string", pattern }, long)).toEqual({
        valid: false,
        errors: ["#: String does not match pattern."],
      });
    }
    expect(await validateJson({ type: "string", pattern: "^(a|a)*$" }, "a".repeat(5_000))).toEqual({
      valid: true,
    });
    // patternProperties keys too: a matching key is checked by its schema, others are additional.
    const byKey = {
      type: "object",
      patternProperties: { "^x(a|a)*$": { type: "number" } },
      additionalProperties: false,
    };
    expect(await validateJson(byKey, { xaaa: 1 })).toEqual({ valid: true });
    expect(await validateJson(byKey, { xaaa: "1" })).toMatchObject({ valid: false });
    expect(await validateJson(byKey, { [`x${"a".repeat(5_000)}!`]: 1 })).toMatchObject({ valid: false });
    // Ordinary patterns work, and the global RegExp is the native one again afterwards.
    expect(await validateJson({ type: "string", pattern: "^[a-z]+(-[a-z]+)?$" }, "ab-cd")).toEqual({
      valid: true,
    });
    expect(await validateJson({ type: "string", pattern: "^\\p{L}+$" }, "été")).toEqual({ valid: true });
    expect(/a/.exec("a")).not.toBeNull();
  });

  it("refuses what RE2 cannot run (back-references, look-around), over-long patterns", async () => {
    expect(await validateJson({ pattern: "(a)\\1" }, "aa")).toEqual({
      valid: false,
      errors: ["schema refused: a pattern uses a back-reference ((a)\\1)"],
    });
    expect(await validateJson({ pattern: "(?<n>a)\\k<n>" }, "aa")).toMatchObject({ valid: false });
    expect(await validateJson({ pattern: "^(?!x)a" }, "a")).toEqual({
      valid: false,
      errors: ["schema refused: a pattern cannot be matched in linear time or is not valid (^(?!x)a)"],
    });
    expect(await validateJson({ patternProperties: { "(?<=a)b": {} } }, {})).toMatchObject({ valid: false });
    expect(await validateJson({ pattern: "a".repeat(SCHEMA_LIMITS.maxPatternLength + 1) }, "a")).toEqual({
      valid: false,
      errors: ["schema refused: a pattern is too long"],
    });
    // `format: "regex"` still asks whether a value is a regex (compiled natively, never run).
    expect(await validateJson({ type: "string", format: "regex" }, "(?=a)b")).toEqual({ valid: true });
    expect(await validateJson({ type: "string", format: "regex" }, "[")).toMatchObject({ valid: false });
  });

  it("no pattern check blocks the event loop for 50 ms, whatever the pattern and the input", async () => {
    const schemas = [
      { type: "string", pattern: "^(a|a)*$" },
      { type: "string", pattern: "(x+x+)+y" },
      { type: "object", patternProperties: { "^(a|a)*$": { type: "string" } } },
      { type: "array", items: { type: "string", pattern: "^(a|a)*$" } },
    ];
    // The libraries are loaded and the schemas compiled first: loading is not a check.
    for (const schema of schemas) await validateJson(schema, "a");
    const inputs: Array<[number, unknown]> = [
      [0, `${"a".repeat(100_000)}!`],
      [0, "a".repeat(PATTERN_LIMITS.maxInput)],
      [0, `${"a".repeat(PATTERN_LIMITS.maxInput - 1)}!`],
      [1, "x".repeat(100_000)],
      [1, "x".repeat(PATTERN_LIMITS.maxInput)],
      [2, { [`${"a".repeat(100_000)}!`]: "v" }],
      [2, { [`${"a".repeat(PATTERN_LIMITS.maxInput - 1)}!`]: "v" }],
      [3, Array.from({ length: 100 }, () => "a".repeat(PATTERN_LIMITS.maxInput))],
    ];
    // Each check's longest stall of the loop, the least of three runs: the machine is shared, and
    // a process that is merely descheduled stalls too; a check that blocks does so every time.
    const outcomes = [];
    for (const [i, value] of inputs) {
      let stall = Number.POSITIVE_INFINITY;
      let outcome: unknown;
      for (let run = 0; run < 3; run++) {
        const delay = monitorEventLoopDelay({ resolution: 1 });
        delay.enable();
        outcome = await validateJson(schemas[i]!, value);
        // A fixed wait, on purpose: the histogram records the stall the check caused only when its
        // sampling timer fires late, and nothing announces that; one turn past its resolution does.
        await new Promise((resolve) => setTimeout(resolve, 5));
        delay.disable();
        stall = Math.min(stall, delay.max / 1e6);
      }
      expect(stall, `input ${outcomes.length}`).toBeLessThan(50);
      outcomes.push(outcome as { valid: boolean });
    }
    // The key that does not match is not constrained: the object is valid.
    expect(outcomes.map((o) => o.valid)).toEqual([false, true, false, false, false, false, true, false]);
    expect(outcomes[0]).toEqual({
      valid: false,
      errors: [
        `a string of 100001 characters is too long to match against a pattern (at most ${PATTERN_LIMITS.maxInput})`,
      ],
    });
    expect(outcomes[7]).toEqual({
      valid: false,
      errors: [
        `more than ${PATTERN_LIMITS.maxInputPerValidation} characters to match against patterns in one value`,
      ],
    });
  });

  it("refuses schemas nested too deeply or too large", async () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < SCHEMA_LIMITS.maxDepth + 1; i++) deep = { not: deep };
    expect(await validateJson(deep, 1)).toEqual({
      valid: false,
      errors: ["schema refused: the schema is nested too deeply"],
    });
    const wide = { anyOf: Array.from({ length: SCHEMA_LIMITS.maxNodes + 1 }, () => ({ type: "string" })) };
    expect(await validateJson(wide, "x")).toEqual({
      valid: false,
      errors: ["schema refused: the schema is too large"],
    });
  });

  it("errors are short, sanitised and few", async () => {
    const props = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`p${i}\u001b[31m`, { type: "integer" }]),
    );
    const value = Object.fromEntries(Object.keys(props).map((k) => [k, "x".repeat(1000)]));
    const r = await validateJson({ type: "object", properties: props }, value);
    expect(r.valid).toBe(false);
    if (r.valid) return;
    expect(r.errors.length).toBeLessThanOrEqual(SCHEMA_LIMITS.maxErrors);
    for (const e of r.errors) {
      expect(e.length).toBeLessThanOrEqual(SCHEMA_LIMITS.maxErrorChars);
      expect(e).not.toContain("\u001b");
    }
  });

  it("leaves the caller's schema untouched and loads the library once", async () => {
    const schema = {
      type: "object",
      properties: { a: { $ref: "#/$defs/a" } },
      $defs: { a: { type: "string" } },
    };
    const before = stableJson(schema);
    await validateJson(schema, { a: "x" });
    await validateJson(schema, { a: 1 });
    expect(stableJson(schema)).toBe(before);
    expect(Object.getOwnPropertyNames(schema)).toEqual(["type", "properties", "$defs"]);
    expect(await loadValidator()).toBe(await loadValidator());
  });
});

describe("loading", () => {
  // The built package, as users import it (npm test builds first), with a hook that reports
  // every module resolved whose name mentions the validator library.
  const root = fileURLToPath(new URL("..", import.meta.url));
  const hook = `data:text/javascript,${encodeURIComponent(
    'export async function resolve(s, c, n) { if (s.includes("@cfworker/json-schema")) console.log("LOADED"); return n(s, c); }',
  )}`;
  const register = `data:text/javascript,${encodeURIComponent(
    `import { register } from "node:module"; register(${JSON.stringify(hook)});`,
  )}`;
  const run = (code: string) =>
    execFileSync(process.execPath, ["--import", register, "--input-type=module", "-e", code], {
      cwd: root,
      encoding: "utf8",
    });

  it("importing the client does not load the validator library; the first validation does", () => {
    expect(run('await import("./dist/index.js"); console.log("imported");').trim()).toBe("imported");
    // The first output-schema check, through the public API (dist/ is bundled: the validator
    // module has no file of its own there).
    const validating = run(
      [
        'import { Client } from "conduit-mcp"; import { FakeServer } from "conduit-mcp/testing";',
        'const outputSchema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };',
        'const server = new FakeServer().tool("t", { type: "object" }, () => ({ content: [], structuredContent: { n: "x" } }), { outputSchema });',
        'const c = new Client({ name: "probe", transport: { type: "in-process", server } });',
        "await c.listAllTools();",
        'console.log(await c.callTool("t", {}).then(() => "valid", (e) => e.reason));',
        "await c.close();",
      ].join("\n"),
    );
    expect(validating).toContain("LOADED");
    expect(validating).toContain("output_schema_mismatch");
  });
});
