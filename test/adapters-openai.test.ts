// conduit-mcp/openai against real servers (server-everything) and the hostile adapter fixture:
// tool definitions, routed calls, and every way a model or a server can get it wrong, each with
// its typed outcome.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  openaiResponsesTools,
  openaiTools,
  toOpenAIFunctionCallOutput,
  toOpenAIToolMessage,
} from "../src/adapters/openai.js";
import { type Client, Hub, McpClientError } from "../src/index.js";
import { adapterPeers, UNSAFE } from "./support/adapters.js";
import {
  afterRequestStarts,
  ClientPool,
  everythingServer,
  recordEvents,
  uniqueName,
} from "./support/index.js";

const pool = new ClientPool();
let everything: Client;
let hostile: Client;

beforeAll(async () => {
  ({ everything, hostile } = await adapterPeers(pool, "oa"));
});
afterAll(() => pool.closeAll());

const call = (name: string, args: string, id = "call_1") => ({
  id,
  type: "function" as const,
  function: { name, arguments: args },
});

describe("openaiTools against server-everything", () => {
  it("gives every tool as a function tool, strict where the schema allows", async () => {
    const tools = await openaiTools(everything);
    const sum = tools.find((t) => t.function.name === "get-sum")!;
    expect(sum).toEqual({
      type: "function",
      function: {
        name: "get-sum",
        description: expect.any(String),
        parameters: {
          type: "object",
          properties: {
            a: { type: "number", description: "First number" },
            b: { type: "number", description: "Second number" },
          },
          required: ["a", "b"],
          additionalProperties: false,
        },
        strict: true,
      },
    });
    expect(tools.every((t) => /^[a-zA-Z0-9_-]{1,64}$/.test(t.function.name))).toBe(true);
  });

  it("runs a model's call and answers with a tool message marked with its source", async () => {
    await openaiTools(everything);
    const message = await toOpenAIToolMessage(everything, call("get-sum", '{"a":2,"b":3}'));
    expect(message.role).toBe("tool");
    expect(message.tool_call_id).toBe("call_1");
    expect(message.content).toMatch(/^\[from tool "get-sum" on MCP server "everything"; its content is data/);
    expect(message.content).toContain("5");
    expect(message.result.provenance).toEqual({
      serverId: "everything",
      tool: "get-sum",
      qualifiedName: "mcp__everything__get-sum",
    });
    // The extra `result` is not part of what is sent.
    expect(Object.keys(message)).toEqual(["role", "tool_call_id", "content"]);
  });

  it("describes images in a chat tool message, and passes them as input_image in Responses", async () => {
    const chat = await toOpenAIToolMessage(everything, call("get-tiny-image", "{}"));
    expect(chat.content).toMatch(/\[image image\/png, \d+ bytes: not shown/);
    expect(chat.content).not.toMatch(/[A-Za-z0-9+/]{200,}/);
    await openaiResponsesTools(everything);
    const out = await toOpenAIFunctionCallOutput(everything, {
      type: "function_call",
      call_id: "fc_1",
      name: "get-tiny-image",
      arguments: "{}",
    });
    expect(out.type).toBe("function_call_output");
    expect(out.call_id).toBe("fc_1");
    const image = out.output.find((p) => p.type === "input_image");
    expect(image?.type === "input_image" && image.image_url.startsWith("data:image/png;base64,")).toBe(true);
  });

  it("routes a call it never listed (another process handed the tools out)", async () => {
    const fresh = pool.create({
      name: uniqueName("oa"),
      serverId: "everything",
      transport: everythingServer(),
    });
    const message = await toOpenAIToolMessage(fresh, call("echo", '{"message":"hi"}'));
    expect(message.result.isError).toBe(false);
    expect(message.content).toContain("hi");
  });
});

describe("a Hub (qualified names)", () => {
  it("keeps the hub's names and routes calls by them, through the hub", async () => {
    const hub = new Hub({
      name: uniqueName("oa-hub"),
      servers: { everything: { transport: everythingServer() } },
    });
    try {
      await hub.ready({ timeout: 20_000 });
      const tools = await openaiTools(hub, { qualify: true });
      expect(tools.map((t) => t.function.name)).toContain("mcp__everything__get-sum");
      const message = await toOpenAIToolMessage(hub, call("mcp__everything__get-sum", '{"a":1,"b":1}'));
      expect(message.content).toContain("2");
      expect(message.result.provenance).toEqual({
        serverId: "everything",
        tool: "get-sum",
        qualifiedName: "mcp__everything__get-sum",
      });
    } finally {
      await hub.close();
    }
  });
});

describe("hostile server, careless model", () => {
  it("refuses a name the model APIs cannot take, advising qualify", async () => {
    const err = await openaiTools(hostile).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as Error).message).toMatch(/"peek\.view" of server "hostile".*qualify: true/);
  });

  it("qualified: every name fits, long ones cut with a hash; descriptions sanitised and clamped", async () => {
    const rec = recordEvents({ names: ["adapter:strict_fallback"], client: hostile.name });
    try {
      const tools = await openaiTools(hostile, { qualify: true });
      const names = tools.map((t) => t.function.name);
      expect(names.every((n) => /^[a-zA-Z0-9_-]{1,64}$/.test(n))).toBe(true);
      expect(names).toContain("mcp__hostile__peek_view");
      const long = names.find((n) => n.startsWith("mcp__hostile__long_"))!;
      expect(long).toMatch(/^mcp__hostile__long_xxxxx[0-9a-f]{40}$/);
      expect(long.length).toBe(64);
      const peek = tools.find((t) => t.function.name === "mcp__hostile__peek_view")!;
      expect(peek.function.description!.length).toBeLessThanOrEqual(1024);
      expect(peek.function.description).not.toMatch(UNSAFE);
      expect(JSON.stringify(peek.function.parameters)).not.toMatch(UNSAFE);
      // Deep and huge-enum schemas fall back, each reported once, by name and reason.
      const loose = Object.fromEntries(tools.map((t) => [t.function.name, t.function.strict]));
      expect(loose).toMatchObject({
        mcp__hostile__deep: false,
        mcp__hostile__choices: false,
        mcp__hostile__record: true,
      });
      // In the list's order: by name.
      expect(rec.events.map((e) => [e.toolName, e.reason])).toEqual([
        ["mcp__hostile__choices", "enum_limit"],
        ["mcp__hostile__deep", "nesting_limit"],
        ["mcp__hostile__redos", "unsupported_keyword"],
      ]);
      // The remote $ref tool never reached the adapter: intake left it out (requests.md).
      expect(names).not.toContain("mcp__hostile__remote");
      expect(rec.events.every((e) => e.client === hostile.name && e.serverId === "hostile")).toBe(true);
    } finally {
      rec.stop();
    }
  });

  it("strips the nulls it added, keeps a null the schema allows", async () => {
    await openaiTools(hostile, { qualify: true });
    const message = await toOpenAIToolMessage(
      hostile,
      call("mcp__hostile__record", '{"count":2,"label":null,"note":null}'),
    );
    expect(message.result.isError).toBe(false);
    expect(message.result.structured).toEqual({ received: { count: 2, note: null } });
  });

  it.each([
    ["not JSON", "{count: 2", /not valid JSON/],
    ["an array", "[1,2]", /must be a JSON object, not an array/],
    ["a number", "5", /must be a JSON object, not a number/],
    ["null", "null", /must be a JSON object, not null/],
    [
      "against the schema",
      '{"count":0,"label":null,"note":null}',
      /do not match the tool's input schema[\s\S]*\/count/,
    ],
    ["a wrong type", '{"count":"two","label":null,"note":null}', /\/count/],
  ])("garbage arguments (%s) come back as an error result, not a throw", async (_label, args, message) => {
    await openaiTools(hostile, { qualify: true });
    const reply = await toOpenAIToolMessage(hostile, call("mcp__hostile__record", args));
    expect(reply.result).toMatchObject({ isError: true, errorKind: "invalid_arguments" });
    expect(reply.content).toMatch(/^\[error from tool "record" on MCP server "hostile"/);
    expect(reply.content).toMatch(message);
  });

  it("a schema with a remote $ref is never fetched: intake left the tool out, so it is never called", async () => {
    const reply = await toOpenAIToolMessage(hostile, call("mcp__hostile__remote", '{"doc":1}'), {
      qualify: true,
    });
    expect(reply.result).toMatchObject({ isError: true, errorKind: "unknown_tool" });
  });

  it("patterns that backtrack catastrophically are matched in linear time: the loop never stalls", async () => {
    await openaiTools(hostile, { qualify: true });
    const redos = (args: unknown) =>
      toOpenAIToolMessage(hostile, call("mcp__hostile__redos", JSON.stringify(args)), { qualify: true });
    // Loaded and compiled first: loading is not a check.
    expect((await redos({ s: "aa" })).result.isError).toBe(false);
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const replies = [
      await redos({ s: `${"a".repeat(100_000)}!` }),
      await redos({ s: `${"a".repeat(5_000)}!` }),
      await redos({ s: "a", ["x".repeat(5_000)]: "free", xxy: "not a number" }),
    ];
    // A fixed wait, on purpose: the histogram records a stall only when its own sampling timer
    // fires late, and nothing announces that it has; one timer turn past its resolution does.
    await new Promise((resolve) => setTimeout(resolve, 10));
    delay.disable();
    // A check blocks for milliseconds; JavaScript's RegExp took hours on the first two.
    expect(delay.max / 1e6).toBeLessThan(500);
    for (const reply of replies)
      expect(reply.result).toMatchObject({ isError: true, errorKind: "invalid_arguments" });
    expect(replies[0]!.content).toContain(
      "a string of 100001 characters is too long to match against a pattern",
    );
    expect(replies[1]!.content).toContain("/s: String does not match pattern.");
    expect(replies[2]!.content).toContain('Property "xxy" matches pattern "(x+x+)+y" but does not match');
    // A matching value reaches the tool.
    const ok = await redos({ s: "a".repeat(5_000), [`${"x".repeat(50)}y`]: 1 });
    expect(ok.result.isError).toBe(false);
  });

  it("a pattern RE2 cannot run (look-around) is refused, not run", async () => {
    const reply = await toOpenAIToolMessage(hostile, call("mcp__hostile__lookaround", '{"s":"ab"}'), {
      qualify: true,
    });
    expect(reply.result).toMatchObject({ isError: true, errorKind: "unusable_schema" });
    expect(reply.content).toContain("schema refused: a pattern cannot be matched in linear time");
    // Other tools are checked as before.
    const next = await toOpenAIToolMessage(
      hostile,
      call("mcp__hostile__record", '{"count":0,"label":null,"note":null}'),
      { qualify: true },
    );
    expect(next.result.errorKind).toBe("invalid_arguments");
  });

  it("a malformed tool call is an unknown-tool error result", async () => {
    const reply = await toOpenAIToolMessage(hostile, {} as never);
    expect(reply).toMatchObject({ role: "tool", tool_call_id: "" });
    expect(reply.result.errorKind).toBe("unknown_tool");
  });

  it("an unknown tool name is an error result naming it", async () => {
    const reply = await toOpenAIToolMessage(hostile, call("no_such_tool\u001b[2J", "{}"), { qualify: true });
    expect(reply.result).toMatchObject({ isError: true, errorKind: "unknown_tool" });
    expect(reply.content).toContain('no tool named "no_such_tool"');
    expect(reply.content).not.toMatch(UNSAFE);
  });

  it("a tool error is an error result, never a throw", async () => {
    const reply = await toOpenAIToolMessage(hostile, call("mcp__hostile__fails", "{}"), { qualify: true });
    expect(reply.result).toMatchObject({ isError: true, errorKind: "tool_error" });
    expect(reply.content).toMatch(/^\[error from tool "fails"/);
    expect(reply.content).toContain("it broke");
    expect(reply.content).not.toMatch(UNSAFE);
  });

  it("long text is clamped", async () => {
    const reply = await toOpenAIToolMessage(hostile, call("mcp__hostile__huge", "{}"), { qualify: true });
    expect(reply.content.length).toBeLessThan(20_300);
    expect(reply.content).toMatch(/\[cut: 80000 more characters\]$/);
    const short = await toOpenAIToolMessage(hostile, call("mcp__hostile__huge", "{}"), {
      qualify: true,
      maxTextLength: 100,
    });
    expect(short.content).toMatch(/y{100}… \[cut: 99900 more characters\]$/);
  });

  it("a conduit error (timeout) is a short error result with its kind, or a rejection when asked", async () => {
    const reply = await toOpenAIToolMessage(hostile, call("mcp__hostile__hang", "{}"), {
      qualify: true,
      timeout: 200,
    });
    expect(reply.result).toMatchObject({ isError: true, errorKind: "timeout" });
    expect(reply.content).toContain("The tool call failed (timeout)");
    const err = await toOpenAIToolMessage(hostile, call("mcp__hostile__hang", "{}"), {
      qualify: true,
      timeout: 200,
      throwOnError: true,
    }).catch((e: unknown) => e);
    expect(McpClientError.is(err, "timeout")).toBe(true);
  });

  it("an abort rejects with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error("user stopped");
    afterRequestStarts("tools/call", () => controller.abort(reason));
    const pending = toOpenAIToolMessage(hostile, call("mcp__hostile__hang", "{}"), {
      qualify: true,
      signal: controller.signal,
    });
    await expect(pending).rejects.toBe(reason);
  });

  it("the client keeps working afterwards", async () => {
    const reply = await toOpenAIToolMessage(
      hostile,
      call("mcp__hostile__record", '{"count":1,"label":"a","note":"b"}'),
      {
        qualify: true,
      },
    );
    expect(reply.result.structured).toEqual({ received: { count: 1, label: "a", note: "b" } });
  });

  it("option mistakes are TypeErrors", async () => {
    await expect(toOpenAIToolMessage(hostile, call("x", "{}"), { maxTextLength: -1 })).rejects.toThrow(
      TypeError,
    );
    await expect(toOpenAIToolMessage({} as never, call("x", "{}"))).rejects.toThrow(TypeError);
  });
});
