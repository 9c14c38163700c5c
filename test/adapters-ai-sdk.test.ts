// conduit-mcp/ai-sdk: a ToolSet built with the SDK's own tool()/jsonSchema(), run by the SDK's
// generateText against a scripted model, with real servers behind it.
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkTools } from "../src/adapters/ai-sdk.js";
import type { Client, Tool } from "../src/index.js";
import { adapterPeers } from "./support/adapters.js";
import { afterRequestStarts, ClientPool } from "./support/index.js";

const pool = new ClientPool();
let everything: Client;
let hostile: Client;

beforeAll(async () => {
  ({ everything, hostile } = await adapterPeers(pool, "ai"));
});
afterAll(() => pool.closeAll());

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** A model that calls one tool with `input`, then answers with the tool result's text. */
function scriptedModel(toolName: string, input: string) {
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const answered = options.prompt.some((m) => m.role === "tool");
      if (!answered) {
        return {
          content: [{ type: "tool-call", toolCallId: "c1", toolName, input }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: "done" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

describe("aiSdkTools", () => {
  it("generateText runs a real tool through the set and the model sees the shaped result", async () => {
    const tools = await aiSdkTools(everything);
    expect(Object.keys(tools)).toContain("get-sum");
    const model = scriptedModel("get-sum", '{"a":20,"b":22}');
    const result = await generateText({ model, tools, prompt: "add", stopWhen: isStepCount(3) });
    expect(result.text).toBe("done");
    const toolResult = result.steps[0]!.toolResults[0]!;
    expect(toolResult.output).toMatchObject({
      isError: false,
      provenance: { serverId: "everything", tool: "get-sum" },
    });
    // What the model was sent for the tool result: content parts, the source marked first.
    const second = model.doGenerateCalls[1]!.prompt.find((m) => m.role === "tool")!;
    const part = second.content[0] as {
      type: string;
      output: { type: string; value: Array<{ text?: string }> };
    };
    expect(part.output.type).toBe("content");
    expect(part.output.value[0]!.text).toMatch(/^\[from tool "get-sum" on MCP server "everything"/);
    expect(part.output.value.map((v) => v.text).join("\n")).toContain("42");
  });

  it("images reach the model as file parts", async () => {
    const tools = await aiSdkTools(everything);
    const model = scriptedModel("get-tiny-image", "{}");
    await generateText({ model, tools, prompt: "image", stopWhen: isStepCount(3) });
    const second = model.doGenerateCalls[1]!.prompt.find((m) => m.role === "tool")!;
    const part = second.content[0] as { output: { value: Array<{ type: string; mediaType?: string }> } };
    expect(part.output.value.some((v) => v.type === "file" && v.mediaType === "image/png")).toBe(true);
  });

  it("a model's invalid arguments become an error output the model sees", async () => {
    const tools = await aiSdkTools(hostile, { qualify: true });
    const model = scriptedModel("mcp__hostile__record", '{"count":0}');
    await generateText({ model, tools, prompt: "go", stopWhen: isStepCount(3) });
    const second = model.doGenerateCalls[1]!.prompt.find((m) => m.role === "tool")!;
    const part = second.content[0] as { output: { type: string; value: string } };
    expect(part.output.type).toBe("error-text");
    expect(part.output.value).toMatch(/do not match the tool's input schema[\s\S]*\/count/);
  });

  it("strict mode gives the strict schema and strips the nulls it added", async () => {
    const tools = await aiSdkTools(hostile, { qualify: true, strict: "auto" });
    const record = tools.mcp__hostile__record!;
    expect(record.strict).toBe(true);
    const out = await record.execute!(
      { count: 3, label: null, note: null },
      { toolCallId: "x", messages: [], context: {} },
    );
    expect((out as { structured: unknown }).structured).toEqual({ received: { count: 3, note: null } });
    expect(tools.mcp__hostile__deep!.strict).toBeUndefined();
  });

  it("execute honours the abort signal: the call is cancelled and rejects", async () => {
    const tools = await aiSdkTools(hostile, { qualify: true });
    const controller = new AbortController();
    const reason = new Error("stop");
    afterRequestStarts("tools/call", () => controller.abort(reason));
    const pending = tools.mcp__hostile__hang!.execute!(
      {},
      {
        toolCallId: "x",
        messages: [],
        context: {},
        abortSignal: controller.signal,
      },
    );
    await expect(pending).rejects.toBe(reason);
    // The client is still fine.
    const again = await tools.mcp__hostile__record!.execute!(
      { count: 1 },
      { toolCallId: "y", messages: [], context: {} },
    );
    expect((again as { isError: boolean }).isError).toBe(false);
  });

  it("a plain Tool list gives tools without execute; a tool named __proto__ is a key like any other", async () => {
    const list: Tool[] = [
      { serverId: "s", name: "t", description: "d", inputSchema: { type: "object" } },
      { serverId: "s", name: "__proto__", inputSchema: { type: "object" } },
    ];
    const tools = await aiSdkTools(list);
    expect(tools.t!.execute).toBeUndefined();
    expect(tools.t!.description).toBe("d");
    expect(Object.keys(tools)).toEqual(["__proto__", "t"]);
    expect(Object.getPrototypeOf(tools)).toBe(Object.prototype);
  });
});
