// FakeServer in-process and over stdio. The stdio half runs the built package: `npm run build` first.
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ClientOptions, McpClientError, type ProgressParams } from "../src/index.js";
import { type FakeFault, FakeServer, fakeServerCommand } from "../src/testing/index.js";
// @ts-expect-error a plain .mjs fixture without types
import { define } from "./fixtures/fake-server-def.mjs";
import { ClientPool } from "./support/clients.js";

const DEF = fileURLToPath(new URL("./fixtures/fake-server-def.mjs", import.meta.url));
const pool = new ClientPool();
afterEach(() => pool.closeAll());

type Era = "modern" | "legacy";
const base: Partial<ClientOptions> = { requestTimeout: 3000, probeTimeout: 1000, logger: { warn: () => {} } };
const fake = (): FakeServer => define(FakeServer);

function inProcess(
  server: FakeServer,
  protocol: "auto" | "legacy" = "auto",
  extra: Partial<ClientOptions> = {},
) {
  return pool.create({
    name: "fake-in-process",
    transport: { type: "in-process", server },
    protocol,
    ...base,
    ...extra,
  });
}

function overStdio(
  faults: Array<[string, FakeFault]>,
  protocol: "auto" | "legacy" = "auto",
  extra: Partial<ClientOptions> = {},
) {
  return pool.create({
    name: "fake-stdio",
    transport: fakeServerCommand(DEF, { env: { FAKE_FAULTS: JSON.stringify(faults) }, stderr: "discard" }),
    protocol,
    ...base,
    ...extra,
  });
}

describe.each(["auto", "legacy"] as const)("FakeServer in-process, protocol %s", (protocol) => {
  const era: Era = protocol === "auto" ? "modern" : "legacy";

  it("serves its tools, resources and prompts, and records what the client sent", async () => {
    const server = fake();
    const c = inProcess(server, protocol);
    await c.ready();
    expect(c.era()).toBe(era);
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["echo", "boom", "slow", "ask"]);
    expect((await c.callTool("echo", { message: "hi" })).content).toEqual([{ type: "text", text: "hi" }]);
    expect(await c.readResource("file:///notes.md")).toMatchObject({
      contents: [{ uri: "file:///notes.md", mimeType: "text/markdown", text: "hello" }],
    });
    expect(await c.getPrompt("greeting", { name: "Ada" })).toMatchObject({
      messages: [{ role: "user", content: { type: "text", text: "Hello Ada" } }],
    });
    const calls = server.callsOf("tools/call", "echo");
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      era,
      params: { name: "echo", arguments: { message: "hi" } },
      cancelled: false,
    });
    expect(server.calls[0]?.method).toBe(era === "modern" ? "server/discover" : "initialize");
  });

  it("progress and log entries of a running call reach the caller", async () => {
    const c = inProcess(fake(), protocol);
    const logs: unknown[] = [];
    c.onNotification((n) => n.method === "notifications/message" && logs.push(n.params?.data));
    const progress: ProgressParams[] = [];
    const r = await c.callTool("slow", { steps: 3 }, { onProgress: (p) => progress.push(p) });
    expect(r.content).toEqual([{ type: "text", text: "done after 3" }]);
    // Each one, in order, before the result (requests.md).
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(logs).toEqual([{ steps: 3 }]);
  });

  it("a hang is cancelled by the deadline: timeout, the call marked cancelled, the client still works", async () => {
    const server = fake().fail("echo", { hang: true }, { times: 1 });
    const c = inProcess(server, protocol);
    await expect(c.callTool("echo", { message: "x" }, { timeout: 100 })).rejects.toMatchObject({
      kind: "timeout",
    });
    await expect.poll(() => server.callsOf("tools/call", "echo")[0]?.cancelled).toBe(true);
    expect((await c.callTool("echo", { message: "again" })).content).toEqual([
      { type: "text", text: "again" },
    ]);
  });

  it("input requests: the client's handler answers and the tool sees the answers", async () => {
    const server = fake().fail("ask", {
      inputRequests: {
        who: {
          method: "elicitation/create",
          params: {
            message: "Name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          },
        },
      },
    });
    const c = inProcess(server, protocol, {
      handler: { elicitation: () => ({ action: "accept", content: { name: "Ada" } }) },
    });
    const r = await c.callTool("ask", {});
    expect(r.structured).toEqual({ inputResponses: { who: { action: "accept", content: { name: "Ada" } } } });
  });

  it("a list change reaches notification subscribers (legacy) or needs a listen stream (modern)", async () => {
    const server = fake();
    const c = inProcess(server, protocol);
    const seen: string[] = [];
    c.onNotification((n) => seen.push(n.method));
    await c.ready();
    server.tool("added", { type: "object" }, () => "added");
    await c.ping();
    if (era === "legacy") expect(seen).toContain("notifications/tools/list_changed");
    else expect(seen).toEqual([]);
    expect((await c.listAllTools({ refresh: true })).map((t) => t.name)).toContain("added");
  });
});

