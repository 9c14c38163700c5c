/**
 * A scripted HTTP MCP server, in process on 127.0.0.1: by default a well-behaved modern
 * (2026-07-28) server, or with `era: "legacy"` a sessionful 2025-11-25 one (initialize, session
 * ids, the standalone GET stream, DELETE). A test overrides any answer with `on(handler)`: the
 * handler sees each request first and answers it itself when it returns true.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body of a POST (undefined when not JSON). */
  body: Record<string, unknown> | undefined;
  /** The JSON-RPC method of a POST body. */
  rpc: string | undefined;
  /** The index of this request among all the server saw. */
  n: number;
}

export type Handler = (req: SeenRequest, res: ServerResponse) => boolean | Promise<boolean>;

export interface ScriptedOptions {
  era?: "modern" | "legacy";
  /** Tools listed by tools/list (default: echo). */
  tools?: Array<Record<string, unknown>>;
  /** Serve HTTPS with this key and certificate. */
  tls?: { key: string; cert: string };
}

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

export const ECHO_TOOL = {
  name: "echo",
  description: "Echoes its arguments",
  inputSchema: { type: "object", properties: { message: { type: "string" } } },
};

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? "" : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

export function gzipJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json", "content-encoding": "gzip" });
  res.end(gzipSync(Buffer.from(typeof body === "string" ? body : JSON.stringify(body))));
}

export interface SseEvent {
  id?: string;
  event?: string;
  data?: unknown;
  retry?: number;
}

export function sseFrame(e: SseEvent): string {
  let out = "";
  if (e.id !== undefined) out += `id: ${e.id}\n`;
  if (e.event !== undefined) out += `event: ${e.event}\n`;
  if (e.retry !== undefined) out += `retry: ${e.retry}\n`;
  if (e.data !== undefined) out += `data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n`;
  return `${out}\n`;
}

/** Starts an event stream and writes `events`; ends the response unless `keepOpen`. */
export function sse(
  res: ServerResponse,
  events: SseEvent[],
  opts: { keepOpen?: boolean; headers?: Record<string, string> } = {},
): void {
  if (!res.headersSent) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...opts.headers });
  }
  for (const e of events) res.write(sseFrame(e));
  if (!opts.keepOpen) res.end();
  else if (events.length === 0) res.flushHeaders();
}

export function result(id: unknown, value: Record<string, unknown>): Record<string, unknown> {
  return { jsonrpc: "2.0", id, result: value };
}

