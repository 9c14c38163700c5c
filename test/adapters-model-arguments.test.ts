// What a model sends, through every adapter, `callForModel` and the hub's `shape: "llm"`. Against the scripted
// server, which records every tools/call it receives: arguments holding a prototype key are an
// error result naming the key, pollute nothing, and never reach the server. Against the official
// server in process: the nulls strict mode made the model send are stripped before it sees them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { aiSdkTools } from "../src/adapters/ai-sdk.js";
import { anthropicTools, toAnthropicToolResult } from "../src/adapters/anthropic.js";
import { openaiTools, toOpenAIToolMessage } from "../src/adapters/openai.js";
import { type Client, callForModel, Hub, type LlmResult } from "../src/index.js";
import { UNSAFE } from "./support/adapters.js";
import { ClientPool, silentLogger, uniqueName } from "./support/index.js";
import { officialServer } from "./support/official-in-process.js";
import { scriptedTransport, toolCallsIn } from "./support/scripted.js";

const TOOLS = [
  {
    name: "echo",
    description: "echoes",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" }, opts: { type: "object" }, list: { type: "array" } },
    },
  },
];

const pool = new ClientPool();
let dir: string;
let stateFile: string;
let client: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "conduit-adapter-args-"));
  stateFile = join(dir, "state.log");
  client = pool.create({
    name: uniqueName("args"),
    serverId: "scripted",
    transport: scriptedTransport({ tools: TOOLS, stateFile }),
    logger: silentLogger(),
  });
  await client.ready();
});
afterAll(async () => {
  await pool.closeAll();
  rmSync(dir, { recursive: true, force: true });
});

/** The tools/call requests the server has received so far. */
const calls = () => toolCallsIn(stateFile).length;

// Each as a model writes it: JSON text (OpenAI) parses into own keys named `__proto__`.
const HOSTILE: Array<[string, string, string]> = [
  ["__proto__ at the top", '{"message":"hi","__proto__":{"polluted":true}}', "/__proto__"],
  ["constructor.prototype", '{"constructor":{"prototype":{"polluted":true}}}', "/constructor"],
  ["prototype deep in an array", '{"list":[1,{"a":{"prototype":{"polluted":true}}}]}', "/list/1/a/prototype"],
  [
    "__proto__ under a hostile key",
    '{"opts":{"x\\u001b[2J":{"__proto__":{"polluted":true}}}}',
    "/opts/x/__proto__",
  ],
];

function expectRefused(result: LlmResult, where: string): void {
  const key = where.slice(where.lastIndexOf("/") + 1);
  expect(result).toMatchObject({ isError: true, errorKind: "invalid_arguments" });
  const text = result.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");
  expect(text).toContain(`The arguments hold the key "${key}" (at ${where}), which is refused`);
  expect(text).not.toMatch(UNSAFE);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe("prototype keys in a model's arguments", () => {
  it("OpenAI: an error result naming the key; nothing polluted, nothing sent", async () => {
    await openaiTools(client);
    const before = calls();
    for (const [, args, where] of HOSTILE) {
      const reply = await toOpenAIToolMessage(client, {
        id: "c",
        type: "function",
        function: { name: "echo", arguments: args },
      });
      expectRefused(reply.result, where);
    }
    expect(calls()).toBe(before);
    // The same tool with clean arguments is called.
    const ok = await toOpenAIToolMessage(client, {
      id: "c",
      type: "function",
      function: { name: "echo", arguments: '{"message":"hi"}' },
    });
    expect(ok.result.isError).toBe(false);
    expect(calls()).toBe(before + 1);
  });

  it("Anthropic: the tool_use input object, the same", async () => {
    await anthropicTools(client);
    const before = calls();
    for (const [, args, where] of HOSTILE) {
      const block = await toAnthropicToolResult(client, { id: "t", name: "echo", input: JSON.parse(args) });
      expect(block.is_error).toBe(true);
      expectRefused(block.result, where);
    }
    expect(calls()).toBe(before);
  });

  it("AI SDK: generateText with a model that sends one; the model sees the refusal", async () => {
    const tools = await aiSdkTools(client);
    const before = calls();
    const model = new MockLanguageModelV4({
      doGenerate: async (options) => {
        const answered = options.prompt.some((m) => m.role === "tool");
        return {
          content: answered
            ? [{ type: "text", text: "done" }]
            : [
                {
                  type: "tool-call",
                  toolCallId: "c1",
                  toolName: "echo",
                  input: '{"list":[{"prototype":{}}]}',
                },
              ],
          finishReason: { unified: answered ? "stop" : "tool-calls", raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 1, text: 1, reasoning: undefined },
          },
          warnings: [],
        };
      },
    });
    await generateText({ model, tools, prompt: "go", stopWhen: isStepCount(3) });
    const sent = model.doGenerateCalls[1]!.prompt.find((m) => m.role === "tool")!;
    const part = sent.content[0] as { output: { type: string; value: string } };
    expect(part.output.type).toBe("error-text");
    expect(part.output.value).toContain('The arguments hold the key "prototype" (at /list/0/prototype)');
    // And the execute path taken directly, with an own __proto__ key (as JSON.parse makes one).
    const out = (await tools.echo!.execute!(JSON.parse(HOSTILE[0]![1]), {
      toolCallId: "x",
      messages: [],
      context: {},
    })) as LlmResult;
    expectRefused(out, "/__proto__");
    expect(calls()).toBe(before);
  });

  it('callForModel on a client and callTool(..., { shape: "llm" }) on a hub, the same', async () => {
    const before = calls();
    for (const [, args, where] of HOSTILE) {
      expectRefused(await callForModel(client, "echo", JSON.parse(args)), where);
    }
    const hub = new Hub({
      name: uniqueName("args-hub"),
      servers: { s: { transport: scriptedTransport({ tools: TOOLS, stateFile }) } },
      logger: silentLogger(),
    });
    try {
      await hub.ready({ timeout: 20_000 });
      for (const [, args, where] of HOSTILE) {
        expectRefused(await hub.callTool("mcp__s__echo", JSON.parse(args), { shape: "llm" }), where);
      }
    } finally {
      await hub.close();
    }
    expect(calls()).toBe(before);
  });
});

