// Plain MCP tools (as `@modelcontextprotocol/client`'s listTools returns them: no serverId) in all
// four adapters, their calls routed through a caller by name; and an unknown tool named by a
// model, an error result saying it does not exist, on every answer path.
import { InMemoryTransport, Client as SdkClient, type Tool as SdkTool } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkTools } from "../src/adapters/ai-sdk.js";
import { anthropicTools, toAnthropicToolResult } from "../src/adapters/anthropic.js";
import {
  openaiResponsesTools,
  openaiTools,
  toOpenAIFunctionCallOutput,
  toOpenAIToolMessage,
} from "../src/adapters/openai.js";
import { type Client, callForModel, Hub, type LlmResult } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { ClientPool, silentLogger, uniqueName } from "./support/index.js";
import { officialServer } from "./support/official-in-process.js";

const pool = new ClientPool();
let ours: Client;
let sdk: SdkClient;
let sdkTools: SdkTool[];

beforeAll(async () => {
  ours = pool.create({
    name: uniqueName("plain"),
    serverId: "official",
    transport: { type: "in-process", server: officialServer() },
    logger: silentLogger(),
  });
  await ours.ready();
  // The official SDK's own client, over its in-memory transport, to the same kind of server.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await officialServer().connect(serverSide);
  sdk = new SdkClient({ name: "sdk", version: "1.0.0" });
  await sdk.connect(clientSide);
  sdkTools = (await sdk.listTools()).tools;
});
afterAll(async () => {
  await sdk.close();
  await pool.closeAll();
});

const text = (r: LlmResult) => r.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");

describe("plain MCP tools", () => {
  it("all four adapters take the SDK's Tool[] (no serverId), under the tools' own names", async () => {
    expect(sdkTools.some((t) => t.name === "echo")).toBe(true);
    expect("serverId" in sdkTools[0]!).toBe(false);
    const chat = await openaiTools(sdkTools);
    const responses = await openaiResponsesTools(sdkTools, { qualify: true });
    const anthropic = await anthropicTools(sdkTools);
    const ai = await aiSdkTools(sdkTools);
    // Sorted by name, whatever the listing's order: the bytes a model sees are stable.
    const names = sdkTools.map((t) => t.name).sort();
    expect(chat.map((t) => t.function.name)).toEqual(names);
    // No server to qualify them with: they keep their names.
    expect(responses.map((t) => t.name)).toEqual(names);
    expect(anthropic.map((t) => t.name)).toEqual(names);
    expect(Object.keys(ai)).toEqual(names);
    expect(chat.find((t) => t.function.name === "echo")!.function).toMatchObject({
      strict: true,
      parameters: { properties: { message: { type: "string" } }, required: ["message"] },
    });
    // Definitions only: nothing to call them with.
    expect(ai.echo!.execute).toBeUndefined();
  });

  it("and our client's listing with its serverId stripped, the same", async () => {
    const listed = (await ours.listAllTools()).map(({ serverId: _, ...tool }) => tool);
    expect((await openaiTools(listed)).map((t) => t.function.name)).toEqual(listed.map((t) => t.name).sort());
  });

  it("calls are routed through the caller given to the to… functions, by name", async () => {
    await openaiTools(sdkTools);
    const chat = await toOpenAIToolMessage(ours, {
      id: "c",
      type: "function",
      function: { name: "echo", arguments: '{"message":"routed"}' },
    });
    expect(chat.result.isError).toBe(false);
    expect(chat.content).toContain("routed");
    expect(chat.result.provenance.serverId).toBe("official");
    const block = await toAnthropicToolResult(ours, { id: "t", name: "echo", input: { message: "too" } });
    expect(text(block.result)).toContain("too");
  });

  it("a list item that is not a tool is still a TypeError", async () => {
    await expect(openaiTools([{ name: "x" } as never])).rejects.toThrow(/tools\[0\] is not a Tool/);
    await expect(anthropicTools([{ name: "x", inputSchema: {}, serverId: 3 } as never])).rejects.toThrow(
      TypeError,
    );
  });
});

describe("an unknown tool named by the model", () => {
  const NO_SUCH = 'There is no tool named "nope". Call one of the tools you were given';

  it("every adapter's answer says it does not exist", async () => {
    const chat = await toOpenAIToolMessage(ours, {
      id: "c",
      type: "function",
      function: { name: "nope", arguments: "{}" },
    });
    expect(chat.result).toMatchObject({ isError: true, errorKind: "unknown_tool" });
    expect(chat.content).toContain(NO_SUCH);
    const responses = await toOpenAIFunctionCallOutput(ours, { call_id: "f", name: "nope", arguments: "{}" });
    expect(text(responses.result)).toContain(NO_SUCH);
    const block = await toAnthropicToolResult(ours, { id: "t", name: "nope", input: {} });
    expect(block.is_error).toBe(true);
    expect(text(block.result)).toContain(NO_SUCH);
  });

  it('callForModel, and a hub with shape: "llm": a server that refuses the name, and a hub that has no route', async () => {
    const shaped = await callForModel(ours, "nope", {});
    expect(shaped).toMatchObject({ isError: true, errorKind: "unknown_tool" });
    expect(text(shaped)).toContain(NO_SUCH);
    const hub = new Hub({
      name: uniqueName("plain-hub"),
      servers: {
        f: {
          transport: {
            type: "in-process",
            server: new FakeServer().tool("t", { type: "object" }, () => "ok"),
          },
        },
      },
      logger: silentLogger(),
    });
    try {
      const missing = await hub.callTool("mcp__f__nope", {}, { shape: "llm" });
      expect(missing).toMatchObject({ isError: true, errorKind: "unknown_tool" });
      expect(text(missing)).toContain('There is no tool named "mcp__f__nope"');
    } finally {
      await hub.close();
    }
  });

  it("a tool withdrawn after the model was given it, the same", async () => {
    const server = officialServer();
    const temp = server.registerTool("temp", { description: "goes away" }, async () => ({ content: [] }));
    const c = pool.create({
      name: uniqueName("plain-withdrawn"),
      serverId: "o",
      transport: { type: "in-process", server },
      logger: silentLogger(),
    });
    await c.ready();
    expect((await openaiTools(c)).some((t) => t.function.name === "temp")).toBe(true);
    temp.remove();
    const reply = await toOpenAIToolMessage(c, {
      id: "c",
      type: "function",
      function: { name: "temp", arguments: "{}" },
    });
    expect(reply.result).toMatchObject({ isError: true, errorKind: "unknown_tool" });
    expect(reply.content).toContain('There is no tool named "temp"');
  });
});
