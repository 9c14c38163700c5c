// conduit-mcp/anthropic against server-everything, server-filesystem and the hostile fixture:
// the result mapping (every content type), error results, and schema cleaning.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicInputSchema, anthropicTools, toAnthropicToolResult } from "../src/adapters/anthropic.js";
import type { Client, Tool } from "../src/index.js";
import { adapterPeers, UNSAFE } from "./support/adapters.js";
import { ClientPool, FILESYSTEM_SERVER, nodeServer, uniqueName } from "./support/index.js";

const pool = new ClientPool();
let everything: Client;
let files: Client;
let hostile: Client;
let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "conduit-anthropic-"));
  writeFileSync(join(root, "hello.txt"), "hello from the file\n");
  files = pool.create({
    name: uniqueName("an"),
    serverId: "files",
    transport: nodeServer(FILESYSTEM_SERVER, [root]),
  });
  [{ everything, hostile }] = await Promise.all([adapterPeers(pool, "an"), files.ready()]);
});
afterAll(async () => {
  await pool.closeAll();
  rmSync(root, { recursive: true, force: true });
});

const use = (name: string, input: unknown, id = "toolu_1") => ({
  type: "tool_use" as const,
  id,
  name,
  input,
});

describe("anthropicTools", () => {
  it("gives each tool as { name, description, input_schema } with an object root", async () => {
    const tools = await anthropicTools(files);
    const read = tools.find((t) => t.name === "read_text_file")!;
    expect(read.input_schema.type).toBe("object");
    expect(read.input_schema.properties).toMatchObject({ path: { type: "string" } });
    expect(read.description).toEqual(expect.any(String));
  });

  it("drops the root oneOf/allOf/anyOf the API refuses, and sanitises schema texts", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string", description: "x\u001b[31my" }, b: { type: "string" } },
      oneOf: [{ required: ["a"] }, { required: ["b"] }],
      anyOf: [{ required: ["a"] }],
    };
    expect(anthropicInputSchema(schema)).toEqual({
      type: "object",
      properties: { a: { type: "string", description: "xy" }, b: { type: "string" } },
    });
  });

  it("a plain Tool list works too, without a caller", async () => {
    const list: Tool[] = [{ serverId: "s", name: "t", inputSchema: { type: "object" } }];
    expect(await anthropicTools(list)).toEqual([{ name: "t", input_schema: { type: "object" } }]);
  });
});