export function rpcError(
  id: unknown,
  code: number,
  message: string,
  data?: unknown,
): Record<string, unknown> {
  return { jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

export const DISCOVER_RESULT = {
  supportedVersions: [MODERN],
  capabilities: { tools: {}, resources: {}, prompts: {} },
  _meta: { "io.modelcontextprotocol/serverInfo": { name: "scripted-http", version: "1.0.0" } },
};

export class ScriptedHttpServer {
  readonly requests: SeenRequest[] = [];
  readonly #server: http.Server;
  readonly #opts: ScriptedOptions;
  #handlers: Handler[] = [];
  #sessions = new Set<string>();
  #nextSession = 0;
  /** Open standalone GET streams (legacy), so a test can push messages. */
  readonly streams = new Set<ServerResponse>();
  port = 0;

  constructor(opts: ScriptedOptions = {}) {
    this.#opts = opts;
    const handle = (req: IncomingMessage, res: ServerResponse) => void this.#handle(req, res);
    this.#server = opts.tls ? https.createServer(opts.tls, handle) : http.createServer(handle);
    this.#server.keepAliveTimeout = 5_000;
  }

  /** Listens on `port` (0: any free one; a stopped server's port to play its restart). */
  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(port, "127.0.0.1", resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `${this.origin}/mcp`;
  }

  get origin(): string {
    return `${this.#opts.tls ? "https" : "http"}://127.0.0.1:${this.port}`;
  }

  /** Adds a handler that sees each request before the default behaviour. */
  on(handler: Handler): this {
    this.#handlers.push(handler);
    return this;
  }

  /** Removes every handler. */
  reset(): void {
    this.#handlers = [];
  }

  /** Ends every legacy session: the next request carrying one gets 404. */
  expireSessions(): void {
    this.#sessions.clear();
  }

  get sessionCount(): number {
    return this.#nextSession;
  }

  /** The requests (POST bodies) with this JSON-RPC method. */
  rpcs(method: string): SeenRequest[] {
    return this.requests.filter((r) => r.rpc === method);
  }

  async close(): Promise<void> {
    for (const s of this.streams) s.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Record<string, unknown> | undefined;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    } catch {
      body = undefined;
    }
    const seen: SeenRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body,
      rpc: typeof body?.method === "string" ? body.method : undefined,
      n: this.requests.length,
    };
    this.requests.push(seen);
    res.on("error", () => {});
    try {
      for (const h of this.#handlers) if (await h(seen, res)) return;
      if (this.#opts.era === "legacy") this.#legacy(seen, res);
      else this.#modern(seen, res);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
    }
  }

  #answer(msg: Record<string, unknown>, protocolMeta: boolean): Record<string, unknown> | undefined {
    const id = msg.id;
    const params = (msg.params ?? {}) as Record<string, unknown>;
    const meta = protocolMeta
      ? { "io.modelcontextprotocol/serverInfo": { name: "scripted-http", version: "1.0.0" } }
      : undefined;
    const wrap = (r: Record<string, unknown>) =>
      result(id, meta ? { resultType: "complete", ...r, _meta: meta } : r);
    switch (msg.method) {
      case "tools/list":
        return wrap({ tools: this.#opts.tools ?? [ECHO_TOOL] });
      case "tools/call":
        return wrap({
          content: [{ type: "text", text: JSON.stringify(params.arguments ?? {}) }],
          structuredContent: { name: params.name, arguments: params.arguments ?? {} },
        });
      case "ping":
        return wrap({});
      case "resources/read":
        return wrap({ contents: [{ uri: params.uri, text: "hello" }] });
      default:
        return undefined;
    }
  }

  #modern(req: SeenRequest, res: ServerResponse): void {
    if (req.method !== "POST") return void res.writeHead(405).end();
    const msg = req.body;
    if (!msg || typeof msg.method !== "string")
      return json(res, 400, rpcError(null, -32600, "Invalid request"));
    if (msg.id === undefined) return void res.writeHead(202).end();
    const params = (msg.params ?? {}) as Record<string, unknown>;
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    const version = meta["io.modelcontextprotocol/protocolVersion"];
    if (typeof version !== "string") {
      // A legacy request to a modern-only server.
      return json(
        res,
        400,
        rpcError(msg.id, -32022, "Unsupported protocol version", { supported: [MODERN] }),
      );
    }
    if (req.headers["mcp-protocol-version"] !== version || req.headers["mcp-method"] !== msg.method) {
      return json(res, 400, rpcError(msg.id, -32020, "Header mismatch"));
    }
    if (msg.method === "server/discover") return json(res, 200, result(msg.id, DISCOVER_RESULT));
    const answer = this.#answer(msg, true);
    if (!answer) return json(res, 404, rpcError(msg.id, -32601, "Method not found"));
    json(res, 200, answer);
  }

  #legacy(req: SeenRequest, res: ServerResponse): void {
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string" && !this.#sessions.has(sid)) {
      return json(res, 404, rpcError(null, -32001, "Session not found"));
    }
    if (req.method === "DELETE") {
      if (typeof sid === "string") this.#sessions.delete(sid);
      return void res.writeHead(200).end();
    }
    if (req.method === "GET") {
      if (typeof sid !== "string") return json(res, 400, rpcError(null, -32000, "Session required"));
      sse(res, [], { keepOpen: true });
      this.streams.add(res);
      res.on("close", () => this.streams.delete(res));
      return;
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    const msg = req.body;
    if (!msg) return json(res, 400, rpcError(null, -32700, "Parse error"));
    if (msg.method === "initialize") {
      const id = `session-${++this.#nextSession}-abcdef`;
      this.#sessions.add(id);
      return json(
        res,
        200,
        result(msg.id, {
          protocolVersion: LEGACY,
          capabilities: { tools: {} },
          serverInfo: { name: "scripted-http-legacy", version: "1.0.0" },
        }),
        { "mcp-session-id": id },
      );
    }
    if (typeof sid !== "string")
      return json(res, 400, rpcError(msg.id ?? null, -32000, "Bad Request: No valid session ID provided"));
    if (msg.id === undefined || !("method" in msg)) return void res.writeHead(202).end();
    const answer = this.#answer(msg, false);
    if (!answer) return json(res, 200, rpcError(msg.id, -32601, "Method not found"));
    json(res, 200, answer);
  }

  /** Sends a message on every open standalone stream (legacy). */
  push(message: Record<string, unknown>, id?: string): void {
    for (const s of this.streams) s.write(sseFrame({ id, data: message }));
  }
}

export async function startScripted(opts: ScriptedOptions = {}, port = 0): Promise<ScriptedHttpServer> {
  return new ScriptedHttpServer(opts).start(port);
}
