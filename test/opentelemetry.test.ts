// The OpenTelemetry bridge, with the SDK's in-memory exporter. The import checks and the stdio case run the
// built package: `npm run build` first.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import {
  type Context,
  type ContextManager,
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ClientOptions, callForModel, Hub, McpClientError, Secret } from "../src/index.js";
import { FakeServer, fakeServerCommand } from "../src/testing/index.js";
// @ts-expect-error a plain .mjs fixture without types
import { define } from "./fixtures/fake-server-def.mjs";
import { ClientPool } from "./support/clients.js";
import { startOfficialHttp } from "./support/http-servers.js";
import { type OfficialSeen, officialServer } from "./support/official-in-process.js";

const DEF = fileURLToPath(new URL("./fixtures/fake-server-def.mjs", import.meta.url));

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer("test-agent");
const contextManager = new AsyncLocalStorageContextManager();
const pool = new ClientPool();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});
afterEach(async () => {
  await pool.closeAll();
  exporter.reset();
});

const fake = (): FakeServer => define(FakeServer);

function traced(
  server: FakeServer,
  extra: Partial<ClientOptions> = {},
  protocol: "auto" | "legacy" = "auto",
) {
  return pool.create({
    name: "otel",
    transport: { type: "in-process", server },
    protocol,
    requestTimeout: 3000,
    logger: { warn: () => {} },
    telemetry: { openTelemetry: provider },
    ...extra,
  });
}

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const named = (name: string): ReadableSpan[] => spans().filter((s) => s.name === name);
const one = (name: string): ReadableSpan => {
  const found = named(name);
  expect(found, `exactly one span "${name}" in ${spans().map((s) => s.name)}`).toHaveLength(1);
  return found[0]!;
};
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

