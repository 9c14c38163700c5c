import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ClientOptions, McpClientError } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { waitFor, watch } from "./support/async.js";
import { ClientPool } from "./support/clients.js";
import { afterRequestStarts } from "./support/events.js";
import {
  closeAll,
  recordEvents,
  recordingLogger,
  scriptedClient,
  scriptedTransport,
} from "./support/scripted.js";

afterEach(closeAll);

type Echoed = { name: string; arguments: Record<string, unknown>; _meta?: Record<string, unknown> };
const echoed = async (c: Client, args: Record<string, unknown> = {}, opts = {}) =>
  (await c.callTool("echo", args, opts)).structured as Echoed;

/** An in-process fake server and a client of it: what the client sent is in `server.calls`. */
const pool = new ClientPool();
afterEach(() => pool.closeAll());
function fake(options: Partial<ClientOptions> = {}) {
  const server = new FakeServer().tool("echo", { type: "object" }, () => "echo");
  const client = pool.create({ name: "shaping", transport: { type: "in-process", server }, ...options });
  /** The params of the last tools/call the server received, after making one with `opts`. */
  const sent = async (args: Record<string, unknown> = {}, opts = {}) => {
    await client.callTool("echo", args, opts);
    return server.callsOf("tools/call").at(-1)!.params as {
      arguments: unknown;
      _meta?: Record<string, unknown>;
    };
  };
  return { server, client, sent };
}

describe("request shaping", () => {
  it("modern requests carry protocolVersion, clientCapabilities and clientInfo in _meta", async () => {
    const { sent } = fake({ clientInfo: { name: "my-host", version: "9.9.9" } });
    const p = await sent({ a: 1 });
    expect(p.arguments).toEqual({ a: 1 });
    expect(p._meta).toEqual({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "my-host", version: "9.9.9" },
    });
  });

  it("legacy requests carry no modern _meta keys", async () => {
    expect((await fake({ protocol: "legacy" }).sent())._meta).toBeUndefined();
  });

  it("meta is merged with reserved keys dropped; traceparent kept only when well formed", async () => {
    const { sent } = fake();
    const tp = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
    const meta = {
      "com.example/tenant": "acme",
      progressToken: "mine",
      "io.modelcontextprotocol/protocolVersion": "1999-01-01",
      "dev.mcp/x": 1,
      tracestate: "a=b",
      baggage: "k=v",
    };
    const p = await sent({}, { meta, traceparent: tp });
    expect(p._meta).toMatchObject({
      "com.example/tenant": "acme",
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      traceparent: tp,
    });
    for (const k of ["progressToken", "dev.mcp/x", "tracestate", "baggage"])
      expect(p._meta).not.toHaveProperty(k);

    expect((await sent({}, { traceparent: "00-zz-bad-01" }))._meta).not.toHaveProperty("traceparent");
    expect((await sent({}, { meta: { traceparent: tp }, traceparent: "junk" }))._meta?.traceparent).toBe(tp);
    const allZero = `00-${"0".repeat(32)}-00f067aa0ba902b7-01`;
    expect((await sent({}, { traceparent: allZero }))._meta).not.toHaveProperty("traceparent");
  });

  it("legacy: meta is merged, traceparent not sent", async () => {
    const { sent } = fake({ protocol: "legacy" });
    const p = await sent(
      {},
      {
        meta: { "com.example/a": 1 },
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
      },
    );
    expect(p._meta).toEqual({ "com.example/a": 1 });
  });

  it("a progress token is added only when onProgress is given", async () => {
    expect(typeof (await fake().sent({}, { onProgress: () => {} }))._meta?.progressToken).toBe("number");
    const legacy = await fake({ protocol: "legacy" }).sent({}, { onProgress: () => {} });
    expect(Object.keys(legacy._meta ?? {})).toEqual(["progressToken"]);
  });

  it("setLogLevel: modern puts logLevel in every later request's _meta; legacy sends logging/setLevel", async () => {
    const modern = fake();
    await modern.client.setLogLevel("warning");
    expect((await modern.sent())._meta?.["io.modelcontextprotocol/logLevel"]).toBe("warning");
    expect(modern.server.callsOf("logging/setLevel")).toEqual([]);
    const legacy = fake({ protocol: "legacy" });
    await legacy.client.setLogLevel("debug");
    expect(legacy.server.callsOf("logging/setLevel").map((c) => c.params.level)).toEqual(["debug"]);
    await expect(legacy.client.setLogLevel("loud" as never)).rejects.toThrow(TypeError);
  });

  it("modern: what one request adds to _meta (a token, the caller's meta) never reaches the next", async () => {
    // The envelope of a plain request is shared from one request to the next: nothing may stick.
    const { client, sent } = fake({ clientInfo: { name: "my-host", version: "1.0.0" } });
    const plain = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "my-host", version: "1.0.0" },
    };
    expect((await sent())._meta).toEqual(plain);
    const withToken = (await sent({}, { onProgress: () => {} }))._meta;
    expect(Object.keys(withToken ?? {})).toEqual([...Object.keys(plain), "progressToken"]);
    expect((await sent({}, { meta: { "com.example/a": 1 } }))._meta).toEqual({
      "com.example/a": 1,
      ...plain,
    });
    expect((await sent())._meta).toEqual(plain);
    await client.setLogLevel("error");
    expect((await sent())._meta).toEqual({ ...plain, "io.modelcontextprotocol/logLevel": "error" });
    await client.setLogLevel("debug");
    expect((await sent())._meta?.["io.modelcontextprotocol/logLevel"]).toBe("debug");
    // The caller's params object stays as it was.
    const args = { a: 1 };
    await sent(args, { onProgress: () => {} });
    expect(args).toEqual({ a: 1 });
  });

  it("ping works in both eras", async () => {
    const modern = fake();
    await modern.client.ping();
    const legacy = fake({ protocol: "legacy" });
    await legacy.client.ping({ timeout: 2000 });
    expect(modern.server.calls.map((c) => c.method)).toEqual(["server/discover", "server/discover"]);
    expect(legacy.server.calls.map((c) => c.method)).toEqual(["initialize", "ping"]);
  });
});

