/**
 * Issue 9 over HTTP: a server that goes away and comes back (requests wait for it), refused
 * credentials closing with `auth` in both eras, the modern era's rules on a request's stream (no
 * server requests, no other request's response), and legacy resumption that cannot spin.
 */
import type http from "node:http";
import { describe, expect, it, vi } from "vitest";
import { McpClientError } from "../src/index.js";
import { waitFor, watch } from "./support/async.js";
import { json, result, type ScriptedHttpServer, sse, startScripted } from "./support/http-scripted.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";

let server: ScriptedHttpServer | undefined;
const { clients } = scriptedSuite("hardening-http", () => server);

describe("a server that goes away and comes back", () => {
  it("requests made while it is gone wait for it (within their timeout); failed probes fail none", async () => {
    server = await startScripted();
    const port = server.port;
    const c = clients.create(server.url, {}, { backoff: () => 20, requestTimeout: 15_000 });
    const seen: Array<{ to: string; reason: string | null }> = [];
    c.onStateChange((e) => seen.push({ to: e.to, reason: e.reason }));
    await c.ready();
    await server.close();
    server = undefined;
    // The first request finds it gone: it never reached a server, so it waits.
    const first = c.callTool("echo", { n: 1 });
    await waitFor(() => seen.some((e) => e.to === "reconnecting"));
    const second = c.callTool("echo", { n: 2 });
    // Probes that fail with network errors keep it reconnecting, failing no queued request.
    await waitFor(
      () => seen.filter((e) => e.to === "reconnecting" && e.reason?.includes("network_error")).length >= 2,
    );
    server = await startScripted({}, port);
    const [a, b] = await Promise.all([first, second]);
    expect(a.structured).toMatchObject({ arguments: { n: 1 } });
    expect(b.structured).toMatchObject({ arguments: { n: 2 } });
    expect(c.status().state).toBe("ready");
  });

  it("a request that never reaches the server still honours its own timeout", async () => {
    server = await startScripted();
    const c = clients.create(server.url, {}, { backoff: () => 20 });
    await c.ready();
    await server.close();
    server = undefined;
    const err = await c.callTool("echo", {}, { timeout: 300 }).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err.kind).toBe("timeout");
  });
});

describe("refused credentials close the connection with auth", () => {
  it.each(["modern", "legacy"] as const)(
    "%s: ready() and waiting requests reject auth with status and challenges",
    async (era) => {
      server = await startScripted(era === "legacy" ? { era: "legacy" } : {});
      const challenge = 'Bearer realm="mcp", error="invalid_token"';
      server.on((req, res) => {
        if (req.method !== "POST") return false;
        json(res, 401, undefined, { "www-authenticate": challenge });
        return true;
      });
      const c = clients.create(server.url, {}, era === "legacy" ? { protocol: "legacy" } : {});
      const waiting = c.listTools().catch((e) => e);
      const ready = await c.ready().catch((e) => e);
      for (const err of [ready, await waiting]) {
        expect(err).toBeInstanceOf(McpClientError);
        expect(err).toMatchObject({ kind: "auth", reason: "unauthorized" });
        expect(err.data).toMatchObject({
          status: 401,
          challenges: [{ scheme: "Bearer", params: { realm: "mcp", error: "invalid_token" } }],
        });
        clients.seen(err);
      }
      expect(c.status().state).toBe("closed");
    },
  );
});