describe("OpenTelemetry spans", () => {
  it("a call in the caller's active span: execute_tool, then one tools/call client span, with the conventions' attributes", async () => {
    const server = fake();
    const c = traced(server);
    await c.ready();
    await tracer.startActiveSpan("agent turn", async (agent) => {
      await c.callTool("echo", { message: "hi" });
      agent.end();
    });
    const agent = one("agent turn");
    const tool = one("execute_tool echo");
    const request = one("tools/call echo");
    expect(tool.kind).toBe(SpanKind.INTERNAL);
    expect(request.kind).toBe(SpanKind.CLIENT);
    expect(parentOf(tool)).toBe(agent.spanContext().spanId);
    expect(parentOf(request)).toBe(tool.spanContext().spanId);
    expect(request.spanContext().traceId).toBe(agent.spanContext().traceId);
    const id = server.callsOf("tools/call")[0]!;
    expect(request.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.protocol.version": "2.0",
    });
    expect(request.attributes["jsonrpc.request.id"]).toMatch(/^\d+$/);
    expect(request.status.code).toBe(SpanStatusCode.UNSET);
    // The server saw the client span's context, and only it.
    const meta = id.params._meta as Record<string, unknown>;
    const sc = request.spanContext();
    expect(meta.traceparent).toBe(`00-${sc.traceId}-${sc.spanId}-01`);
    expect(meta).not.toHaveProperty("tracestate");
    expect(meta).not.toHaveProperty("baggage");
  });

  it("every request function gets a span named after its method (and prompt)", async () => {
    const c = traced(fake().resource("https://user:pw@example.com/doc?token=abc#x", () => "doc"));
    await c.ping();
    await c.listTools();
    await c.readResource("https://user:pw@example.com/doc?token=abc#x");
    await c.getPrompt("greeting", { name: "Ada" });
    // The probe and the modern ping: both server/discover, both roots.
    const discovers = named("server/discover");
    expect(discovers).toHaveLength(2);
    for (const d of discovers) expect(d.parentSpanContext).toBeUndefined();
    expect(one("tools/list")).toBeDefined();
    const read = one("resources/read");
    // Without credentials, query or fragment.
    expect(read.attributes["mcp.resource.uri"]).toBe("https://example.com/doc");
    expect(one("prompts/get greeting").attributes["gen_ai.prompt.name"]).toBe("greeting");
  });

  it("the handshake gets root spans: the probe (modern), initialize (legacy), with the version asked for", async () => {
    // Created inside the caller's span: the connection attempt still belongs to no caller.
    await tracer.startActiveSpan("creator", async (s) => {
      await traced(fake()).ready();
      s.end();
    });
    const probe = one("server/discover");
    expect(probe.parentSpanContext).toBeUndefined();
    expect(probe.attributes).toMatchObject({
      "mcp.method.name": "server/discover",
      "mcp.protocol.version": "2026-07-28",
    });
    exporter.reset();
    const legacy = traced(fake(), {}, "legacy");
    await legacy.ready();
    expect(one("initialize").attributes["mcp.protocol.version"]).toBe("2025-11-25");
    exporter.reset();
    const onlyLegacy = traced(define(FakeServer, { eras: ["legacy"] }));
    await onlyLegacy.ready();
    // The probe answered -32601 (legacy evidence): an error span, then the handshake.
    expect(one("server/discover").attributes).toMatchObject({
      "error.type": "protocol",
      "rpc.response.status_code": "-32601",
    });
    expect(one("initialize").status.code).toBe(SpanStatusCode.UNSET);
  });

  it("legacy: spans and ids, and no traceparent in _meta (the seed carries it in modern requests)", async () => {
    const server = fake();
    const c = traced(server, {}, "legacy");
    await tracer.startActiveSpan("agent", async (s) => {
      await c.callTool("echo", { message: "x" });
      s.end();
    });
    expect(one("tools/call echo").attributes["mcp.protocol.version"]).toBe("2025-11-25");
    expect(server.callsOf("tools/call")[0]!.params._meta).toBeUndefined();
  });

  it("the caller's traceparent option and meta still win over the active context", async () => {
    const server = fake();
    const c = traced(server);
    const mine = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
    await c.callTool("echo", { message: "x" }, { traceparent: mine });
    await c.callTool("echo", { message: "y" }, { meta: { traceparent: mine } });
    await c.callTool("echo", { message: "z" }, { traceparent: "not a traceparent" });
    const seen = server
      .callsOf("tools/call")
      .map((call) => (call.params._meta as { traceparent?: string }).traceparent);
    expect(seen[0]).toBe(mine);
    expect(seen[1]).toBe(mine);
    // A malformed option is dropped: the client span's own context goes instead.
    const last = named("tools/call echo").at(-1)!.spanContext();
    expect(seen[2]).toBe(`00-${last.traceId}-${last.spanId}-01`);
  });

  it("each MRTR round is one request span; the tool span has an input_required event", async () => {
    const server = fake().fail("ask", {
      inputRequests: {
        who: {
          method: "elicitation/create",
          params: { message: "Name?", requestedSchema: { type: "object", properties: {} } },
        },
      },
    });
    const c = traced(server, { handler: { elicitation: () => ({ action: "accept", content: {} }) } });
    await c.callTool("ask", {});
    const rounds = named("tools/call ask");
    expect(rounds).toHaveLength(2);
    expect(rounds[0]!.events.map((e) => e.name)).toEqual(["input_required"]);
    expect(rounds[0]!.attributes["jsonrpc.request.id"]).not.toBe(rounds[1]!.attributes["jsonrpc.request.id"]);
    const tool = one("execute_tool ask");
    expect(tool.events.map((e) => e.name)).toEqual(["input_required"]);
    for (const r of rounds) expect(parentOf(r)).toBe(tool.spanContext().spanId);
  });

  it("errors set the status and error.type to the error kind; isError results are tool_error", async () => {
    const server = fake().fail("echo", { error: { code: -32603, message: "secret server text" } });
    const c = traced(server);
    await expect(c.callTool("echo", {})).rejects.toBeInstanceOf(McpClientError);
    const request = one("tools/call echo");
    expect(request.status).toEqual({ code: SpanStatusCode.ERROR, message: "protocol" });
    expect(request.attributes).toMatchObject({
      "error.type": "protocol",
      "rpc.response.status_code": "-32603",
    });
    expect(one("execute_tool echo").attributes["error.type"]).toBe("protocol");
    expect(JSON.stringify(spans().map((s) => [s.attributes, s.events, s.status]))).not.toContain(
      "secret server text",
    );

    server.heal().fail("echo", { isError: true });
    await c.callTool("echo", {});
    expect(named("tools/call echo").at(-1)!.attributes["error.type"]).toBe("tool_error");
    expect(named("execute_tool echo").at(-1)!.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("a timeout is error.type timeout; a caller's abort is a cancelled event, not an error", async () => {
    const server = fake().fail("echo", { hang: true });
    const c = traced(server);
    await expect(c.callTool("echo", {}, { timeout: 50 })).rejects.toMatchObject({ kind: "timeout" });
    expect(one("tools/call echo").attributes["error.type"]).toBe("timeout");
    exporter.reset();
    const controller = new AbortController();
    const call = c.callTool("echo", {}, { signal: controller.signal });
    await expect.poll(() => server.callsOf("tools/call").length).toBe(2);
    controller.abort(new Error("user stopped"));
    await expect(call).rejects.toThrow("user stopped");
    const span = one("tools/call echo");
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events.map((e) => e.name)).toContain("cancelled");
  });

  it("a resend after -32022 is a retry event on the same span; a reconnect is an event on the spans it caught", async () => {
    const server = fake().fail(
      "echo",
      { error: { code: -32022, message: "stale", data: { supported: ["2026-07-28"], requested: "x" } } },
      { times: 1 },
    );
    const c = traced(server);
    await c.callTool("echo", { message: "x" });
    expect(one("tools/call echo").events.map((e) => e.name)).toEqual(["retry"]);

    exporter.reset();
    server.fail("slow", { hang: true });
    const hanging = c.callTool("slow", {});
    await expect.poll(() => server.callsOf("tools/call", "slow").length).toBe(1);
    await c.reconnect();
    await expect(hanging).rejects.toMatchObject({ kind: "transport" });
    expect(one("tools/call slow").events.map((e) => e.name)).toContain("reconnect");
  });

  it("no payloads unless captured; captured ones are redacted, and a Secret never gets through", async () => {
    const c = traced(fake());
    await c.callTool("echo", { message: "private words" });
    const plain = JSON.stringify(spans().map((s) => s.attributes));
    expect(plain).not.toContain("private words");
    expect(plain).not.toContain("gen_ai.tool.call");
    await pool.closeAll();
    exporter.reset();

    const captured = traced(fake(), {
      telemetry: {
        openTelemetry: provider,
        capturePayloads: {
          redact: (p) =>
            (p as { message?: unknown }).message === undefined
              ? p
              : { ...(p as object), message: "[redacted]" },
        },
      },
    });
    await captured.callTool("echo", { message: "private words" });
    const tool = one("execute_tool echo");
    expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.arguments"]))).toEqual({
      message: "[redacted]",
    });
    expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.result"]))).toMatchObject({ isError: false });

    exporter.reset();
    const leaky = traced(fake(), {
      telemetry: { openTelemetry: provider, capturePayloads: { redact: (p) => p } },
    });
    const secret = new Secret("sk-live-do-not-leak");
    await leaky.callTool("echo", { message: secret as unknown as string, token: secret });
    const all = JSON.stringify(spans().map((s) => [s.name, s.attributes, s.events]));
    expect(all).not.toContain("sk-live-do-not-leak");
    expect(one("execute_tool echo").attributes["gen_ai.tool.call.arguments"]).toBe('"redaction_failed"');
  });

  it("a malformed span context in the caller's context: no traceparent from it, the call works", async () => {
    const server = fake();
    const bad = trace.setSpanContext(context.active(), { traceId: "not-hex", spanId: "zz", traceFlags: 1 });
    // With the SDK the span starts a new trace; with the no-op provider nothing valid is there to send.
    const sdk = traced(server);
    const noop = traced(server, { telemetry: { openTelemetry: true } });
    await context.with(bad, async () => {
      await sdk.callTool("echo", { message: "a" });
      await noop.callTool("echo", { message: "b" });
    });
    const [a, b] = server
      .callsOf("tools/call")
      .map((call) => (call.params._meta as { traceparent?: string }).traceparent);
    const span = one("tools/call echo").spanContext();
    expect(a).toBe(`00-${span.traceId}-${span.spanId}-01`);
    expect(b).toBeUndefined();
  });

  it("without an SDK, a valid active context is still carried to the server", async () => {
    const server = fake();
    const c = traced(server, { telemetry: { openTelemetry: true } });
    const parent = { traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", traceFlags: 1 };
    await context.with(trace.setSpanContext(context.active(), parent), () =>
      c.callTool("echo", { message: "x" }),
    );
    expect((server.callsOf("tools/call")[0]!.params._meta as { traceparent?: string }).traceparent).toBe(
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    );
  });
});