describe("toAnthropicToolResult", () => {
  it("runs a real file read and answers with text marked with its source", async () => {
    await anthropicTools(files);
    const block = await toAnthropicToolResult(
      files,
      use("read_text_file", { path: join(root, "hello.txt") }),
    );
    expect(block).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      is_error: false,
      content: [
        { type: "text", text: expect.stringMatching(/^\[from tool "read_text_file" on MCP server "files"/) },
        { type: "text", text: "hello from the file\n" },
        ...(block.content.length > 2 ? [expect.anything()] : []),
      ],
    });
  });

  it("a server-side failure (a missing file) is is_error: true, not a throw", async () => {
    const block = await toAnthropicToolResult(
      files,
      use("read_text_file", { path: join(root, "missing.txt") }),
    );
    expect(block.is_error).toBe(true);
    expect(block.result.errorKind).toBe("tool_error");
  });

  it("maps every content type, never dumping base64", async () => {
    const block = await toAnthropicToolResult(hostile, use("mcp__hostile__media", {}), { qualify: true });
    const [header, text, png, svg, audio, link, notes, blob, unknown, structured] = block.content;
    expect(header).toEqual({
      type: "text",
      text: expect.stringMatching(/^\[from tool "media" on MCP server "hostile"/),
    });
    expect(text).toEqual({ type: "text", text: "text  exe.txt hidden" });
    expect(png).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: expect.any(String) },
    });
    expect(svg).toEqual({
      type: "text",
      text: "[image, mimeType: image/svg+xml, bytes: 6, note: not passed (type or size)]",
    });
    expect(audio).toEqual({
      type: "text",
      text: "[audio, mimeType: audio/wav, bytes: 12, note: audio is not passed to the model]",
    });
    expect(link).toEqual({
      type: "text",
      text: "[resource link, name: report, uri: file:///tmp/report.txt, mimeType: text/plain, size: 1234]",
    });
    expect(notes).toEqual({
      type: "text",
      text: "[embedded resource, uri: mem://notes, mimeType: text/plain]\nnotes  exe.txt hidden",
    });
    expect(blob).toEqual({
      type: "text",
      text: "[embedded resource, uri: mem://blob, mimeType: application/octet-stream, bytes: 300, note: binary, not shown]",
    });
    expect(unknown).toEqual({ type: "text", text: '[content of type "hologram", note: not shown]' });
    expect(structured).toEqual({
      type: "text",
      text: 'structuredContent: {"ok":true,"note":"structured  exe.txt hidden"}',
    });
    expect(block.result.structured).toEqual({ ok: true, note: "structured  exe.txt hidden" });
    const json = JSON.stringify(block.content.filter((b) => b.type === "text"));
    expect(json).not.toMatch(UNSAFE);
    expect(json).not.toContain(Buffer.alloc(300).toString("base64").slice(0, 40));
  });

  it("bounds a result: 100 blocks at most, the cut blocks counted, images within their byte budget", async () => {
    const many = await toAnthropicToolResult(hostile, use("mcp__hostile__many", {}), {
      qualify: true,
      maxTextLength: 900,
    });
    const texts = many.content.map((b) => (b as { text: string }).text);
    expect(texts.slice(1, 5).map((t) => t.length)).toEqual([200, 200, 200, 200]);
    expect(texts[5]).toMatch(/^4\.{99}… \[cut: 100 more characters\]$/);
    // The other 95 shaped blocks, and the 50 past the cap, are counted.
    expect(texts.slice(6)).toEqual([
      "[95 more content blocks cut: over the length limit]",
      "[50 more content blocks not shown]",
    ]);
    const media = await toAnthropicToolResult(hostile, use("mcp__hostile__media", {}), {
      qualify: true,
      maxImageBytes: 10,
    });
    expect(media.content[2]).toEqual({
      type: "text",
      text: expect.stringMatching(
        /^\[image, mimeType: image\/png, bytes: \d+, note: not passed \(type or size\)\]$/,
      ),
    });
  });

  it("does not repeat structured content a text block already carries", async () => {
    const block = await toAnthropicToolResult(
      everything,
      use("get-structured-content", { location: "Chicago" }),
    );
    expect(block.is_error).toBe(false);
    expect(block.result.structured).not.toBeNull();
    // server-everything sends the same JSON as a text block: the model gets it once.
    expect(block.content).toEqual([
      { type: "text", text: expect.stringMatching(/^\[from tool "get-structured-content"/) },
      { type: "text", text: JSON.stringify(block.result.structured) },
    ]);
  });

  it("a tool error is is_error: true", async () => {
    const block = await toAnthropicToolResult(hostile, use("mcp__hostile__fails", {}), { qualify: true });
    expect(block.is_error).toBe(true);
    expect(block.content[0]).toEqual({
      type: "text",
      text: expect.stringMatching(/^\[error from tool "fails"/),
    });
  });

  it.each([
    ["a string", '{"count":1}', /must be a JSON object, not a string/],
    ["an array", [1], /must be a JSON object, not an array/],
    ["against the schema", { count: -1 }, /\/count/],
  ])("non-object or invalid input (%s) is an error result", async (_l, input, message) => {
    const block = await toAnthropicToolResult(hostile, use("mcp__hostile__record", input), { qualify: true });
    expect(block.is_error).toBe(true);
    expect(block.result.errorKind).toBe("invalid_arguments");
    expect(JSON.stringify(block.content)).toMatch(message);
  });

  it("an unknown tool is an error result", async () => {
    const block = await toAnthropicToolResult(hostile, use("nope", {}));
    expect(block).toMatchObject({ type: "tool_result", is_error: true });
    expect(block.result.errorKind).toBe("unknown_tool");
  });
});