describe("limits", () => {
  it("maxInFlight: one more than the limit fails at once with overloaded; the rest complete", async () => {
    const c = scriptedClient({}, { maxInFlight: 3 });
    await c.ready();
    const calls = [1, 2, 3].map(() => watch(c.callTool("late", { ms: 200 })));
    const err = await c.callTool("echo", {}).catch((e) => e);
    // At once: refused before any of the three in flight has been answered (ordering, not a clock).
    expect(calls.some((w) => w.settled)).toBe(false);
    expect(err).toMatchObject({ kind: "overloaded", reason: "max_in_flight" });
    const results = await Promise.all(calls.map((w) => w.promise));
    expect(results.every((r) => !r.isError)).toBe(true);
    await echoed(c);
  });

  it("maxQueued: requests made before ready wait; one more than the queue fails at once", async () => {
    const c = scriptedClient({ probe: "silent" }, { maxQueued: 2, probeTimeout: 300 });
    const queued = [echoed(c), echoed(c)];
    await expect(c.callTool("echo", {})).rejects.toMatchObject({ kind: "overloaded", reason: "max_queued" });
    const results = await Promise.all(queued);
    expect(results).toHaveLength(2);
    expect(c.era()).toBe("legacy");
  });

  it("a request made before ready times out within its own timeout", async () => {
    const c = scriptedClient({ probe: "silent" }, { probeTimeout: 1000 });
    await expect(c.callTool("echo", {}, { timeout: 100 })).rejects.toMatchObject({ kind: "timeout" });
    await c.ready();
  });

  it("queued requests drain in order once in-flight room frees up", async () => {
    const c = scriptedClient({ probe: "silent" }, { maxInFlight: 1, probeTimeout: 200 });
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((i) => echoed(c, { i }).then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it("an already-aborted signal rejects at once with its reason; nothing is sent", async () => {
    const c = scriptedClient();
    await c.ready();
    const rec = recordEvents("request:start");
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await expect(c.callTool("echo", {}, { signal: ac.signal })).rejects.toThrow("stop");
    rec.stop();
    expect(rec.of("request:start").filter((e) => e.client === "scripted")).toHaveLength(0);
  });

  it("abort while in flight cancels on the wire and rejects with the reason", async () => {
    const rec = recordEvents("request:cancel");
    const c = scriptedClient();
    await c.ready();
    const ac = new AbortController();
    afterRequestStarts("tools/call", () => ac.abort());
    const p = c.callTool("hang", {}, { signal: ac.signal });
    await expect(p).rejects.toMatchObject({ name: "AbortError" });
    rec.stop();
    const cancel = rec.of("request:cancel")[0]!;
    expect(cancel.reason).toBe("aborted");
    const seen = (await c.callTool("cancellations", {})).structured as { cancelled: unknown[] };
    expect(seen.cancelled).toContain(cancel.requestId);
  });

  it("close() fails pending and queued requests with closed, and later ones too", async () => {
    const c = scriptedClient();
    await c.ready();
    const pending = c.callTool("hang", {}).catch((e) => e);
    await c.close();
    expect(await pending).toMatchObject({ kind: "closed" });
    await expect(c.callTool("echo", {})).rejects.toMatchObject({ kind: "closed" });
    expect(c.status()).toMatchObject({ state: "closed" });
    await c.close(); // twice is fine
    const q = scriptedClient({ probe: "silent" }, { probeTimeout: 2000 });
    const queued = q.callTool("echo", {}).catch((e) => e);
    await q[Symbol.asyncDispose]();
    expect(await queued).toMatchObject({ kind: "closed" });
  });

  it("reconnect() fails in-flight requests with transport and connects again", async () => {
    const c = scriptedClient();
    await c.ready();
    const pending = c.callTool("hang", {}).catch((e) => e);
    await c.reconnect();
    expect(await pending).toMatchObject({ kind: "transport" });
    await c.ready();
    await echoed(c);
  });
});

describe("tool intake", () => {
  it("bad names, malformed definitions and repeated names never appear; each warns and emits tool:rejected", async () => {
    const logger = recordingLogger();
    const rec = recordEvents("tool:rejected");
    const tools = [
      { name: "good", inputSchema: { type: "object" } },
      { name: "has space", inputSchema: { type: "object" } },
      { name: "x".repeat(129), inputSchema: { type: "object" } },
      { name: "", inputSchema: { type: "object" } },
      { name: "evil\u001b[31m", inputSchema: { type: "object" } },
      { name: "no_schema" },
      { name: "array_schema", inputSchema: { type: "array" } },
      { name: "bad_desc", description: 5, inputSchema: { type: "object" } },
      { name: "twice", inputSchema: { type: "object" } },
      { name: "twice", inputSchema: { type: "object", properties: { evil: {} } } },
      "not an object",
      { name: "dotted.name-ok_1", inputSchema: { type: "object" }, _meta: { a: 1 }, serverId: "spoofed" },
    ];
    const c = scriptedClient({ tools }, { logger, serverId: "srv" });
    const page = await c.listTools();
    rec.stop();
    expect(page.tools.map((t) => t.name)).toEqual(["good", "dotted.name-ok_1"]);
    expect(page.tools.every((t) => t.serverId === "srv")).toBe(true);
    expect(page.tools[1]!.meta).toEqual({ a: 1 });
    const reasons = rec.of("tool:rejected").map((e) => e.reason);
    expect(reasons.filter((r) => r === "invalid_name")).toHaveLength(4);
    expect(reasons.filter((r) => r === "malformed_definition")).toHaveLength(4);
    expect(reasons.filter((r) => r === "duplicate_name")).toHaveLength(2);
    expect(logger.lines.filter((l) => l.includes("left out"))).toHaveLength(10);
    // The warnings and events are sanitised: no escape character reaches them.
    expect(logger.lines.join("\n")).not.toContain("\u001b");
    expect(JSON.stringify(rec.events)).not.toContain("\\u001b");
  });

  it("duplicates across pages are caught by listAllTools", async () => {
    const tools = [
      { name: "a", inputSchema: { type: "object" } },
      { name: "a", inputSchema: { type: "object" } },
      { name: "b", inputSchema: { type: "object" } },
    ];
    const c = scriptedClient({ tools, pages: "two" });
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["b"]);
  });

  it("a schema that refers off its document, or is over the node budget, is rejected at intake; nothing is fetched", async () => {
    // Anything that fetched one of these references would knock here.
    const knocks: string[] = [];
    const web = http.createServer((req, res) => {
      knocks.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" }).end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
    try {
      const obj = (extra: Record<string, unknown>) => ({ type: "object", ...extra });
      const server = new FakeServer()
        .tool("ref_http", obj({ properties: { a: { $ref: `${origin}/a.json` } } }), () => "")
        .tool("ref_file", obj({ properties: { a: { $ref: "file:///etc/passwd" } } }), () => "")
        .tool("ref_relative", obj({ properties: { a: { $ref: "other.json#/a" } } }), () => "")
        .tool(
          "id_remote",
          obj({ $id: `${origin}/base.json`, properties: { a: { $ref: "#/$defs/x" } } }),
          () => "",
        )
        .tool("id_draft_04", obj({ id: `${origin}/base.json` }), () => "")
        .tool("schema_unknown", obj({ $schema: `${origin}/meta.json` }), () => "")
        .tool("output_remote", obj({}), () => "", { outputSchema: obj({ $ref: `${origin}/out.json` }) })
        .tool("wide_any_of", obj({ anyOf: Array.from({ length: 50_000 }, () => ({})) }), () => "")
        .tool(
          "many_properties",
          obj({ properties: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`p${i}`, true])) }),
          () => "",
        )
        .tool(
          "local_only",
          obj({
            $schema: "https://json-schema.org/draft/2020-12/schema",
            $defs: { x: { type: "string" } },
            properties: {
              a: { $ref: "#/$defs/x" },
              // A property named $ref, and data that looks like a reference, are not references.
              $ref: { type: "string", enum: [{ $ref: `${origin}/data.json` }], default: { $id: "x" } },
            },
          }),
          () => "",
        )
        .tool("draft_07", obj({ $schema: "http://json-schema.org/draft-07/schema#" }), () => "")
        .tool("draft_04", obj({ $schema: "http://json-schema.org/draft-04/schema#", id: "#top" }), () => "");
      const rec = recordEvents("tool:rejected");
      const logger = recordingLogger();
      const c = pool.create({ name: "intake", transport: { type: "in-process", server }, logger });
      const names = (await c.listAllTools()).map((t) => t.name);
      rec.stop();
      expect(names.sort()).toEqual(["draft_04", "draft_07", "local_only"]);
      const reasons = Object.fromEntries(rec.of("tool:rejected").map((e) => [e.toolName, e.reason]));
      expect(reasons).toEqual({
        ref_http: "remote_schema_reference",
        ref_file: "remote_schema_reference",
        ref_relative: "remote_schema_reference",
        id_remote: "remote_schema_reference",
        id_draft_04: "remote_schema_reference",
        schema_unknown: "remote_schema_reference",
        output_remote: "remote_schema_reference",
        wide_any_of: "schema_too_large",
        many_properties: "schema_too_large",
      });
      expect(logger.lines.filter((l) => l.includes("left out (remote_schema_reference)"))).toHaveLength(7);
      // A rejected tool is never called, and the schema that was kept validates without a fetch.
      await expect(c.callTool("ref_http", { a: 1 })).rejects.toMatchObject({
        kind: "not_found",
        reason: "tool_rejected",
      });
      expect(server.callsOf("tools/call")).toHaveLength(0);
      expect((await c.callTool("local_only", { a: "x" })).isError).toBe(false);
      expect(knocks).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => web.close(() => resolve()));
    }
  });

  it("a name the listing lacks is not_found and nothing is sent; with no listing held, the client lists once first", async () => {
    const server = new FakeServer()
      .tool("echo", { type: "object" }, () => "echo")
      .tool("gone", { type: "object" }, () => "gone");
    // Legacy: the in-process transport carries list_changed there (modern needs a listen stream).
    const c = pool.create({
      name: "unlisted",
      transport: { type: "in-process", server },
      protocol: "legacy",
    });
    // Never listed: the first call goes out beside the first listing (requests.md, "The first
    // call and the first listing"); the listing judges it: not_found, and data says it was sent.
    await expect(c.callTool("nope", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "unknown_tool",
      data: { sent: true },
    });
    expect(server.callsOf("tools/list")).toHaveLength(1);
    expect(server.callsOf("tools/call", "nope")).toHaveLength(1);
    // A listed name goes out at once, without listing again.
    expect((await c.callTool("echo", {})).isError).toBe(false);
    expect(server.callsOf("tools/list")).toHaveLength(1);
    // Once a listing was held, a name it lacks is refused with nothing sent (listed again
    // first: this server sends no ttlMs, so its listing is stale at once).
    await expect(c.callTool("nope", {})).rejects.toMatchObject({ kind: "not_found", reason: "unknown_tool" });
    expect(server.callsOf("tools/call", "nope")).toHaveLength(1);
    // Removed, announced by list_changed: refused once the listing says so.
    server.remove("gone");
    await waitForList(c, (names) => !names.includes("gone"));
    await expect(c.callTool("gone", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "tool_withdrawn",
    });
    expect(server.callsOf("tools/call", "gone")).toHaveLength(0);
    // Added, announced by list_changed: the listing learns it and the call goes out.
    server.tool("late", { type: "object" }, () => "late");
    await waitForList(c, (names) => names.includes("late"));
    expect((await c.callTool("late", {})).isError).toBe(false);
    expect(server.callsOf("tools/call", "nope")).toHaveLength(1);
  });

  it("callUnlistedTools: true sends a name no listing mentioned, without listing first; it is checked as an option", async () => {
    const server = new FakeServer().tool("echo", { type: "object" }, () => "echo");
    const c = pool.create({
      name: "unlisted",
      transport: { type: "in-process", server },
      callUnlistedTools: true,
    });
    await expect(c.callTool("nope", {})).rejects.toMatchObject({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32602 },
    });
    expect(server.callsOf("tools/call", "nope")).toHaveLength(1);
    expect(server.callsOf("tools/list")).toHaveLength(0);
    expect(
      () =>
        new Client({
          name: "x",
          transport: { type: "in-process", server },
          callUnlistedTools: "yes" as never,
        }),
    ).toThrow(expect.objectContaining({ option: "callUnlistedTools", problem: "invalid" }));
  });

  it("malformed resources are left out", async () => {
    const c = scriptedClient();
    expect((await c.listResources()).resources.map((r) => r.uri)).toEqual(["file:///a"]);
  });
});