/**
 * A context manager that follows only synchronous calls, as the browser's StackContextManager
 * does: after an await the active context is the root again. Work that must stay in the
 * caller's context has to have captured it before its first await.
 */
class SyncOnlyContextManager implements ContextManager {
  #stack: Context[] = [];
  active(): Context {
    return this.#stack.at(-1) ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    this.#stack.push(ctx);
    try {
      return fn.call(thisArg, ...args);
    } finally {
      this.#stack.pop();
    }
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#stack = [];
    return this;
  }
}

/** Runs `fn` with the synchronous-only manager registered, then the suite's again. */
async function withSyncOnlyContext<T>(fn: () => Promise<T>): Promise<T> {
  context.disable();
  context.setGlobalContextManager(new SyncOnlyContextManager());
  try {
    return await fn();
  } finally {
    context.disable();
    context.setGlobalContextManager(contextManager.enable());
  }
}

/** A hub over one in-process fake server (`mcp__one__echo`), its clients traced. */
function hubOf(extra: Partial<ConstructorParameters<typeof Hub>[0]>): Hub {
  return new Hub({
    servers: { one: { transport: { type: "in-process", server: fake() } } },
    clientOptions: {
      requestTimeout: 3000,
      logger: { warn: () => {} },
      telemetry: { openTelemetry: provider },
    },
    logger: { warn: () => {} },
    ...extra,
  });
}