describe("the modern era's rules on a request's stream", () => {
  it("a server request on a request's stream is dropped, never POSTed an answer", async () => {
    server = await startScripted();
    server.on(
      onRpc("tools/call", (req, res) => {
        sse(res, [
          { data: { jsonrpc: "2.0", id: 77, method: "ping" } },
          { data: { jsonrpc: "2.0", id: 78, method: "sampling/createMessage", params: {} } },
          { data: result(req.body!.id, { content: [{ type: "text", text: "done" }] }) },
        ]);
      }),
    );
    const c = clients.create(server.url);
    const r = await c.callTool("echo", {});
    expect(r.content).toEqual([{ type: "text", text: "done" }]);
    await c.ping();
    // No POST carried an answer to 77 or 78.
    expect(server.requests.filter((q) => q.body && !("method" in q.body))).toHaveLength(0);
    const dropped = clients.events.of("server_request:dropped").filter((e) => e.client === c.name);
    expect(dropped.map((e) => e.method)).toEqual(["ping", "sampling/createMessage"]);
    const logger = clients.loggers.at(-1)!;
    expect(logger.warnings.filter((w) => w.includes("dropped a request from a modern server"))).toHaveLength(
      2,
    );
  });

  it("a response to another pending request on a stream is dropped; that request gets its own", async () => {
    server = await startScripted();
    let heldA: { id: unknown; res: http.ServerResponse } | undefined;
    server.on(
      onRpc("tools/call", (req, res) => {
        const args = (req.body!.params as { arguments?: { which?: string } }).arguments;
        if (args?.which === "A") {
          heldA = { id: req.body!.id, res };
          return;
        }
        const a = heldA!;
        sse(res, [
          { data: result(a.id, { content: [{ type: "text", text: "smuggled" }] }) },
          { data: result(req.body!.id, { content: [{ type: "text", text: "B's own" }] }) },
        ]);
        // A's own answer comes later, on A's own stream.
        setTimeout(
          () => json(a.res, 200, result(a.id, { content: [{ type: "text", text: "A's own" }] })),
          200,
        );
      }),
    );
    const c = clients.create(server.url);
    await c.ready();
    const a = c.callTool("echo", { which: "A" });
    await waitFor(() => heldA !== undefined);
    const b = await c.callTool("echo", { which: "B" });
    expect(b.content).toEqual([{ type: "text", text: "B's own" }]);
    expect((await a).content).toEqual([{ type: "text", text: "A's own" }]);
    const dropped = clients.events.of("response:dropped").filter((e) => e.client === c.name);
    expect(dropped.length).toBeGreaterThanOrEqual(1);
  });
});

describe("legacy resumption keeps a floor", () => {
  it("a stream that keeps ending after an event id with retry: 0 is resumed no faster than minResumeDelay (100 ms)", async () => {
    server = await startScripted({ era: "legacy" });
    const resumedAt: number[] = [];
    server.on(onRpc("tools/call", (_req, res) => sse(res, [{ id: "r0", retry: 0, data: "" }]), 1));
    server.on((req, res) => {
      if (req.method !== "GET" || req.headers["last-event-id"] === undefined) return false;
      resumedAt.push(Date.now());
      const call = server!.rpcs("tools/call")[0]!;
      if (resumedAt.length < 4) sse(res, [{ id: `r${resumedAt.length}`, retry: 0, data: "" }]);
      else sse(res, [{ data: result(call.body!.id, { content: [{ type: "text", text: "resumed" }] }) }]);
      return true;
    });
    // The default floor (100 ms); the option is checked below. A long requestTimeout: the fake
    // clock below runs ahead while the sockets work.
    const c = clients.create(server.url, {}, { protocol: "legacy", requestTimeout: 3_600_000 });
    await c.ready();
    // The client's waits run on a fake clock, 1 ms per turn of the loop; the server (in this
    // process) stamps each resume with the same clock. A resume can only come after the client's
    // wait fired, so each gap is at least the floor however slow the sockets are.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let r: Awaited<ReturnType<typeof c.callTool>>;
    try {
      const call = watch(c.callTool("echo", {}));
      while (!call.settled) {
        await vi.advanceTimersByTimeAsync(1);
        await new Promise((resolve) => setImmediate(resolve));
      }
      r = await call.promise;
    } finally {
      vi.useRealTimers();
    }
    expect(r.content).toEqual([{ type: "text", text: "resumed" }]);
    expect(resumedAt).toHaveLength(4);
    for (let i = 1; i < resumedAt.length; i++) {
      expect(resumedAt[i]! - resumedAt[i - 1]!).toBeGreaterThanOrEqual(100);
    }
  });

  it("minResumeDelay must be a positive integer", () => {
    expect(() => clients.create("http://127.0.0.1:1/mcp", { minResumeDelay: 0 })).toThrow(TypeError);
    expect(() => clients.create("http://127.0.0.1:1/mcp", { minResumeDelay: 250 })).not.toThrow();
  });
});