describe("nulls strict mode made the model send", () => {
  /** The official server in process: its `slow` tool (`{ steps, hangAt? }`) and a nested `order`. */
  async function official(): Promise<Client> {
    const server = officialServer();
    server.registerTool(
      "order",
      {
        inputSchema: z.object({
          note: z.string().optional(),
          ship: z
            .object({ by: z.enum(["air", "sea"]).optional(), days: z.number().int().optional() })
            .optional(),
          lines: z.array(
            z.object({ sku: z.string(), qty: z.number().optional(), gift: z.boolean().optional() }),
          ),
        }),
      },
      async (args) => ({ content: [{ type: "text", text: JSON.stringify(args) }] }),
    );
    const c = pool.create({
      name: uniqueName("nulls"),
      serverId: "official",
      transport: { type: "in-process", server },
      logger: silentLogger(),
    });
    await c.ready();
    return c;
  }
  const chat = (name: string, args: unknown) => ({
    id: "c",
    type: "function" as const,
    function: { name, arguments: JSON.stringify(args) },
  });
  const text = (r: LlmResult) => r.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");

  it("are stripped for every optional property, whichever adapter last listed the tools", async () => {
    const c = await official();
    const tools = await openaiTools(c);
    expect(tools.find((t) => t.function.name === "slow")!.function.parameters).toMatchObject({
      required: ["steps", "hangAt"],
      properties: { hangAt: { type: ["number", "null"] } },
    });
    // Another agent in the process lists the same client for Anthropic meanwhile.
    await anthropicTools(c);
    const slow = await toOpenAIToolMessage(c, chat("slow", { steps: 1, hangAt: null }));
    expect(slow.result.isError).toBe(false);
    expect(slow.content).toContain("done after 1");
    // Nested objects and arrays of objects, optional properties of every type.
    const order = await toOpenAIToolMessage(
      c,
      chat("order", {
        note: null,
        ship: { by: null, days: null },
        lines: [
          { sku: "a", qty: null, gift: null },
          { sku: "b", qty: 2, gift: true },
        ],
      }),
    );
    expect(order.result.isError).toBe(false);
    expect(JSON.parse(order.result.content[1]!.type === "text" ? order.result.content[1]!.text : "")).toEqual(
      {
        ship: {},
        lines: [{ sku: "a" }, { sku: "b", qty: 2, gift: true }],
      },
    );
  });

  it("are stripped on a call routed by a process that did not list the tools, and by the AI SDK", async () => {
    const c = await official();
    const slow = await toOpenAIToolMessage(c, chat("slow", { steps: 1, hangAt: null }), { strict: false });
    expect(text(slow.result)).toContain("done after 1");
    const tools = await aiSdkTools(c, { strict: true });
    const out = (await tools.slow!.execute!(
      { steps: 1, hangAt: null },
      {
        toolCallId: "x",
        messages: [],
        context: {},
      },
    )) as LlmResult;
    expect(text(out)).toContain("done after 1");
    // A null at a required property is the model's mistake, and said so.
    const required = await toOpenAIToolMessage(c, chat("slow", { steps: null }));
    expect(required.result.errorKind).toBe("invalid_arguments");
    expect(text(required.result)).toContain("/steps");
  });
});