describe("OpenTelemetry: the caller's active span is the parent across every wait", () => {
  const parentIn = async <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    tracer.startActiveSpan(name, async (span) => {
      try {
        return await fn();
      } finally {
        span.end();
      }
    });

  it("a call made before the client is ready (it waits for the handshake): tool span under the caller's, request under the tool's", async () => {
    const c = traced(fake());
    await parentIn("parent", () => c.callTool("echo", { message: "early" }));
    const parent = one("parent");
    const tool = one("execute_tool echo");
    expect(parentOf(tool)).toBe(parent.spanContext().spanId);
    expect(parentOf(one("tools/call echo"))).toBe(tool.spanContext().spanId);
  });

  it("a listing made before the client is ready: the request span under the caller's", async () => {
    const c = traced(fake());
    await parentIn("lister", () => c.listTools());
    expect(parentOf(one("tools/list"))).toBe(one("lister").spanContext().spanId);
  });

  it("a hub call (resolved, then routed to its server): the tool span under the caller's", async () => {
    const h = hubOf({});
    try {
      const name = (await h.listTools()).find((t) => t.tool.name === "echo")!.name;
      exporter.reset();
      await parentIn("agent", () => h.callTool(name, { message: "via hub" }));
      const tool = one("execute_tool echo");
      expect(parentOf(tool)).toBe(one("agent").spanContext().spanId);
      expect(parentOf(one("tools/call echo"))).toBe(tool.spanContext().spanId);
    } finally {
      await h.close();
    }
  });

  it("a hub call made before the hub is ready (it waits for the listings)", async () => {
    const h = hubOf({});
    try {
      await parentIn("agent", () => h.callTool("mcp__one__echo", { message: "early" }));
      const tool = one("execute_tool echo");
      expect(parentOf(tool)).toBe(one("agent").spanContext().spanId);
    } finally {
      await h.close();
    }
  });

  it("a hub call under a context manager that follows only synchronous calls: the tool span under the caller's", async () => {
    const h = hubOf({});
    try {
      await withSyncOnlyContext(() =>
        parentIn("agent", () => h.callTool("mcp__one__echo", { message: "x" })),
      );
      const tool = one("execute_tool echo");
      expect(parentOf(tool)).toBe(one("agent").spanContext().spanId);
      expect(parentOf(one("tools/call echo"))).toBe(tool.spanContext().spanId);
    } finally {
      await h.close();
    }
  });

  it("a governed hub call (an approver that awaits) under the same manager: the tool span under the caller's", async () => {
    const h = hubOf({
      governance: {
        policy: [{ tool: "*", decision: "ask" }],
        approve: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          return true;
        },
      },
    });
    try {
      await withSyncOnlyContext(() =>
        parentIn("agent", () => h.callTool("mcp__one__echo", { message: "x" })),
      );
      expect(parentOf(one("execute_tool echo"))).toBe(one("agent").spanContext().spanId);
    } finally {
      await h.close();
    }
  });

  it("concurrent client calls from two spans before ready: each under its own", async () => {
    const c = traced(fake());
    await Promise.all(["a", "b"].map((n) => parentIn(`agent ${n}`, () => c.listTools())));
    expect(new Set(named("tools/list").map(parentOf))).toEqual(
      new Set(["a", "b"].map((n) => one(`agent ${n}`).spanContext().spanId)),
    );
  });

  it("shape llm, from a client not yet ready", async () => {
    const c = traced(fake());
    await parentIn("agent", () => callForModel(c, "echo", { message: "x" }));
    expect(parentOf(one("execute_tool echo"))).toBe(one("agent").spanContext().spanId);
  });
});

