/**
 * The HTTP transport against real servers on 127.0.0.1: the official @modelcontextprotocol/server
 * in modern-only, legacy-only and dual-era configurations, and server-everything in its
 * streamable HTTP and (deprecated) HTTP+SSE modes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Client, ProgressParams } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { httpTestClients } from "./support/http-clients.js";
import { type RunningServer, startEverything, startOfficialHttp } from "./support/http-servers.js";
import { expectEveryProgress } from "./support/progress.js";

const clients = httpTestClients("http-official");
afterEach(() => clients.closeAll());
afterAll(() => {
  clients.assertNoLeak();
  clients.events.stop();
});

/** Every request function of the client, against the official fixture's tool set. */
async function exerciseEverything(c: Client): Promise<void> {
  const tools = await c.listTools();
  expect(tools.tools.map((t) => t.name).sort()).toEqual(["add", "echo", "fail", "slow"]);
  expect((await c.listAllTools()).length).toBe(4);

  const echo = await c.callTool("echo", { message: "hi over http" });
  expect(echo).toMatchObject({ isError: false, content: [{ type: "text", text: "hi over http" }] });
  expect((await c.callTool("add", { a: 2, b: 3 })).structured).toEqual({ sum: 5 });
  expect((await c.callTool("fail", {})).isError).toBe(true);

  const read = await c.readResource("file:///readme.md");
  expect(read.contents).toEqual([{ uri: "file:///readme.md", mimeType: "text/markdown", text: "# Hello" }]);
  expect((await c.readResource("note://7")).contents).toEqual([{ uri: "note://7", text: "note 7" }]);
  expect((await c.listResources()).resources.map((r) => r.uri)).toContain("file:///readme.md");
  expect((await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toContain(
    "note://{id}",
  );

  const prompt = await c.getPrompt("greeting", { name: "Ada" });
  expect(prompt.messages).toEqual([{ role: "user", content: { type: "text", text: "Hello, Ada!" } }]);
  expect((await c.listPrompts()).prompts.map((p) => p.name)).toEqual(["greeting"]);
  const done = await c.complete({ prompt: "greeting" }, { name: "name", value: "A" });
  expect((done.completion as { values: string[] }).values).toEqual(["Ada", "Alan"]);

  await c.ping();
  await c.setLogLevel("warning");
  expect((await c.callTool("echo", { message: "after setLogLevel" })).isError).toBe(false);

  // Progress arrives on the request's event stream.
  const progress: ProgressParams[] = [];
  const slow = await c.callTool("slow", { steps: 3, every: 20 }, { onProgress: (p) => progress.push(p) });
  expect(slow.content).toEqual([{ type: "text", text: "done after 3" }]);
  expectEveryProgress(
    progress.map((p) => p.progress),
    3,
  );

  // Concurrent requests share the pool.
  const many = await Promise.all(
    Array.from({ length: 20 }, (_, i) => c.callTool("echo", { message: `m${i}` })),
  );
  expect(many.map((r) => (r.content[0] as { text: string }).text)).toEqual(
    Array.from({ length: 20 }, (_, i) => `m${i}`),
  );
}

/** Cancels a slow call mid-way; the server must see the cancellation and the client keep working. */
async function exerciseCancel(c: Client, stats: () => Promise<{ cancelled: number }>): Promise<void> {
  const before = (await stats()).cancelled;
  const ac = new AbortController();
  const call = c.callTool(
    "slow",
    { steps: 50, every: 40 },
    { signal: ac.signal, onProgress: () => ac.abort() },
  );
  await expect(call).rejects.toMatchObject({ name: "AbortError" });
  await waitFor(async () => (await stats()).cancelled !== before, "the server to see the cancellation");
  expect((await stats()).cancelled).toBe(before + 1);
  // A timeout cancels too.
  await expect(c.callTool("slow", { steps: 50, every: 40 }, { timeout: 150 })).rejects.toMatchObject({
    kind: "timeout",
  });
  await waitFor(async () => (await stats()).cancelled !== before + 1, "the server to see the cancellation");
  expect((await stats()).cancelled).toBe(before + 2);
  expect((await c.callTool("echo", { message: "still here" })).isError).toBe(false);
}

describe("the official server, modern only", () => {
  let server: Awaited<ReturnType<typeof startOfficialHttp>>;
  beforeAll(async () => {
    server = await startOfficialHttp("modern");
  });
  afterAll(() => server.stop());

  it("negotiates the modern era and every request function works", async () => {
    const c = clients.create(server.url);
    await c.ready();
    expect(c.status()).toEqual({ state: "ready", era: "modern", version: "2026-07-28", reason: null });
    expect(c.serverInfo().serverInfo).toMatchObject({ name: "official-http-modern" });
    await exerciseEverything(c);
  });

  it("cancelling closes the response stream, which the server takes as cancellation", async () => {
    const c = clients.create(server.url);
    await exerciseCancel(c, server.stats);
  });

  it('protocol: "legacy" is refused by a modern-only server with -32022, and the connection closes', async () => {
    const c = clients.create(server.url, {}, { protocol: "legacy", maxReconnects: 0 });
    const err = clients.seen(await c.ready().catch((e) => e));
    expect(err).toMatchObject({ kind: "closed" });
    expect(c.status().reason).toContain("-32022");
  });
});

describe("the official server, both eras", () => {
  let server: Awaited<ReturnType<typeof startOfficialHttp>>;
  beforeAll(async () => {
    server = await startOfficialHttp("dual");
  });
  afterAll(() => server.stop());

  it("auto negotiation picks modern", async () => {
    const c = clients.create(server.url);
    await c.ready();
    expect(c.era()).toBe("modern");
    await exerciseEverything(c);
  });

  it('protocol: "legacy" uses the stateless legacy fallback', async () => {
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    await c.ready();
    expect(c.status()).toMatchObject({ era: "legacy", version: "2025-11-25" });
    await exerciseEverything(c);
  });

  it("cancellation in both eras", async () => {
    await exerciseCancel(clients.create(server.url), server.stats);
    await exerciseCancel(clients.create(server.url, {}, { protocol: "legacy" }), server.stats);
  });
});

describe("the official server, legacy only (sessions)", () => {
  let server: Awaited<ReturnType<typeof startOfficialHttp>>;
  beforeAll(async () => {
    server = await startOfficialHttp("legacy");
  });
  afterAll(() => server.stop());

  it("every request function works in a session, and close sends DELETE", async () => {
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    await c.ready();
    expect(c.status()).toMatchObject({ era: "legacy", version: "2025-11-25" });
    const before = await server.stats();
    await exerciseEverything(c);
    await exerciseCancel(c, server.stats);
    await c.close();
    const after = await server.stats();
    expect(after.deletes).toBe(before.deletes + 1);
  });

  it("an expired session is renewed and the request sent once more", async () => {
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    await c.ready();
    const sessions = (await server.stats()).sessions;
    await server.expire();
    const r = await c.callTool("echo", { message: "after expiry" });
    expect(r.content).toEqual([{ type: "text", text: "after expiry" }]);
    expect((await server.stats()).sessions).toBe(sessions + 1);
    expect(await c.listTools()).toMatchObject({ tools: expect.any(Array) });
  });

  it("auto negotiation falls back to legacy (400 with a non-modern JSON-RPC body)", async () => {
    // Needs probe.ts to treat 400/404/405 with a non-modern JSON-RPC code (here -32000) as legacy.
    const c = clients.create(server.url);
    await c.ready();
    expect(c.status()).toMatchObject({ state: "ready", era: "legacy" });
    expect((await c.callTool("echo", { message: "x" })).isError).toBe(false);
  });
});

describe("server-everything", () => {
  let streamable: RunningServer;
  let sse: RunningServer;
  beforeAll(async () => {
    [streamable, sse] = await Promise.all([startEverything("streamableHttp"), startEverything("sse")]);
  });
  afterAll(async () => {
    await Promise.all([streamable?.stop(), sse?.stop()]);
  });

  async function exercise(c: Client): Promise<void> {
    const tools = (await c.listAllTools()).map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(["echo", "get-sum", "trigger-long-running-operation"]));
    expect((await c.callTool("echo", { message: "hello" })).content).toEqual([
      { type: "text", text: "Echo: hello" },
    ]);
    expect((await c.callTool("get-sum", { a: 1, b: 2 })).isError).toBe(false);
    const progress: number[] = [];
    const long = await c.callTool(
      "trigger-long-running-operation",
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => progress.push(p.progress) },
    );
    expect(long.isError).toBe(false);
    expectEveryProgress(progress, 3);
    const prompts = (await c.listAllPrompts()).map((p) => p.name);
    expect(prompts).toContain("simple-prompt");
    expect((await c.getPrompt("simple-prompt")).messages).toHaveLength(1);
    const done = await c.complete({ prompt: "completable-prompt" }, { name: "department", value: "E" });
    expect((done.completion as { values: string[] }).values).toEqual(["Engineering"]);
    const resources = await c.listResources();
    expect(resources.resources.length).toBeGreaterThan(0);
    const first = resources.resources[0]!;
    expect(((await c.readResource(first.uri)).contents as unknown[]).length).toBeGreaterThan(0);
    await c.ping();
    await c.setLogLevel("error");
    const ac = new AbortController();
    const cancelled = c.callTool(
      "trigger-long-running-operation",
      { duration: 5, steps: 50 },
      { signal: ac.signal, onProgress: () => ac.abort() },
    );
    await expect(cancelled).rejects.toMatchObject({ name: "AbortError" });
    expect((await c.callTool("echo", { message: "again" })).isError).toBe(false);
  }

  it("streamable HTTP (legacy sessions): every request function, progress and cancellation", async () => {
    const c = clients.create(streamable.url, {}, { protocol: "legacy" });
    await c.ready();
    expect(c.era()).toBe("legacy");
    await exercise(c);
  });

  it("streamable HTTP with auto negotiation reaches legacy", async () => {
    // Needs probe.ts to treat 400 with a non-modern JSON-RPC code (-32000) as legacy evidence.
    const c = clients.create(streamable.url);
    await c.ready();
    expect(c.era()).toBe("legacy");
  });

  it("the 2024-11-05 HTTP+SSE transport through the auto fallback", async () => {
    const c = clients.create(sse.url);
    await c.ready();
    expect(c.era()).toBe("legacy");
    await exercise(c);
  });

  it('the HTTP+SSE transport with legacySse: "only"', async () => {
    const c = clients.create(sse.url, { legacySse: "only" }, { protocol: "legacy" });
    await c.ready();
    expect((await c.callTool("echo", { message: "only" })).content).toEqual([
      { type: "text", text: "Echo: only" },
    ]);
  });

  it('legacySse: "never" does not fall back', async () => {
    const c = clients.create(sse.url, { legacySse: "never" }, { protocol: "legacy", maxReconnects: 0 });
    const err = clients.seen(await c.ready().catch((e) => e));
    expect(err).toMatchObject({ kind: "closed" });
    expect(c.status().reason).toContain("http_404");
  });
});
