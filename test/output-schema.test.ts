/**
 * structuredContent checked against the tool's outputSchema (issue 9), against a scripted stdio
 * server in both eras: a mismatch is protocol / output_schema_mismatch, checked only when the
 * listing gave the tool an output schema, and `validateOutput: false` turns it off.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpClientError } from "../src/index.js";
import { closeAll, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

const ERAS = ["modern", "legacy"] as const;
const input = { type: "object" };
/** echo answers structuredContent = its params: { name: "echo", arguments, _meta? }. */
const ECHO_OUTPUT = {
  type: "object",
  properties: { name: { const: "echo" }, arguments: { type: "object" } },
  required: ["name", "arguments"],
};

function tools(outputs: Record<string, unknown>) {
  return Object.entries(outputs).map(([name, outputSchema]) => ({ name, inputSchema: input, outputSchema }));
}

async function mismatch(p: Promise<unknown>): Promise<McpClientError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e) => e,
  );
  expect(err).toBeInstanceOf(McpClientError);
  expect(err).toMatchObject({ kind: "protocol", reason: "output_schema_mismatch" });
  return err as McpClientError;
}

describe.each(ERAS)("output schema validation (%s)", (era) => {
  it("a result that matches passes; one that does not is output_schema_mismatch with short errors", async () => {
    const c = scriptedClient({
      era,
      tools: tools({
        echo: ECHO_OUTPUT,
        raw: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      }),
    });
    await c.listAllTools();
    expect((await c.callTool("echo", { a: 1 })).structured).toMatchObject({
      name: "echo",
      arguments: { a: 1 },
    });
    const err = await mismatch(
      c.callTool("raw", {
        line: '{"jsonrpc":"2.0","id":"$ID","result":{"content":[],"structuredContent":{"count":"\\u001b[31mmany"}}}',
      }),
    );
    const errors = (err.data as { errors: string[] }).errors;
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(e.length).toBeLessThanOrEqual(200);
      expect(e).not.toContain("\u001b");
    }
    // The client goes on.
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("structuredContent missing or not an object, when the tool has an output schema: mismatch", async () => {
    const c = scriptedClient({ era, tools: tools({ raw: { type: "object" } }) });
    await c.listAllTools();
    const line = (sc: string) =>
      `{"jsonrpc":"2.0","id":"$ID","result":{"content":[{"type":"text","text":"t"}]${sc}}}`;
    await mismatch(c.callTool("raw", { line: line("") }));
    await mismatch(c.callTool("raw", { line: line(',"structuredContent":[1,2]') }));
    await mismatch(c.callTool("raw", { line: line(',"structuredContent":"text"') }));
    // A tool error is not held to the schema.
    const failed = await c.callTool("raw", { line: line(',"isError":true') });
    expect(failed.isError).toBe(true);
  });

  it("not checked without a known output schema (never listed, or none given), nor with validateOutput: false", async () => {
    const bad = '{"jsonrpc":"2.0","id":"$ID","result":{"content":[],"structuredContent":{"count":"x"}}}';
    const schema = { type: "object", properties: { count: { type: "integer" } } };
    const unlisted = scriptedClient({ era, tools: tools({ raw: schema }) });
    expect((await unlisted.callTool("raw", { line: bad })).structured).toEqual({ count: "x" });
    const off = scriptedClient({ era, tools: tools({ raw: schema }) }, { validateOutput: false });
    await off.listAllTools();
    expect((await off.callTool("raw", { line: bad })).structured).toEqual({ count: "x" });
    const none = scriptedClient({ era, tools: [{ name: "raw", inputSchema: input }] });
    await none.listAllTools();
    expect((await none.callTool("raw", { line: bad })).structured).toEqual({ count: "x" });
  });

  it("a hostile output schema (a pattern RE2 cannot run, remote $ref) fails closed, without fetching", async () => {
    const c = scriptedClient({
      era,
      tools: tools({
        echo: { type: "object", properties: { name: { type: "string", pattern: "^(?=a)(a+)+$" } } },
        raw: { type: "object", properties: { x: { $ref: "https://schemas.example.invalid/x.json" } } },
      }),
    });
    await c.listAllTools();
    const redos = await mismatch(c.callTool("echo", {}));
    expect((redos.data as { errors: string[] }).errors[0]).toMatch(
      /schema refused: a pattern cannot be matched in linear time/,
    );
    // A remote $ref never gets as far as a check: intake left the tool out, and it is not called.
    await expect(
      c.callTool("raw", {
        line: '{"jsonrpc":"2.0","id":"$ID","result":{"content":[],"structuredContent":{"x":1}}}',
      }),
    ).rejects.toMatchObject({ kind: "not_found", reason: "tool_rejected" });
  });
});