describe("OpenTelemetry with the official McpServer in-process", () => {
  it("the official server's handler sees the client span's traceparent in _meta (modern), none in legacy", async () => {
    for (const protocol of ["auto", "legacy"] as const) {
      const seen: OfficialSeen = { cancelled: 0, metas: [] };
      const c = pool.create({
        name: `otel-official-${protocol}`,
        transport: { type: "in-process", server: officialServer(seen) },
        protocol,
        telemetry: { openTelemetry: provider },
      });
      await c.callTool("echo", { message: "x" });
      const sc = named("tools/call echo").at(-1)!.spanContext();
      if (protocol === "auto") expect(seen.metas[0]?.traceparent).toBe(`00-${sc.traceId}-${sc.spanId}-01`);
      else expect(seen.metas[0]?.traceparent).toBeUndefined();
    }
  });
});

describe("OpenTelemetry spans over the wire transports", () => {
  it("HTTP: network.transport tcp, server.address and server.port; the bearer token in no attribute", async () => {
    const http = await startOfficialHttp("dual");
    try {
      const c = pool.create({
        name: "otel-http",
        transport: {
          type: "http",
          url: `${http.url}?key=url-secret`,
          auth: { bearer: new Secret("bearer-secret-77") },
        },
        logger: { warn: () => {} },
        telemetry: { openTelemetry: provider },
      });
      await c.callTool("echo", { message: "x" });
      const span = one("tools/call echo");
      expect(span.attributes).toMatchObject({
        "network.transport": "tcp",
        "network.protocol.name": "http",
        "server.address": "127.0.0.1",
        "server.port": http.port,
      });
      const all = JSON.stringify(spans().map((s) => [s.name, s.attributes, s.events, s.status]));
      expect(all).not.toContain("bearer-secret-77");
      expect(all).not.toContain("url-secret");
    } finally {
      await pool.closeAll();
      await http.stop();
    }
  });

  it("stdio: network.transport pipe", async () => {
    const c = pool.create({
      name: "otel-stdio",
      transport: fakeServerCommand(DEF, { stderr: "discard" }),
      logger: { warn: () => {} },
      telemetry: { openTelemetry: provider },
    });
    await c.callTool("echo", { message: "x" });
    expect(one("tools/call echo").attributes["network.transport"]).toBe("pipe");
  });
});

class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