describe("FakeServer's scripted faults give the same typed errors in-process and over stdio", () => {
  const cases: Array<[string, string, FakeFault | null, (c: Client) => Promise<unknown>, boolean?]> = [
    ["a JSON-RPC error", "echo", { error: { code: -32603, message: "boom" } }, (c) => c.callTool("echo", {})],
    ["a hang past the deadline", "echo", { hang: true }, (c) => c.callTool("echo", {}, { timeout: 200 })],
    ["a malformed tool result", "echo", { result: { content: "not a list" } }, (c) => c.callTool("echo", {})],
    ["a resource handler that throws", "file:///broken.md", null, (c) => c.readResource("file:///broken.md")],
    [
      "an oversize result",
      "echo",
      { result: { content: [{ type: "text", text: "x".repeat(4096) }] } },
      (c) => c.callTool("echo", {}),
      true,
    ],
    ["the server hanging up", "echo", { close: true }, (c) => c.callTool("echo", {})],
    ["an error on a list", "tools/list", { error: { code: -32000, message: "no" } }, (c) => c.listTools()],
    [
      "a null result (a malformed response)",
      "echo",
      { result: null as never },
      (c) => c.callTool("echo", {}),
    ],
  ];

  const expected: Record<string, { kind: string; code: number | null; reason?: string }> = {
    "a JSON-RPC error": { kind: "protocol", code: -32603 },
    "a hang past the deadline": { kind: "timeout", code: null },
    "a resource handler that throws": { kind: "protocol", code: -32603 },
    "an oversize result": { kind: "message_too_large", code: null },
    "the server hanging up": { kind: "transport", code: null },
    "an error on a list": { kind: "protocol", code: -32000 },
    "a null result (a malformed response)": { kind: "protocol", code: null, reason: "malformed_response" },
    "a malformed tool result": { kind: "protocol", code: null, reason: "invalid_tool_result" },
  };

  for (const [what, target, fault, act, oversize = false] of cases) {
    it(what, async () => {
      const server = fault ? fake().fail(target, fault) : fake();
      const a = pool.create({
        name: "fake-fault-in-process",
        transport: { type: "in-process", server, ...(oversize ? { maxMessageBytes: 2048 } : {}) },
        ...base,
      });
      const b = pool.create({
        name: "fake-fault-stdio",
        transport: fakeServerCommand(DEF, {
          env: { FAKE_FAULTS: JSON.stringify(fault ? [[target, fault]] : []) },
          stderr: "discard",
          ...(oversize ? { maxMessageBytes: 2048 } : {}),
        }),
        ...base,
      });
      const [ea, eb] = await Promise.all([act(a).catch((e: unknown) => e), act(b).catch((e: unknown) => e)]);
      expect(ea).toBeInstanceOf(McpClientError);
      expect(eb).toBeInstanceOf(McpClientError);
      const shape = (e: McpClientError) => ({
        kind: e.kind,
        code: e.detail !== undefined && "jsonrpc" in e.detail ? e.detail.jsonrpc : null,
      });
      expect(shape(ea as McpClientError)).toEqual(shape(eb as McpClientError));
      const { reason, ...kindAndCode } = expected[what]!;
      expect(shape(ea as McpClientError)).toEqual(kindAndCode);
      if (reason !== undefined) {
        expect((ea as McpClientError).reason).toBe(reason);
        expect((eb as McpClientError).reason).toBe(reason);
      }
      // Nothing broke for good: with the fault healed, the next call works.
      server.heal();
      expect((await a.callTool("echo", { message: "after" })).content).toEqual([
        { type: "text", text: "after" },
      ]);
    });
  }

  it("isError results and tools that throw are results, not rejections, both ways", async () => {
    const server = fake().fail("echo", { isError: true, text: "scripted" });
    const a = inProcess(server);
    const b = overStdio([["echo", { isError: true, text: "scripted" }]]);
    for (const c of [a, b]) {
      expect(await c.callTool("echo", {})).toMatchObject({ isError: true, content: [{ text: "scripted" }] });
      expect(await c.callTool("boom", {})).toMatchObject({
        isError: true,
        content: [{ text: "the fake tool blew up" }],
      });
    }
  });

  it.each(["auto", "legacy"] as const)(
    "input requests are answered the same way (protocol %s)",
    async (protocol) => {
      const fault: FakeFault = {
        inputRequests: {
          pick: {
            method: "elicitation/create",
            params: { message: "Pick", requestedSchema: { type: "object", properties: {} } },
          },
        },
      };
      const handler = { elicitation: () => ({ action: "decline" as const }) };
      const a = inProcess(fake().fail("ask", fault), protocol, { handler });
      const b = overStdio([["ask", fault]], protocol, { handler });
      const [ra, rb] = await Promise.all([a.callTool("ask", {}), b.callTool("ask", {})]);
      expect(ra.structured).toEqual({ inputResponses: { pick: { action: "decline" } } });
      expect(rb.structured).toEqual(ra.structured);
    },
  );

  it("a delay answers late but answers, in order with a call made after it", async () => {
    const server = fake().fail("slow", { delay: 50 });
    for (const c of [inProcess(server), overStdio([["slow", { delay: 50 }]])]) {
      const order: string[] = [];
      const late = c.callTool("slow", { steps: 1 }).then(() => order.push("slow"));
      const quick = c.callTool("echo", { message: "q" }).then(() => order.push("echo"));
      await Promise.all([late, quick]);
      expect(order).toEqual(["echo", "slow"]);
    }
  });

  it("over stdio a modern client hears list changes on its listen stream", async () => {
    const c = overStdio([["echo", { listChanged: "tools" }]]);
    await c.listAllTools();
    const seen: string[] = [];
    c.onNotification((n) => seen.push(n.method));
    await c.callTool("echo", { message: "x" });
    await expect.poll(() => seen).toContain("notifications/tools/list_changed");
  });
});