describe("pagination caps", () => {
  it.each([
    ["cycle", "repeated_cursor"],
    ["endless", "max_pages"],
    ["long-cursor", "cursor_too_long"],
    ["many-items", "max_items"],
  ])("%s: pagination_cycle (%s)", async (pages, reason) => {
    const c = scriptedClient({ pages });
    const err = await c.listAllTools().catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "pagination_cycle", reason });
    await echoed(c);
  });

  it("one page at a time with listTools and the cursor", async () => {
    const tools = [
      { name: "a", inputSchema: { type: "object" } },
      { name: "b", inputSchema: { type: "object" } },
    ];
    const c = scriptedClient({ tools, pages: "two" });
    const first = await c.listTools();
    expect(first).toMatchObject({ nextCursor: "second" });
    const second = await c.listTools({ cursor: first.nextCursor! });
    expect(second.tools.map((t) => t.name)).toEqual(["b"]);
    expect(second.nextCursor).toBeNull();
  });
});

describe("options", () => {
  const transport = scriptedTransport();

  it.each([
    [{ bogus: 1 }, '"bogus"'],
    [{ requestTimeout: -5 }, '"requestTimeout"'],
    [{ requestTimeout: "60s" }, '"requestTimeout"'],
    [{ protocol: "2024-11-05" }, '"protocol"'],
    [{ prior: "ancient" }, '"prior"'],
    [{ maxInFlight: 0 }, '"maxInFlight"'],
    [{ includeInstructions: "yes" }, '"includeInstructions"'],
    [{ clientInfo: { name: "x" } }, '"clientInfo"'],
    [{ logger: {} }, '"logger"'],
    [{ telemetry: { capturePayloads: true } }, '"telemetry.capturePayloads"'],
    [{ telemetry: { capturePayloads: {} } }, '"telemetry.capturePayloads.redact"'],
    [{ name: "" }, '"name"'],
    [{ transport: { type: "carrier-pigeon" } }, '"transport.type"'],
    [{ transport: 42 }, '"transport"'],
  ])("a bad option %j throws a TypeError naming %s", (bad, key) => {
    expect(() => new Client({ name: "x", transport, ...bad } as never)).toThrow(TypeError);
    expect(() => new Client({ name: "x", transport, ...bad } as never)).toThrow(key);
  });

  it("bad per-call options and arguments are TypeErrors, not requests", async () => {
    const c = scriptedClient();
    await expect(c.callTool("echo", {}, { timeot: 5 } as never)).rejects.toThrow(TypeError);
    await expect(c.callTool("echo", [] as never)).rejects.toThrow(TypeError);
    await expect(c.callTool("", {})).rejects.toThrow(TypeError);
    await expect(c.callTool("echo", {}, { signal: "no" } as never)).rejects.toThrow(TypeError);
    await expect(c.getPrompt("p", "x" as never)).rejects.toThrow(TypeError);
    await expect(c.complete({ nope: 1 } as never, { name: "a", value: "b" })).rejects.toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(c.callTool("echo", cyclic)).rejects.toThrow(TypeError);
    await echoed(c);
  });

  it("era() and serverInfo() are unavailable before the first handshake", () => {
    const c = scriptedClient({ probe: "silent" });
    expect(() => c.era()).toThrow(McpClientError);
    expect(() => c.serverInfo()).toThrow(/unavailable/);
    expect(c.status()).toMatchObject({ era: null, version: null });
  });

  it("instructionsForLlm is null unless includeInstructions, and sanitised when on", async () => {
    const off = scriptedClient();
    await off.ready();
    expect(off.instructionsForLlm()).toBeNull();
    const on = scriptedClient({}, { includeInstructions: true });
    await on.ready();
    expect(on.instructionsForLlm()).toBe("Scripted instructions.");
    expect(on.serverInfo().instructions).toBe("Scripted instructions.");
  });
});

/** Waits until the client's cached tool listing satisfies `ok` (a list_changed refresh landed). */
function waitForList(c: Client, ok: (names: string[]) => boolean): Promise<void> {
  const names = () => {
    try {
      return c.cachedTools().map((t) => t.name);
    } catch {
      return undefined; // nothing cached yet
    }
  };
  return waitFor(() => {
    const n = names();
    return n !== undefined && ok(n);
  }, "the tool listing to change");
}