describe("OpenTelemetry metrics (opt-in)", () => {
  it("records mcp.client.operation.duration per request, without tool names", async () => {
    const reader = new TestReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const c = traced(fake().fail("boom", { error: { code: -32603, message: "x" } }), {
      telemetry: { openTelemetry: { tracerProvider: provider, meterProvider } },
    });
    await c.callTool("echo", { message: "x" });
    await c.callTool("boom", {}).catch(() => {});
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === "mcp.client.operation.duration");
    expect(metric?.descriptor.unit).toBe("s");
    const points = metric!.dataPoints as Array<{
      attributes: Record<string, unknown>;
      value: { count: number };
    }>;
    const calls = points.filter((p) => p.attributes["mcp.method.name"] === "tools/call");
    expect(calls.map((p) => [p.attributes["error.type"] ?? null, p.value.count]).sort()).toEqual(
      [
        ["protocol", 1],
        [null, 1],
      ].sort(),
    );
    for (const p of points) expect(p.attributes).not.toHaveProperty("gen_ai.tool.name");
    await meterProvider.shutdown();
  });

  it("options are checked: a bad provider or key is a TypeError", () => {
    const mk = (openTelemetry: unknown) => () =>
      pool.create({
        name: "x",
        transport: { type: "in-process", server: fake() },
        telemetry: { openTelemetry } as never,
      });
    expect(mk({ tracerProvider: {} })).toThrow(TypeError);
    expect(mk({ meterProvider: 1 })).toThrow(TypeError);
    expect(mk({ nope: true })).toThrow(TypeError);
    expect(mk("yes")).toThrow(TypeError);
  });
});

describe("OpenTelemetry stays unloaded unless asked for", () => {
  const ROOT = fileURLToPath(new URL("..", import.meta.url));
  /** Imports the built package in a fresh node and lists the @opentelemetry modules it loaded. */
  function loaded(script: string): { esm: string[]; cjs: string[] } {
    const probe = `
      import { register, createRequire } from "node:module";
      import { MessageChannel } from "node:worker_threads";
      const { port1, port2 } = new MessageChannel();
      const esm = [];
      let done;
      const flushed = new Promise((r) => (done = r));
      port1.on("message", (u) => (u === "node:sentinel" ? done() : esm.push(u)));
      register("data:text/javascript," + encodeURIComponent(
        "let p; export function initialize(d) { p = d.port; }" +
        "export async function resolve(s, c, n) { const r = await n(s, c); p.postMessage(s === 'node:path' ? 'node:sentinel' : r.url); return r; }"
      ), { data: { port: port2 }, transferList: [port2] });
      ${script}
      await import("node:path");
      await flushed;
      port1.close();
      const cjs = Object.keys(createRequire(import.meta.url).cache);
      console.log(JSON.stringify({ esm, cjs }));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], {
      cwd: ROOT,
      encoding: "utf8",
    });
    return JSON.parse(out);
  }
  const otel = (list: string[]) => list.filter((u) => u.includes("@opentelemetry"));

  it('importing "conduit-mcp" (and a client without the option) loads no OpenTelemetry module', () => {
    const r = loaded(`
      const { Client } = await import("conduit-mcp");
      const { FakeServer } = await import("conduit-mcp/testing");
      const c = new Client({ name: "x", transport: { type: "in-process", server: new FakeServer() } });
      await c.ready(); await c.close();
    `);
    expect(r.esm.some((u) => u.endsWith("/dist/index.js"))).toBe(true);
    expect(otel(r.esm)).toEqual([]);
    expect(otel(r.cjs)).toEqual([]);
  });

  it("a client with telemetry.openTelemetry loads @opentelemetry/api (the check above can fail)", () => {
    const r = loaded(`
      const { Client } = await import("conduit-mcp");
      const { FakeServer } = await import("conduit-mcp/testing");
      const c = new Client({ name: "x", transport: { type: "in-process", server: new FakeServer() }, telemetry: { openTelemetry: true } });
      await c.close();
    `);
    expect(otel(r.cjs).length + otel(r.esm).length).toBeGreaterThan(0);
  });
});