describe("FakeServer options", () => {
  it("refuses bad builder input with a TypeError", () => {
    expect(() => new FakeServer({ eras: [] })).toThrow(TypeError);
    expect(() => new FakeServer().tool("", {}, () => "x")).toThrow(TypeError);
    expect(() => new FakeServer().fail("echo", { hang: true }, { times: 0 })).toThrow(TypeError);
  });

  it("a legacy-only server is found by the probe; a modern-only one refuses legacy", async () => {
    const legacy = inProcess(define(FakeServer, { eras: ["legacy"] }));
    await legacy.ready();
    expect(legacy.era()).toBe("legacy");
    const modernOnly = inProcess(define(FakeServer, { eras: ["modern"] }), "legacy", { maxReconnects: 0 });
    await expect(modernOnly.ready()).rejects.toBeInstanceOf(McpClientError);
  });

  it("in-process transport options are checked before any I/O", () => {
    expect(() => new Client({ name: "x", transport: { type: "in-process", server: {} as never } })).toThrow(
      TypeError,
    );
    expect(
      () => new Client({ name: "x", transport: { type: "in-process", server: fake(), maxMessageBytes: 0 } }),
    ).toThrow(TypeError);
    expect(
      () => new Client({ name: "x", transport: { type: "in-process", server: fake(), nope: 1 } as never }),
    ).toThrow(TypeError);
  });
});
