// The schema corpus: every tool schema of server-everything, server-filesystem and the official
// server (listed live), plus hand-written hard cases, either converts to a schema that passes the
// strict-subset checker written from OpenAI's documented rules, or falls back with its event.
// Round trip: values valid for the strict schema, with the added nulls stripped, are valid for
// the original.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openaiResponsesTools, openaiTools } from "../src/adapters/openai.js";
import { checkStrictSchema } from "../src/adapters/strict-check.js";
import { toStrictSchema } from "../src/adapters/strict-schema.js";
import { stripOptionalNulls } from "../src/adapters/strip-nulls.js";
import type { Tool } from "../src/index.js";
import { McpClientError } from "../src/index.js";
import { validateJson } from "../src/schema/validator.js";
import { HARD_CASES } from "./support/hard-schemas.js";
import {
  ClientPool,
  everythingServer,
  FILESYSTEM_SERVER,
  nodeServer,
  officialServer,
  recordEvents,
  uniqueName,
} from "./support/index.js";
import { sampleFor } from "./support/strict-samples.js";

const pool = new ClientPool();
let root: string;
const corpus: Array<{ server: string; tool: Tool }> = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "conduit-corpus-"));
  const servers = {
    everything: everythingServer(),
    filesystem: nodeServer(FILESYSTEM_SERVER, [root]),
    official: officialServer("dual"),
  };
  await Promise.all(
    Object.entries(servers).map(async ([serverId, transport]) => {
      const client = pool.create({ name: uniqueName("corpus"), serverId, transport });
      for (const tool of await client.listAllTools()) corpus.push({ server: serverId, tool });
    }),
  );
});

afterAll(async () => {
  await pool.closeAll();
  rmSync(root, { recursive: true, force: true });
});

/** Converts, checks and round-trips one schema; returns the conversion's outcome. */
async function judge(schema: Record<string, unknown>): Promise<string> {
  const converted = toStrictSchema(schema);
  if (!converted.ok) return converted.reason;
  expect(checkStrictSchema(converted.schema)).toEqual([]);
  for (const mode of ["nulls", "full"] as const) {
    const value = sampleFor(converted.schema, mode);
    if (value === undefined) continue;
    expect(
      await validateJson(converted.schema, value),
      `${mode} sample is valid for the strict schema`,
    ).toEqual({
      valid: true,
    });
    const stripped = stripOptionalNulls(value, schema);
    expect(
      await validateJson(schema, stripped),
      `${mode} sample, stripped, is valid for the original`,
    ).toEqual({
      valid: true,
    });
  }
  return "strict";
}

describe("the schema corpus", () => {
  it("lists the three servers' tools live", () => {
    const servers = new Set(corpus.map((c) => c.server));
    expect([...servers].sort()).toEqual(["everything", "filesystem", "official"]);
    expect(corpus.length).toBeGreaterThan(20);
  });

  it("every real server schema converts to the strict subset, or falls back with its event", async () => {
    const outcomes: Record<string, string> = {};
    for (const { server, tool } of corpus) outcomes[`${server}/${tool.name}`] = await judge(tool.inputSchema);
    // Only one of these servers' schemas cannot be strict: a `format: "uri"` (not among the nine
    // formats strict mode takes, and dropping it would let the model send what the server refuses).
    const fallbacks = Object.entries(outcomes).filter(([, o]) => o !== "strict");
    expect(fallbacks).toEqual([["everything/gzip-file-as-resource", "unsupported_format"]]);
    expect(Object.values(outcomes).filter((o) => o === "strict").length).toBe(corpus.length - 1);

    const rec = recordEvents({ names: ["adapter:strict_fallback"] });
    try {
      // Two servers have an "echo": qualified names keep them apart.
      const tools = await openaiTools(
        corpus.map((c) => c.tool),
        { qualify: true },
      );
      const loose = tools.filter((t) => !t.function.strict).map((t) => t.function.name);
      expect(loose).toEqual(["mcp__everything__gzip-file-as-resource"]);
      expect(rec.events.map((e) => [e.serverId, e.toolName, e.reason])).toEqual([
        ["everything", "mcp__everything__gzip-file-as-resource", "unsupported_format"],
      ]);
    } finally {
      rec.stop();
    }
  });

  it.each(HARD_CASES)("hard case: $name -> $expect", async ({ schema, expect: outcome }) => {
    expect(await judge(schema)).toBe(outcome);
  });
});

