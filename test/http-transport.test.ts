/**
 * The HTTP transport's edges: TLS options, the transport used directly with its own sink (as a
 * custom client would), long-lived modern streams, the HTTP+SSE channel's life, and `-32022`
 * on a ready modern connection.
 */
import { describe, expect, it } from "vitest";
import {
  HttpTransport,
  type JsonRpcMessage,
  McpClientError,
  type RequestId,
  type TransportSink,
} from "../src/index.js";
import { waitFor } from "./support/async.js";
import {
  json,
  result,
  rpcError,
  type ScriptedHttpServer,
  type SeenRequest,
  sse,
  startScripted,
} from "./support/http-scripted.js";
import { scriptedSuite } from "./support/http-suite.js";
import { TLS_CERT, TLS_KEY } from "./support/http-tls.js";
import { silentLogger } from "./support/logger.js";

let server: ScriptedHttpServer | undefined;
const { clients } = scriptedSuite("http-transport", () => server);

/** A sink that records what the transport reports. */
function recordingSink() {
  const messages: JsonRpcMessage[] = [];
  const failures: Array<{ id: RequestId; error: McpClientError }> = [];
  const closed: Array<McpClientError | undefined> = [];
  const warnings: string[] = [];
  const sink: TransportSink = {
    message: (m) => messages.push(m),
    fail: (id, error) => failures.push({ id, error }),
    closed: (e) => closed.push(e),
    warn: (t) => warnings.push(t),
  };
  return { sink, messages, failures, closed, warnings };
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "direct", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("TLS", () => {
  it("transportOpts.ca trusts a private CA; without it the certificate is refused", async () => {
    server = await startScripted({ tls: { key: TLS_KEY, cert: TLS_CERT } });
    const trusted = clients.create(server.url, { transportOpts: { ca: TLS_CERT } });
    await trusted.ready();
    expect((await trusted.callTool("echo", {})).isError).toBe(false);

    const untrusted = clients.create(server.url, {}, { maxReconnects: 0 });
    const err = clients.seen(await untrusted.ready().catch((e) => e));
    expect(err).toBeInstanceOf(McpClientError);
    expect(untrusted.status().reason).toContain("network_error");
  });

  it("insecureSkipTlsVerify connects anyway, with a warning", async () => {
    server = await startScripted({ tls: { key: TLS_KEY, cert: TLS_CERT } });
    const logger = silentLogger();
    const c = clients.create(server.url, { insecureSkipTlsVerify: true }, { logger });
    await c.ready();
    expect(logger.warnings.join("\n")).toContain("insecureSkipTlsVerify");
  });
});

describe("the transport on its own", () => {
  it("modern request: one POST, the response to the sink; close is clean", async () => {
    server = await startScripted();
    const t = new HttpTransport({ url: server.url });
    const r = recordingSink();
    await t.start(r.sink);
    t.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: MODERN_META } });
    await waitFor(() => r.messages.length === 1);
    expect(r.messages[0]).toMatchObject({ id: 1, result: { tools: [{ name: "echo" }] } });
    await t.close();
    expect(r.closed).toEqual([undefined]);
    expect(() => t.send({ jsonrpc: "2.0", id: 2, method: "ping" })).toThrow(McpClientError);
    // It starts again after a close.
    const again = recordingSink();
    await t.start(again.sink);
    t.send({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: MODERN_META } });
    await waitFor(() => again.messages.length === 1);
    expect(again.messages[0]).toMatchObject({ id: 3 });
    await t.close();
  });

  it("a params object JSON cannot carry throws a TypeError at send", async () => {
    server = await startScripted();
    const t = new HttpTransport({ url: server.url });
    await t.start(recordingSink().sink);
    expect(() => t.send({ jsonrpc: "2.0", id: 1, method: "x", params: { n: 1n } })).toThrow(TypeError);
    await t.close();
  });

  it("a subscriptions/listen stream silent for listenIdleTimeout is dropped (the request fails)", async () => {
    server = await startScripted();
    server.on((req, res) => {
      if (req.rpc !== "subscriptions/listen") return false;
      sse(
        res,
        [{ data: { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: {} } }],
        {
          keepOpen: true,
        },
      );
      return true;
    });
    const t = new HttpTransport({ url: server.url, listenIdleTimeout: 150 });
    const r = recordingSink();
    await t.start(r.sink);
    t.send({
      jsonrpc: "2.0",
      id: 7,
      method: "subscriptions/listen",
      params: { _meta: MODERN_META, filter: {} },
    });
    await waitFor(() => r.failures.length === 1);
    expect(r.messages).toHaveLength(1);
    expect(r.failures[0]).toMatchObject({
      id: 7,
      error: { kind: "transport", reason: "listen_idle_timeout" },
    });
    await t.close();
  });

  it("the HTTP+SSE channel: POSTs to the endpoint, answers on the stream; its end closes the transport", async () => {
    server = await startScripted();
    let stream: import("node:http").ServerResponse | undefined;
    server.on((req, res) => {
      if (req.method === "GET") {
        stream = res;
        sse(res, [{ event: "endpoint", data: "/messages?session=abc" }], { keepOpen: true });
        return true;
      }
      if (req.path.startsWith("/messages")) {
        res.writeHead(202).end("Accepted");
        const body = req.body as { id?: unknown; method?: string };
        if (body.id !== undefined)
          stream?.write(`event: message\ndata: ${JSON.stringify(result(body.id, { ok: true }))}\n\n`);
        return true;
      }
      return false;
    });
    const t = new HttpTransport({ url: server.url, legacySse: "only" });
    const r = recordingSink();
    await t.start(r.sink);
    t.send({ jsonrpc: "2.0", id: 1, method: "ping" });
    await waitFor(() => r.messages.length === 1);
    expect(r.messages[0]).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } });
    expect(server.requests.find((q: SeenRequest) => q.path === "/messages?session=abc")?.body).toMatchObject({
      method: "ping",
    });
    stream?.end();
    await waitFor(() => r.closed.length === 1);
    expect(r.closed[0]).toMatchObject({ kind: "transport", reason: "sse_stream_ended" });
    await t.close();
  });
});

describe("-32022 on a ready modern connection", () => {
  it("is answered by discovering again and resending the request once", async () => {
    // Needs the connection's sink.fail path to renegotiate on -32022 as #receive does.
    server = await startScripted();
    let refused = false;
    server.on((req, res) => {
      if (req.rpc !== "tools/call" || refused) return false;
      refused = true;
      json(
        res,
        400,
        rpcError(req.body!.id, -32022, "Unsupported protocol version", { supported: ["2026-07-28"] }),
      );
      return true;
    });
    const c = clients.create(server.url);
    await c.ready();
    expect((await c.callTool("echo", { message: "x" })).isError).toBe(false);
    expect(server.rpcs("server/discover")).toHaveLength(2);
  });
});
