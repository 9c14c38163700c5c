/**
 * The HTTP transport against a scripted server that misbehaves on cue: every row of the seed's
 * "Answers" table, the HTTP probe rows, cut streams, oversize bodies and events, a gzip bomb,
 * redirects, legacy session renewal and stream resumption, and the publicOnly URL policy. Each
 * fault shows its typed error, and the client keeps working afterwards.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type McpClientError, Secret } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { TOKEN_VALUE } from "./support/http-clients.js";
import {
  DISCOVER_RESULT,
  json,
  LEGACY,
  result,
  rpcError,
  type ScriptedHttpServer,
  type SeenRequest,
  sse,
  sseFrame,
  startScripted,
} from "./support/http-scripted.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";

let server: ScriptedHttpServer;
const { clients, expectWorking, rejection } = scriptedSuite("http-scripted", () => server);

describe("modern requests on the wire", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  it("one POST per request with the standard headers, the token and user headers", async () => {
    const c = clients.create(server.url, {
      headers: { "x-tenant": "acme", "x-key": new Secret("hidden-value-1") },
    });
    await c.ready();
    await c.callTool("echo", { message: "x" });
    await c.readResource("file:///a b.txt");
    const call = server.rpcs("tools/call")[0]!;
    expect(call.headers).toMatchObject({
      accept: "application/json, text/event-stream",
      "content-type": "application/json",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "echo",
      authorization: `Bearer ${TOKEN_VALUE}`,
      "x-tenant": "acme",
      "x-key": "hidden-value-1",
    });
    expect(call.headers["mcp-session-id"]).toBeUndefined();
    expect(server.rpcs("resources/read")[0]!.headers["mcp-name"]).toBe("file:///a b.txt");
    // No GET stream and no DELETE in the modern shape.
    await c.close();
    expect(server.requests.every((r) => r.method === "POST")).toBe(true);
  });

  it("Mcp-Param-* headers are mirrored from x-mcp-header arguments, encoded as the spec says", async () => {
    server.reset();
    const tool = {
      name: "sql",
      inputSchema: {
        type: "object",
        properties: {
          region: { type: "string", "x-mcp-header": "Region" },
          opts: { type: "object", properties: { limit: { type: "integer", "x-mcp-header": "Limit" } } },
          flag: { type: "boolean", "x-mcp-header": "Flag" },
          query: { type: "string" },
        },
      },
    };
    server.on(onRpc("tools/list", (req, res) => json(res, 200, result(req.body!.id, { tools: [tool] }))));
    const c = clients.create(server.url);
    await c.listAllTools();
    await c.callTool("sql", { region: "Hello, 世界", opts: { limit: 42 }, flag: false, query: "q" });
    await c.callTool("sql", { region: "us-west1" });
    const [first, second] = server.rpcs("tools/call");
    expect(first!.headers["mcp-param-region"]).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect(first!.headers["mcp-param-limit"]).toBe("42");
    expect(first!.headers["mcp-param-flag"]).toBe("false");
    expect(second!.headers["mcp-param-region"]).toBe("us-west1");
    expect(second!.headers["mcp-param-limit"]).toBeUndefined();
    // Only what tools/list carried: no extra request was made.
    expect(server.rpcs("tools/list")).toHaveLength(1);
  });

  it("-32020 on a tools/call: the tool list is fetched again and the call retried once", async () => {
    let schemaVersion = 0;
    server.on(
      onRpc("tools/list", (req, res) => {
        schemaVersion += 1;
        const properties =
          schemaVersion === 1
            ? { region: { type: "string" } }
            : { region: { type: "string", "x-mcp-header": "Region" } };
        json(
          res,
          200,
          result(req.body!.id, { tools: [{ name: "geo", inputSchema: { type: "object", properties } }] }),
        );
      }),
    );
    server.on(
      onRpc("tools/call", (req, res) => {
        if (req.headers["mcp-param-region"] !== "eu")
          return json(res, 400, rpcError(req.body!.id, -32020, "Header mismatch"));
        json(res, 200, result(req.body!.id, { content: [{ type: "text", text: "ok" }] }));
      }),
    );
    const c = clients.create(server.url);
    await c.listAllTools();
    const r = await c.callTool("geo", { region: "eu" });
    expect(r.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.rpcs("tools/call")).toHaveLength(2);
    expect(server.rpcs("tools/list")).toHaveLength(2);
    // Still mismatched after the refresh: the error, once.
    const err = await rejection(c.callTool("geo", { region: "us" }));
    expect(err).toMatchObject({ kind: "protocol", reason: "jsonrpc_error", detail: { jsonrpc: -32020 } });
    expect(err.data).toMatchObject({ status: 400 });
  });

  it("an SSE answer carries progress, then the response", async () => {
    server.on(
      onRpc("tools/call", (req, res) => {
        const token = ((req.body!.params as Record<string, unknown>)._meta as Record<string, unknown>)
          .progressToken;
        sse(res, [
          {
            data: {
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken: token, progress: 1 },
            },
          },
          {
            data: {
              jsonrpc: "2.0",
              method: "notifications/progress",
              params: { progressToken: token, progress: 2 },
            },
          },
          { data: result(req.body!.id, { content: [{ type: "text", text: "streamed" }] }) },
        ]);
      }),
    );
    const c = clients.create(server.url);
    const seen: number[] = [];
    const r = await c.callTool("echo", {}, { onProgress: (p) => seen.push(p.progress) });
    expect(r.content).toEqual([{ type: "text", text: "streamed" }]);
    // Each one, in order, before the result.
    expect(seen).toEqual([1, 2]);
  });

  it("a stream that ends before the response fails the request (never replayed)", async () => {
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => {
          sse(res, [
            {
              id: "e1",
              data: { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } },
            },
          ]);
        },
        1,
      ),
    );
    const c = clients.create(server.url);
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "transport", reason: "stream_ended_without_response" });
    expect(server.rpcs("tools/call")).toHaveLength(1);
    expect(server.requests.filter((r) => r.method === "GET")).toHaveLength(0);
    await expectWorking(c);
  });

  it("a connection cut mid-stream fails the request", async () => {
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(": keep-alive\n\n");
          setTimeout(() => res.socket?.destroy(), 20);
        },
        1,
      ),
    );
    const c = clients.create(server.url);
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "transport" });
    await expectWorking(c);
  });

  it("cancelling a modern request closes its stream and sends no notification", async () => {
    let closed = false;
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(": started\n\n");
          res.on("close", () => {
            closed = true;
          });
        },
        1,
      ),
    );
    const c = clients.create(server.url);
    const err = await rejection(c.callTool("echo", {}, { timeout: 200 }));
    expect(err.kind).toBe("timeout");
    await waitFor(() => closed, "the server to see the stream closed");
    expect(server.rpcs("notifications/cancelled")).toHaveLength(0);
    await expectWorking(c);
  });
});

describe("the Answers table", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  async function readyClient(transport = {}) {
    const c = clients.create(server.url, transport);
    await c.ready();
    return c;
  }

  it("401 and 403: kind auth with the parsed challenges", async () => {
    const c = await readyClient();
    server.on(
      onRpc(
        "tools/call",
        (_req, res) =>
          json(
            res,
            401,
            { error: "nope" },
            {
              "www-authenticate": 'Bearer realm="mcp", error="invalid_token", scope="a b", Basic realm="x"',
            },
          ),
        1,
      ),
    );
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "auth", reason: "unauthorized" });
    expect(err.data).toEqual({
      status: 401,
      challenges: [
        { scheme: "Bearer", params: { realm: "mcp", error: "invalid_token", scope: "a b" } },
        { scheme: "Basic", params: { realm: "x" } },
      ],
    });
    server.on(onRpc("tools/call", (_req, res) => json(res, 403, undefined), 1));
    const forbidden = await rejection(c.callTool("echo", {}));
    expect(forbidden).toMatchObject({
      kind: "auth",
      reason: "forbidden",
      data: { status: 403, challenges: [] },
    });
    await expectWorking(c);
  });

  it("429: kind rate_limited with retryAfter in seconds", async () => {
    const c = await readyClient();
    server.on(onRpc("tools/call", (_req, res) => json(res, 429, undefined, { "retry-after": "7" }), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "rate_limited", data: { status: 429, retryAfter: 7 } });
    server.on(onRpc("tools/call", (_req, res) => json(res, 429, undefined), 1));
    expect((await rejection(c.callTool("echo", {}))).data).toEqual({ status: 429, retryAfter: null });
    await expectWorking(c);
  });

  it("a 4xx carrying a JSON-RPC error: that error, as kind protocol (the body's text only in data)", async () => {
    const c = await readyClient();
    server.on(
      onRpc(
        "tools/call",
        (req, res) => json(res, 400, rpcError(req.body!.id, -32602, `bad ${TOKEN_VALUE} params`)),
        1,
      ),
    );
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "protocol", reason: "jsonrpc_error", detail: { jsonrpc: -32602 } });
    expect(err.message).not.toContain("bad");
    expect((err.data as { status: number }).status).toBe(400);
    await expectWorking(c);
  });

  it("another 4xx: kind transport with the status", async () => {
    const c = await readyClient();
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => void res.writeHead(409, { "content-type": "text/plain" }).end("secret body"),
        1,
      ),
    );
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "transport", reason: "http_409", data: { status: 409 } });
    expect(err.message).not.toContain("secret body");
    await expectWorking(c);
  });

  it("5xx: kind transport with the status, whatever the body", async () => {
    const c = await readyClient();
    server.on(onRpc("tools/call", (req, res) => json(res, 503, rpcError(req.body!.id, -32603, "down")), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "transport", reason: "http_503", data: { status: 503 } });
    await expectWorking(c);
  });

  it("a network failure: kind transport", async () => {
    const c = await readyClient();
    server.on(onRpc("tools/call", (_req, res) => void res.socket?.destroy(), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "transport", reason: "network_error" });
    await expectWorking(c);
  });

  it("a 2xx that is neither JSON nor an event stream, or JSON without the response", async () => {
    const c = await readyClient();
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<p>"),
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "transport",
      reason: "unexpected_content_type",
    });
    server.on(onRpc("tools/call", (_req, res) => json(res, 200, result(999, {})), 1));
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "transport",
      reason: "no_response",
    });
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => void res.writeHead(200, { "content-type": "application/json" }).end("{nope"),
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "protocol",
      reason: "invalid_json_body",
    });
    await expectWorking(c);
  });

  it("a 202 or 204 with no body in answer to a request: protocol at once, sent once", async () => {
    const c = await readyClient();
    for (const status of [202, 204]) {
      const before = server.rpcs("tools/call").length;
      server.on(onRpc("tools/call", (_req, res) => void res.writeHead(status).end(), 1));
      expect(await rejection(c.callTool("echo", {}))).toMatchObject({
        kind: "protocol",
        reason: "accepted_without_response",
        data: { status },
      });
      expect(server.rpcs("tools/call").length - before).toBe(1);
    }
    await expectWorking(c);
  });
});

describe("redirects", () => {
  let other: http.Server;
  let otherRequests: http.IncomingMessage[] = [];
  beforeEach(async () => {
    server = await startScripted();
    otherRequests = [];
    other = http.createServer((req, res) => {
      otherRequests.push(req);
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => other.listen(0, "127.0.0.1", r));
  });
  afterEach(async () => {
    other.closeAllConnections();
    await new Promise<void>((r) => other.close(() => r()));
  });

  it("a redirect to another origin is not followed and nothing is sent there", async () => {
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/mcp`;
    const c = clients.create(server.url, { redirect: "same-origin" });
    await c.ready();
    server.on(onRpc("tools/call", (_req, res) => void res.writeHead(307, { location: otherUrl }).end(), 1));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "transport", reason: "redirect_not_followed", data: { status: 307 } });
    expect(otherRequests).toHaveLength(0);
    await expectWorking(c);
  });

  it('same-origin 307/308 are followed with redirect: "same-origin", refused by default', async () => {
    const moved = (req: SeenRequest, res: http.ServerResponse) => {
      if (req.path !== "/mcp" || req.rpc !== "tools/call") return false;
      res.writeHead(308, { location: "/moved" }).end();
      return true;
    };
    const movedPath = (req: SeenRequest, res: http.ServerResponse) => {
      if (req.path !== "/moved") return false;
      json(res, 200, result(req.body!.id, { content: [{ type: "text", text: "moved" }] }));
      return true;
    };
    server.on(moved).on(movedPath);
    const follow = clients.create(server.url, { redirect: "same-origin" });
    expect((await follow.callTool("echo", {})).content).toEqual([{ type: "text", text: "moved" }]);
    const moves = server.requests.filter((r) => r.path === "/moved");
    expect(moves[0]!.headers.authorization).toBe(`Bearer ${TOKEN_VALUE}`);
    const refuse = clients.create(server.url);
    expect(await rejection(refuse.callTool("echo", {}))).toMatchObject({
      kind: "transport",
      reason: "redirect_not_followed",
      data: { status: 308 },
    });
    // A 302 is never followed, even same-origin.
    server.reset();
    server.on(onRpc("tools/call", (_req, res) => void res.writeHead(302, { location: "/moved" }).end(), 1));
    expect(await rejection(follow.callTool("echo", {}))).toMatchObject({ data: { status: 302 } });
  });

  it("at most five redirects", async () => {
    server.on((req, res) => {
      if (!req.path.startsWith("/loop") && !(req.path === "/mcp" && req.rpc === "tools/call")) return false;
      res.writeHead(307, { location: `/loop${req.n}` }).end();
      return true;
    });
    const c = clients.create(server.url, { redirect: "same-origin" });
    await c.ready();
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ reason: "redirect_not_followed" });
    expect(server.requests.filter((r) => r.path.startsWith("/loop"))).toHaveLength(5);
  });
});

describe("size caps", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  it("an over-size JSON body: message_too_large", async () => {
    const c = clients.create(server.url, { maxMessageBytes: 4096 });
    await c.ready();
    server.on(
      onRpc(
        "tools/call",
        (req, res) =>
          json(res, 200, result(req.body!.id, { content: [{ type: "text", text: "x".repeat(5000) }] })),
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ kind: "message_too_large" });
    await expectWorking(c);
  });

  it("an over-size event: message_too_large", async () => {
    const c = clients.create(server.url, { maxMessageBytes: 4096 });
    await c.ready();
    server.on(
      onRpc(
        "tools/call",
        (req, res) =>
          sse(res, [{ data: result(req.body!.id, { content: [{ type: "text", text: "y".repeat(5000) }] }) }]),
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ kind: "message_too_large" });
    // An event that never ends is cut at the cap too.
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`data: ${"z".repeat(8000)}`);
        },
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ kind: "message_too_large" });
    await expectWorking(c);
  });

  it("a gzip body that inflates past the cap: message_too_large", async () => {
    const c = clients.create(server.url, { maxMessageBytes: 64 * 1024 });
    await c.ready();
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    server.on(
      onRpc(
        "tools/call",
        (_req, res) =>
          void res
            .writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
            .end(bomb),
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ kind: "message_too_large" });
    // The same bomb as an event stream.
    server.on(
      onRpc(
        "tools/call",
        (_req, res) =>
          void res
            .writeHead(200, { "content-type": "text/event-stream", "content-encoding": "gzip" })
            .end(bomb),
        1,
      ),
    );
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ kind: "message_too_large" });
    // A small gzip body is read as usual.
    server.on(
      onRpc(
        "tools/call",
        (req, res) =>
          void res
            .writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" })
            .end(
              gzipSync(JSON.stringify(result(req.body!.id, { content: [{ type: "text", text: "zipped" }] }))),
            ),
        1,
      ),
    );
    expect((await c.callTool("echo", {})).content).toEqual([{ type: "text", text: "zipped" }]);
    await expectWorking(c);
  });
});

describe("the HTTP probe rows", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  it.each([401, 403])("%i to the probe: the connection closes with auth", async (status) => {
    server.on(
      onRpc("server/discover", (_req, res) => json(res, status, undefined, { "www-authenticate": "Bearer" })),
    );
    const c = clients.create(server.url);
    // Waiting requests and ready() hear the refusal itself: auth, with the status and challenges.
    const waiting = rejection(c.listTools());
    const err = await rejection(c.ready());
    for (const e of [err, await waiting, await rejection(c.callTool("echo", {}))]) {
      expect(e.kind).toBe("auth");
      expect(e.data).toMatchObject({ status, challenges: [{ scheme: "Bearer" }] });
    }
    expect(c.status()).toMatchObject({ state: "closed" });
    expect(server.rpcs("initialize")).toHaveLength(0);
  });

  it.each([
    ["404 with an empty body", 404, undefined],
    ["405", 405, undefined],
    ["400 with a body that is not JSON-RPC", 400, { error: "bad" }],
    ["-32601 (method not found)", 404, "method-not-found"],
  ])("%s: legacy", async (_name, status, body) => {
    await server.close();
    server = await startScripted({ era: "legacy" });
    server.on(
      onRpc("server/discover", (req, res) =>
        json(
          res,
          status,
          body === "method-not-found" ? rpcError(req.body!.id, -32601, "Method not found") : body,
        ),
      ),
    );
    const c = clients.create(server.url);
    await c.ready();
    expect(c.status()).toMatchObject({ state: "ready", era: "legacy", version: LEGACY });
    await expectWorking(c);
  });

  it("400 with a non-modern JSON-RPC error (a 2025-era server wanting a session): legacy", async () => {
    // Needs probe.ts: a 400/404/405 whose JSON-RPC code is not a modern one is legacy evidence.
    await server.close();
    server = await startScripted({ era: "legacy" });
    const c = clients.create(server.url);
    await c.ready();
    expect(c.era()).toBe("legacy");
  });

  it("-32022 naming a mutual version: discovers again, never falls back", async () => {
    server.on(
      onRpc(
        "server/discover",
        (req, res) =>
          json(res, 400, rpcError(req.body!.id, -32022, "Unsupported", { supported: ["2026-07-28"] })),
        1,
      ),
    );
    const c = clients.create(server.url);
    await c.ready();
    expect(c.era()).toBe("modern");
    expect(server.rpcs("server/discover")).toHaveLength(2);
  });

  it.each([
    [
      "without supportedVersions",
      (r: Record<string, unknown>) => ({ resultType: "complete", capabilities: r.capabilities }),
      "invalid_discover_result",
    ],
    [
      "listing only a version we do not speak",
      (r: Record<string, unknown>) => ({ ...r, supportedVersions: ["2099-01-01"] }),
      "no_mutual_version",
    ],
  ])(
    "a discover answer %s fails ready() with protocol at once, no fallback",
    async (_name, answer, reason) => {
      server.on(
        onRpc("server/discover", (req, res) =>
          json(res, 200, result(req.body!.id, answer(DISCOVER_RESULT as Record<string, unknown>))),
        ),
      );
      const c = clients.create(server.url);
      const err = await rejection(c.ready({ timeout: 60_000 }));
      expect(err).toMatchObject({ kind: "closed", reason });
      expect(err.cause).toMatchObject({ kind: "protocol", reason });
      expect(server.rpcs("initialize")).toHaveLength(0);
    },
  );

  it("-32020 to the probe: the connection closes", async () => {
    server.on(
      onRpc("server/discover", (req, res) =>
        json(res, 400, rpcError(req.body!.id, -32020, "Header mismatch")),
      ),
    );
    const c = clients.create(server.url);
    const err = await rejection(c.ready());
    expect(err.kind).toBe("closed");
    expect(c.status().reason).toContain("-32020");
  });

  it.each([
    ["503", (_req: SeenRequest, res: http.ServerResponse) => json(res, 503, undefined)],
    [
      "429",
      (_req: SeenRequest, res: http.ServerResponse) => json(res, 429, undefined, { "retry-after": "0" }),
    ],
    ["408", (_req: SeenRequest, res: http.ServerResponse) => json(res, 408, undefined)],
    ["a network error", (_req: SeenRequest, res: http.ServerResponse) => void res.socket?.destroy()],
  ])("%s to the probe: reconnect and probe again, never a downgrade", async (_name, answer) => {
    // Needs the connection to reconnect on the probe's "retry" verdict (today it closes).
    server.on(onRpc("server/discover", answer, 1));
    const c = clients.create(server.url);
    await c.ready({ timeout: 5_000 });
    expect(c.era()).toBe("modern");
    expect(server.rpcs("initialize")).toHaveLength(0);
  });

  it("a probe that times out: reconnect and probe again", async () => {
    // Needs the connection to reconnect on the probe's "retry" verdict (today it closes).
    server.on(onRpc("server/discover", () => {}, 1));
    const c = clients.create(server.url, {}, { probeTimeout: 200 });
    await c.ready({ timeout: 5_000 });
    expect(c.era()).toBe("modern");
    expect(server.rpcs("initialize")).toHaveLength(0);
  });
});

describe("the legacy shape", () => {
  beforeEach(async () => {
    server = await startScripted({ era: "legacy" });
  });

  it("captures the session from initialize, sends it with the version, opens the GET stream, DELETEs on close", async () => {
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    await c.ready();
    await c.callTool("echo", {});
    await waitFor(() => server.streams.size > 0, "the GET stream");
    expect(server.streams.size).toBe(1);
    const call = server.rpcs("tools/call")[0]!;
    expect(call.headers["mcp-session-id"]).toBe("session-1-abcdef");
    expect(call.headers["mcp-protocol-version"]).toBe(LEGACY);
    expect(call.headers["mcp-method"]).toBeUndefined();
    const init = server.rpcs("initialize")[0]!;
    expect(init.headers["mcp-session-id"]).toBeUndefined();
    const get = server.requests.find((r) => r.method === "GET")!;
    expect(get.headers).toMatchObject({ accept: "text/event-stream", "mcp-session-id": "session-1-abcdef" });
    // Server requests and notifications arrive on the GET stream.
    const notes = clients.events.of("notification").length;
    server.push({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    server.push({ jsonrpc: "2.0", id: "srv-1", method: "ping" });
    const replied = () =>
      server.requests.some((r) => (r.body as { id?: unknown } | undefined)?.id === "srv-1");
    await waitFor(replied, "the answer to the server's ping");
    const reply = server.requests.find((r) => (r.body as { id?: unknown } | undefined)?.id === "srv-1");
    expect(reply?.body).toEqual({ jsonrpc: "2.0", id: "srv-1", result: {} });
    expect(clients.events.of("notification").length).toBeGreaterThan(notes);
    await c.close();
    const del = server.requests.find((r) => r.method === "DELETE")!;
    expect(del.headers["mcp-session-id"]).toBe("session-1-abcdef");
  });

  it("requests wait until notifications/initialized has been answered (the handshake's gate)", async () => {
    let holding = false;
    const whileHeld: string[] = [];
    server.on((req) => {
      if (holding && req.rpc) whileHeld.push(req.rpc);
      return false;
    });
    server.on(
      onRpc(
        "notifications/initialized",
        (_req, res) => {
          // Held until the call has had every chance to overtake it.
          holding = true;
          setTimeout(() => {
            holding = false;
            res.writeHead(202).end();
          }, 150);
        },
        1,
      ),
    );
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    const r = await c.callTool("echo", { n: 1 });
    expect(r.isError).not.toBe(true);
    expect(whileHeld).toEqual([]);
    const order = server.requests.map((q) => q.rpc).filter((m) => m !== undefined);
    expect(order.indexOf("notifications/initialized")).toBeLessThan(order.indexOf("tools/call"));
  });

  it("a session id that is not 1-1024 visible ASCII fails the handshake", async () => {
    server.on(
      onRpc("initialize", (req, res) =>
        json(
          res,
          200,
          result(req.body!.id, {
            protocolVersion: LEGACY,
            capabilities: {},
            serverInfo: { name: "s", version: "1" },
          }),
          { "mcp-session-id": "x".repeat(1025) },
        ),
      ),
    );
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    const err = await rejection(c.ready());
    expect(err.kind).toBe("closed");
    expect(c.status().reason).toContain("invalid_session_id");
  });

  it("a 404 renews the session and resends the request, without failing the others; a second 404 is session_expired", async () => {
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    await c.ready();
    server.expireSessions();
    const results = await Promise.all([
      c.callTool("echo", { message: "a" }),
      c.callTool("echo", { message: "b" }),
      c.callTool("echo", { message: "c" }),
    ]);
    expect(
      results.map((r) => (r.structured as { arguments: { message: string } }).arguments.message),
    ).toEqual(["a", "b", "c"]);
    expect(server.rpcs("initialize")).toHaveLength(2);
    expect(server.rpcs("notifications/initialized")).toHaveLength(2);
    const last = server.rpcs("tools/call").at(-1)!;
    expect(last.headers["mcp-session-id"]).toBe("session-2-abcdef");

    // A server that forgets every session at once: the resent request 404s again.
    server.on((req, res) => {
      if (req.rpc !== "tools/call") return false;
      json(res, 404, undefined);
      return true;
    });
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "session_expired" });
    server.reset();
    await expectWorking(c);
  });

  it("a stream that ends early after an event id is resumed with Last-Event-ID", async () => {
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => {
          sse(res, [
            { id: "ev-1", data: "" },
            {
              id: "ev-2",
              retry: 10,
              data: {
                jsonrpc: "2.0",
                method: "notifications/message",
                params: { level: "info", data: "half" },
              },
            },
          ]);
        },
        1,
      ),
    );
    server.on((req, res) => {
      if (req.method !== "GET" || req.headers["last-event-id"] === undefined) return false;
      const call = server.rpcs("tools/call")[0]!;
      sse(res, [
        { id: "ev-3", data: result(call.body!.id, { content: [{ type: "text", text: "resumed" }] }) },
      ]);
      return true;
    });
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    const r = await c.callTool("echo", {});
    expect(r.content).toEqual([{ type: "text", text: "resumed" }]);
    const resume = server.requests.find(
      (q) => q.method === "GET" && q.headers["last-event-id"] !== undefined,
    )!;
    expect(resume.headers["last-event-id"]).toBe("ev-2");
    expect(resume.headers["mcp-session-id"]).toBe("session-1-abcdef");
  });

  it("resumption gives up after five attempts", async () => {
    server.on(onRpc("tools/call", (_req, res) => sse(res, [{ id: "p0", retry: 1, data: "" }]), 1));
    server.on((req, res) => {
      if (req.method !== "GET" || req.headers["last-event-id"] === undefined) return false;
      sse(res, [{ id: `p${req.n}`, retry: 1, data: "" }]);
      return true;
    });
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "transport",
      reason: "stream_ended_without_response",
    });
    expect(server.requests.filter((q) => q.method === "GET" && q.headers["last-event-id"])).toHaveLength(5);
    await expectWorking(c);
  });

  it("a server request on a request's stream is answered, and the request then completes", async () => {
    server.on(
      onRpc(
        "tools/call",
        (req, res) => {
          sse(res, [{ data: { jsonrpc: "2.0", id: "srv-ping", method: "ping" } }], { keepOpen: true });
          const finish = () => {
            if (!server.requests.some((r) => (r.body as { id?: unknown } | undefined)?.id === "srv-ping")) {
              return void setTimeout(finish, 10);
            }
            sse(res, [{ data: result(req.body!.id, { content: [{ type: "text", text: "after ping" }] }) }]);
          };
          finish();
        },
        1,
      ),
    );
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    const r = await c.callTool("echo", {});
    expect(r.content).toEqual([{ type: "text", text: "after ping" }]);
    const reply = server.requests.find((q) => (q.body as { id?: unknown } | undefined)?.id === "srv-ping")!;
    expect(reply.body).toEqual({ jsonrpc: "2.0", id: "srv-ping", result: {} });
    expect(reply.headers["mcp-session-id"]).toBe("session-1-abcdef");
  });

  it("cancelling POSTs notifications/cancelled, then closes the stream", async () => {
    server.on(
      onRpc(
        "tools/call",
        (_req, res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(": working\n\n");
        },
        1,
      ),
    );
    const c = clients.create(server.url, {}, { protocol: "legacy" });
    await c.ready();
    expect(await rejection(c.callTool("echo", {}, { timeout: 150 }))).toMatchObject({ kind: "timeout" });
    await waitFor(() => server.rpcs("notifications/cancelled").length > 0, "the cancellation");
    const cancel = server.rpcs("notifications/cancelled")[0]!;
    expect(cancel.body).toMatchObject({ params: { requestId: server.rpcs("tools/call")[0]!.body!.id } });
    expect(cancel.headers["mcp-session-id"]).toBe("session-1-abcdef");
    await expectWorking(c);
  });

  it("a GET stream silent for listenIdleTimeout is dropped and reopened", async () => {
    const c = clients.create(server.url, { listenIdleTimeout: 150 }, { protocol: "legacy" });
    await c.ready();
    await waitFor(() => server.requests.filter((r) => r.method === "GET").length >= 2, "a second GET");
    await expectWorking(c);
  });
});

describe("the HTTP+SSE (2024-11-05) endpoint", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  it("an endpoint event naming another origin is refused", async () => {
    server.on((req, res) => {
      if (req.method !== "GET") return false;
      sse(res, [{ event: "endpoint", data: "http://127.0.0.2:1/messages" }], { keepOpen: true });
      return true;
    });
    const c = clients.create(server.url, { legacySse: "only" }, { protocol: "legacy", maxReconnects: 0 });
    const err = await rejection(c.ready());
    expect(err.kind).toBe("closed");
    expect(c.status().reason).toContain("sse_endpoint_cross_origin");
  });
});

describe("credentials", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  it("an auth function is called per request with the URL and method; its failures are kind auth", async () => {
    const calls: Array<{ url: string; method: string }> = [];
    let mode: "ok" | "throw" | "error" | "bad" | "null" = "ok";
    const c = clients.create(server.url, {
      auth: async (req) => {
        calls.push(req);
        if (mode === "throw") throw new Error(`boom ${TOKEN_VALUE}`);
        if (mode === "error") return new Error("no token");
        if (mode === "bad") return "has space";
        if (mode === "null") return null;
        return new Secret(TOKEN_VALUE);
      },
    });
    await c.ready();
    expect(calls[0]).toEqual({ url: server.url, method: "POST" });
    mode = "throw";
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "auth",
      reason: "auth_function_failed",
    });
    mode = "error";
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "auth",
      reason: "auth_function_failed",
    });
    mode = "bad";
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({ kind: "auth", reason: "invalid_token" });
    mode = "null";
    await c.callTool("echo", {});
    expect(server.rpcs("tools/call").at(-1)!.headers.authorization).toBeUndefined();
    mode = "ok";
    await expectWorking(c);
    expect(server.rpcs("tools/call").at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN_VALUE}`);
  });
});

describe("serverUrlPolicy: publicOnly", () => {
  beforeEach(async () => {
    server = await startScripted();
  });

  it("refuses loopback and private addresses before any request", async () => {
    const loop = clients.create(server.url, { serverUrlPolicy: "publicOnly" }, { maxReconnects: 0 });
    const err = await rejection(loop.ready());
    expect(err.cause as McpClientError).toMatchObject({
      kind: "denied",
      reason: "server_url_policy",
      data: { range: "loopback" },
    });
    expect(server.requests).toHaveLength(0);

    for (const [address, range] of [
      ["10.1.2.3", "private"],
      ["169.254.169.254", "linkLocal"],
      ["100.64.0.1", "carrierGradeNat"],
      ["fd00::1", "uniqueLocal"],
      ["::ffff:127.0.0.1", "loopback"],
      ["0.0.0.0", "unspecified"],
      ["224.0.0.1", "multicast"],
    ] as const) {
      const c = clients.create(`http://mcp.example.test:${server.port}/mcp`, {
        auth: undefined,
        serverUrlPolicy: "publicOnly",
        resolver: async () => [address],
      });
      const e = await rejection(c.ready());
      expect((e.cause as McpClientError).data).toEqual({ range });
    }
    expect(server.requests).toHaveLength(0);
  });

  it("allowPrivate admits them, and the connection goes to the vetted address", async () => {
    const resolved: string[] = [];
    const c = clients.create(`http://mcp.example.test:${server.port}/mcp`, {
      auth: undefined,
      serverUrlPolicy: "publicOnly",
      allowPrivate: ["127.0.0.0/8"],
      resolver: async (host) => {
        resolved.push(host);
        return ["127.0.0.1"];
      },
    });
    await c.ready();
    await expectWorking(c);
    // Checked before every request.
    expect(resolved.length).toBeGreaterThanOrEqual(2);
    expect(resolved.every((h) => h === "mcp.example.test")).toBe(true);
    expect(server.rpcs("tools/call")[0]!.headers.host).toBe(`mcp.example.test:${server.port}`);
  });

  it("a name that rebinds to a refused address is refused at the next request", async () => {
    let answer = "127.0.0.1";
    const c = clients.create(`http://rebind.example.test:${server.port}/mcp`, {
      auth: undefined,
      serverUrlPolicy: "publicOnly",
      allowPrivate: ["127.0.0.1/32"],
      resolver: async () => [answer],
    });
    await c.ready();
    answer = "10.0.0.1";
    expect(await rejection(c.callTool("echo", {}))).toMatchObject({
      kind: "denied",
      data: { range: "private" },
    });
    answer = "127.0.0.1";
    await expectWorking(c);
  });
});

describe("frames", () => {
  it("sseFrame renders what the tests send", () => {
    expect(sseFrame({ id: "1", event: "x", retry: 5, data: { a: 1 } })).toBe(
      'id: 1\nevent: x\nretry: 5\ndata: {"a":1}\n\n',
    );
    expect(DISCOVER_RESULT.supportedVersions).toEqual(["2026-07-28"]);
  });
});