describe("strict conversion details", () => {
  it("makes optional properties nullable, and strips only the nulls it added", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" }, c: { type: ["string", "null"] } },
      required: ["a"],
    };
    const converted = toStrictSchema(schema);
    if (!converted.ok) throw new Error(converted.reason);
    expect(converted.schema).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: ["number", "null"] }, c: { type: ["string", "null"] } },
      required: ["a", "b", "c"],
      additionalProperties: false,
    });
    expect(stripOptionalNulls({ a: "x", b: null, c: null }, schema)).toEqual({ a: "x", c: null });
  });

  it("adds null to an optional enum's values, and wraps a $ref in anyOf", () => {
    const schema = HARD_CASES[1]!.schema;
    const converted = toStrictSchema(schema);
    if (!converted.ok) throw new Error(converted.reason);
    const props = converted.schema.properties as Record<string, Record<string, unknown>>;
    expect(props.unit).toEqual({ type: ["string", "null"], enum: ["C", "F", null] });
    expect(props.origin).toEqual({
      description: "where it starts",
      anyOf: [{ $ref: "#/$defs/point" }, { type: "null" }],
    });
    const value = { unit: null, mode: null, origin: { x: 1, y: null }, value: null, when: null };
    expect(stripOptionalNulls(value, schema)).toEqual({ origin: { x: 1 } });
    expect(props.value).toEqual({ anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] });
  });

  it("strips nulls inside $defs, recursive refs and arrays", () => {
    const schema = HARD_CASES[3]!.schema;
    expect(toStrictSchema(schema).ok).toBe(true);
    const value = {
      label: "a",
      children: [
        { label: "b", children: null },
        { label: "c", children: [] },
      ],
    };
    expect(stripOptionalNulls(value, schema)).toEqual({
      label: "a",
      children: [{ label: "b" }, { label: "c", children: [] }],
    });
  });

  it("a property named __proto__ stays a property (in the schema and in the arguments)", async () => {
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"number"}}}',
    );
    const converted = toStrictSchema(schema);
    if (!converted.ok) throw new Error(converted.reason);
    expect(Object.keys(converted.schema.properties as object)).toEqual(["__proto__", "constructor"]);
    expect(converted.schema.required).toEqual(["__proto__", "constructor"]);
    const args = JSON.parse('{"__proto__":"x","constructor":null}');
    const stripped = stripOptionalNulls(args, schema) as Record<string, unknown>;
    expect(Object.keys(stripped)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(await validateJson(schema, stripped)).toEqual({ valid: true });
  });

  it("sanitises and clamps descriptions and titles inside the schema", () => {
    const converted = toStrictSchema({
      type: "object",
      properties: {
        a: { type: "string", description: `evil\u001b[31m\u202Etext${"x".repeat(5000)}`, title: "t\u200Bt" },
      },
    });
    if (!converted.ok) throw new Error(converted.reason);
    const a = (converted.schema.properties as Record<string, Record<string, string>>).a!;
    expect(a.description!.startsWith("eviltext")).toBe(true);
    expect(a.description!.length).toBeLessThanOrEqual(1024);
    expect(a.title).toBe("tt");
  });

  it("the checker finds what the rules forbid", () => {
    expect(checkStrictSchema({ type: "object", properties: { a: { type: "string" } } })).toEqual([
      "/: additionalProperties is not false",
      '/: "a" is not required',
    ]);
    expect(checkStrictSchema({ anyOf: [] })).toContain("the root uses anyOf");
    expect(
      checkStrictSchema({
        type: "object",
        properties: { a: { type: "string", format: "uri", uniqueItems: true } },
        required: ["a"],
        additionalProperties: false,
      }),
    ).toEqual([
      '/properties/a: keyword "uniqueItems" is not supported',
      "/properties/a: format uri is not supported",
    ]);
  });
});

describe("strict modes and the fallback event", () => {
  const tool = (name: string, inputSchema: Record<string, unknown>): Tool => ({
    serverId: "hand",
    name,
    inputSchema,
  });
  const tools = [
    tool("plain", { type: "object", properties: { q: { type: "string" } } }),
    tool("union", { type: "object", properties: { v: { oneOf: [{ type: "string" }, { type: "number" }] } } }),
  ];

  it('"auto" converts what it can and reports the rest', async () => {
    const rec = recordEvents({ names: ["adapter:strict_fallback"] });
    try {
      const [plain, union] = await openaiTools(tools);
      expect(plain!.function.strict).toBe(true);
      expect(plain!.function.parameters.additionalProperties).toBe(false);
      expect(union!.function.strict).toBe(false);
      expect(union!.function.parameters).toEqual(tools[1]!.inputSchema);
      expect(rec.of("adapter:strict_fallback")).toEqual([
        {
          event: "adapter:strict_fallback",
          client: "",
          serverId: "hand",
          transport: "",
          era: null,
          api: "openai",
          toolName: "union",
          reason: "unsupported_keyword",
          detail: "oneOf at /properties/v",
        },
      ]);
    } finally {
      rec.stop();
    }
  });

  it("strict: true refuses a schema that does not convert", async () => {
    const err = await openaiResponsesTools(tools, { strict: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect((err as McpClientError).kind).toBe("protocol");
    expect((err as McpClientError).reason).toBe("strict_schema_unsupported");
    expect((err as McpClientError).detail).toEqual({ strict_schema: "unsupported_keyword", tool: "union" });
  });

  it("strict: false never converts", async () => {
    const out = await openaiResponsesTools(tools, { strict: false });
    expect(out.map((t) => [t.strict, t.parameters])).toEqual([
      [false, tools[0]!.inputSchema],
      [false, tools[1]!.inputSchema],
    ]);
  });

  it("option mistakes are TypeErrors", async () => {
    await expect(openaiTools(tools, { strict: "yes" as never })).rejects.toThrow(/option "strict"/);
    await expect(openaiTools(tools, { nope: 1 } as never)).rejects.toThrow(/unknown option "nope"/);
    await expect(openaiTools({} as never)).rejects.toThrow(TypeError);
  });
});
