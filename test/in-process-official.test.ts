import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { McpClientError, type ProgressParams, type ServerNotification } from "../src/index.js";
import { ClientPool } from "./support/clients.js";
import { type OfficialSeen, officialServer } from "./support/official-in-process.js";

const pool = new ClientPool();
afterEach(() => pool.closeAll());

function client(protocol: "auto" | "legacy", seen?: OfficialSeen) {
  return pool.create({
    name: `official-in-process-${protocol}`,
    transport: { type: "in-process", server: officialServer(seen) },
    protocol,
    requestTimeout: 5000,
    logger: { warn: () => {} },
  });
}

describe.each([
  ["auto", "modern"],
  ["legacy", "legacy"],
] as const)("the official McpServer in-process, protocol %s", (protocol, era) => {
  it(`negotiates the ${era} era and serves every request function`, async () => {
    const c = client(protocol);
    await c.ready();
    expect(c.era()).toBe(era);
    expect(c.serverInfo().serverInfo?.name).toBe("official-in-process");
    await c.ping();
    const tools = await c.listAllTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["boom", "echo", "slow"]);
    expect((await c.listTools()).tools).toHaveLength(3);
    expect(await c.callTool("echo", { message: "hi" })).toMatchObject({
      content: [{ type: "text", text: "hi" }],
      isError: false,
    });
    expect((await c.listAllResources()).map((r) => r.uri)).toEqual(["file:///readme.md"]);
    expect((await c.listResources()).resources).toHaveLength(1);
    expect((await c.listAllResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["note://{id}"]);
    expect((await c.listResourceTemplates()).resourceTemplates).toHaveLength(1);
    expect((await c.listPrompts()).prompts).toHaveLength(1);
    expect(await c.readResource("note://7")).toMatchObject({ contents: [{ text: "note 7" }] });
    expect((await c.listAllPrompts()).map((p) => p.name)).toEqual(["greeting"]);
    expect(await c.getPrompt("greeting", { name: "Ada" })).toMatchObject({
      messages: [{ content: { text: "Hello, Ada!" } }],
    });
    expect(await c.complete({ prompt: "greeting" }, { name: "name", value: "A" })).toMatchObject({
      completion: { values: ["Ada", "Alan"] },
    });
    await c.setLogLevel("debug");
  });

  it("a tool that throws is a tool error, and the client keeps working", async () => {
    const c = client(protocol);
    const r = await c.callTool("boom", {});
    expect(r.isError).toBe(true);
    expect(await c.callTool("echo", { message: "still here" })).toMatchObject({ isError: false });
  });

  it("progress and log notifications of a running call reach the caller", async () => {
    const c = client(protocol);
    const logs: ServerNotification[] = [];
    c.onNotification((n) => {
      if (n.method === "notifications/message") logs.push(n);
    });
    await c.setLogLevel("info");
    const progress: ProgressParams[] = [];
    const r = await c.callTool("slow", { steps: 3 }, { onProgress: (p) => progress.push(p) });
    expect(r.content).toEqual([{ type: "text", text: "done after 3" }]);
    // Each one, in order, before the result (requests.md).
    expect(progress.map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(logs.map((l) => (l.params as { data: { step: number } }).data.step)).toEqual([1, 2, 3]);
  });

  it("cancelling a call aborts the server's handler", async () => {
    const seen: OfficialSeen = { cancelled: 0, metas: [] };
    const c = client(protocol, seen);
    const controller = new AbortController();
    const call = c.callTool(
      "slow",
      { steps: 3, hangAt: 2 },
      {
        signal: controller.signal,
        onProgress: () => controller.abort(new Error("stop")),
      },
    );
    await expect(call).rejects.toThrow("stop");
    await expect.poll(() => seen.cancelled).toBe(1);
    expect(await c.callTool("echo", { message: "after" })).toMatchObject({ isError: false });
  });

  it("a deadline cancels the handler too, with kind timeout", async () => {
    const seen: OfficialSeen = { cancelled: 0, metas: [] };
    const c = client(protocol, seen);
    await c.ready();
    await expect(c.callTool("slow", { steps: 2, hangAt: 1 }, { timeout: 50 })).rejects.toMatchObject({
      kind: "timeout",
    });
    await expect.poll(() => seen.cancelled).toBe(1);
  });
});

describe("the official McpServer in-process: what holds in one era", () => {
  it("subscriptions/listen is answered -32601 (it needs HTTP); subscribe fails with it", async () => {
    const c = client("auto");
    await c.ready();
    const err = await c.subscribe("file:///readme.md", { timeout: 2000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "protocol", reason: "subscriptions_not_supported" });
    expect(await c.callTool("echo", { message: "after" })).toMatchObject({ isError: false });
  });

  it("a factory gets the era the opening message picked", async () => {
    const eras: string[] = [];
    const c = pool.create({
      name: "official-factory",
      transport: {
        type: "in-process",
        server: ({ era }) => {
          eras.push(era);
          return officialServer();
        },
      },
      protocol: "legacy",
    });
    await c.ready();
    expect(eras).toEqual(["legacy"]);
  });
});

describe("the official McpServer in-process: hostile handlers", () => {
  function hostile() {
    const server = officialServer();
    server.registerTool(
      "huge",
      { description: "An oversize result", inputSchema: z.object({}) },
      async () => ({
        content: [{ type: "text", text: "x".repeat(64 * 1024) }],
      }),
    );
    server.registerTool(
      "malformed",
      { description: "Content that is not a list", inputSchema: z.object({}) },
      async () => ({
        content: "not a list" as never,
      }),
    );
    server.registerTool(
      "hang",
      { description: "Never answers", inputSchema: z.object({}) },
      () => new Promise(() => {}),
    );
    return server;
  }

  it("an oversize result closes the transport with message_too_large; the client reconnects", async () => {
    const c = pool.create({
      name: "official-oversize",
      transport: { type: "in-process", server: hostile(), maxMessageBytes: 16 * 1024 },
      requestTimeout: 5000,
      logger: { warn: () => {} },
    });
    await expect(c.callTool("huge", {})).rejects.toMatchObject({ kind: "message_too_large" });
    expect(await c.callTool("echo", { message: "after" })).toMatchObject({ isError: false });
  });

  it("a malformed result is a typed error, never a crash", async () => {
    const c = pool.create({
      name: "official-malformed",
      transport: { type: "in-process", server: hostile() },
      logger: { warn: () => {} },
    });
    // The SDK checks its own result and answers -32602 (a malformed result that does reach the
    // client is refused by intake: see fake-server.test.ts).
    await expect(c.callTool("malformed", {})).rejects.toMatchObject({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32602 },
    });
    expect(await c.callTool("echo", { message: "after" })).toMatchObject({ isError: false });
  });

  it("a handler that never answers ends at the deadline with kind timeout", async () => {
    const c = pool.create({
      name: "official-hang",
      transport: { type: "in-process", server: hostile() },
      logger: { warn: () => {} },
    });
    await expect(c.callTool("hang", {}, { timeout: 100 })).rejects.toMatchObject({ kind: "timeout" });
    expect(await c.callTool("echo", { message: "after" })).toMatchObject({ isError: false });
  });
});
