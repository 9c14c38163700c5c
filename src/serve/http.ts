/**
 * serve over Streamable HTTP at `/mcp`: the checks every request passes first (Host and Origin,
 * the caller's bearer token, header and body sizes), then the era: 2026-07-28 requests go to the
 * SDK's per-request handler, 2025 ones to a session (one SDK transport and server each, bounded
 * in number, closed when idle). Nothing here can start a process or add a server.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { allowedHostNames, checkRequestOrigin } from "../security/origin.js";
import { type Callers, type CallerView, EVERYONE } from "./callers.js";
import { Legs } from "./fast-host.js";
import type { Forwarder } from "./forward.js";
import { FastHttp } from "./http-fast.js";
import type { Sdk, SdkHttpHandler, SdkHttpTransport, SdkServer } from "./sdk.js";
import type { TaskListens } from "./task-listen.js";

export interface HttpLimits {
  /** Largest request body, in bytes. Default 1 MiB. */
  maxBodyBytes: number;
  /** Largest request head (all headers), in bytes. Default 16 KiB. */
  maxHeaderBytes: number;
  /** 2025-era sessions open at once; an initialize beyond is answered 503. Default 100. */
  maxSessions: number;
  /** A session without a request in flight for this many milliseconds is closed. Default 30 minutes. */
  idleTimeout: number;
}

export const HTTP_LIMITS: HttpLimits = {
  maxBodyBytes: 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxSessions: 100,
  idleTimeout: 30 * 60 * 1000,
};

export interface HttpFront {
  url: string;
  /** Legacy sessions open now. */
  sessions(): number;
  close(): Promise<void>;
}

interface Session {
  transport: SdkHttpTransport;
  server: SdkServer;
  principal: string | null;
  inFlight: number;
  lastSeen: number;
  /** Fast-path calls in flight, by request id, for the host's `notifications/cancelled`. */
  fast: Map<string | number, AbortController>;
  /** Questions its fast calls put to the host (http-fast.ts). */
  legs: Legs;
}

export interface HttpSetup {
  sdk: Sdk;
  host: string;
  port: number;
  callers: Callers | null;
  limits: HttpLimits;
  build: (view: CallerView) => SdkServer;
  forward: Forwarder;
  allowedHosts: readonly string[];
  /** 2026-07-28 listens for task status notifications (task-listen.ts). */
  taskListens?: TaskListens;
}

const json = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) => {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
};

export async function startHttp(s: HttpSetup): Promise<HttpFront> {
  const allowed = allowedHostNames(s.host, s.allowedHosts);
  const sessions = new Map<string, Session>();
  const modern: SdkHttpHandler = s.sdk.createMcpHandler(
    (ctx) => s.build((ctx.authInfo?.extra?.view as CallerView | undefined) ?? EVERYONE),
    { legacy: "reject", maxRequestBodySize: s.limits.maxBodyBytes },
  );
  s.forward.modern = modern;
  const fast = new FastHttp(s.sdk, s.build);

  const closeSession = (sid: string) => {
    const session = sessions.get(sid);
    if (!session) return;
    sessions.delete(sid);
    s.forward.live.delete(session.server);
    session.legs.close();
    void session.transport.close().catch(() => {});
    void session.server.close().catch(() => {});
  };

  const legacy = async (
    request: Request,
    body: unknown,
    view: CallerView,
    release: Array<() => void>,
  ): Promise<Response> => {
    const sid = request.headers.get("mcp-session-id");
    if (sid) {
      const session = sessions.get(sid);
      // Another caller's session is as unknown as a session that never was.
      if (!session || session.principal !== view.principal) {
        return Response.json(
          { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
          { status: 404 },
        );
      }
      session.lastSeen = Date.now();
      // A GET is the standing stream for server messages: holding it open is not activity (a
      // host gone without closing its socket would keep its session forever).
      if (request.method === "GET") return session.transport.handleRequest(request);
      // Busy until its response has been sent (a streamed answer outlives handleRequest).
      session.inFlight++;
      release.push(() => {
        session.inFlight--;
        session.lastSeen = Date.now();
      });
      return session.transport.handleRequest(request, body === undefined ? undefined : { parsedBody: body });
    }
    if (request.method !== "POST" || !s.sdk.isInitializeRequest(body)) {
      return Response.json(
        {
          jsonrpc: "2.0",
          error: { code: -32000, message: "Bad Request: No valid session ID provided" },
          id: null,
        },
        { status: 400 },
      );
    }
    if (sessions.size >= s.limits.maxSessions) {
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32000, message: "Too many sessions" }, id: null },
        { status: 503, headers: { "retry-after": "5" } },
      );
    }
    const server = s.build(view);
    const transport = new s.sdk.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id: string) => {
        sessions.set(id, {
          transport,
          server,
          principal: view.principal,
          inFlight: 0,
          lastSeen: Date.now(),
          fast: new Map(),
          legs: new Legs(),
        });
        s.forward.live.add(server);
      },
      onsessionclosed: (id: string) => closeSession(id),
    });
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  };

  /** A hot call answered without the SDK (http-fast.ts); false: the SDK path answers. */
  const fastPath = (req: IncomingMessage, res: ServerResponse, body: unknown, view: CallerView): boolean => {
    const sid = req.headers["mcp-session-id"];
    if (sid === undefined) return fast.modern(req, res, body, view);
    const session = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (!session || session.principal !== view.principal) return false;
    session.lastSeen = Date.now();
    return fast.legacy(req, res, body, {
      id: sid as string,
      server: session.server,
      fast: session.fast,
      legs: session.legs,
      busy: () => {
        session.inFlight++;
        return () => {
          session.inFlight--;
          session.lastSeen = Date.now();
        };
      },
    });
  };

  /** The last Host header found to name this server: a host sends the same one on every request. */
  let goodHost: string | undefined;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if ((query === -1 ? url : url.slice(0, query)) !== "/mcp")
      return json(res, 404, "Not found: the MCP endpoint is /mcp");
    const h = req.headers;
    if (h.origin !== undefined || h.host === undefined || h.host !== goodHost) {
      const origin = checkRequestOrigin({ host: h.host, origin: h.origin }, allowed, port);
      if (origin !== "ok")
        return json(res, 403, `Forbidden: ${origin === "host" ? "Host" : "Origin"} not allowed`);
      if (h.origin === undefined) goodHost = h.host;
    }
    let view = EVERYONE;
    if (s.callers) {
      const found = s.callers.find(req.headers.authorization);
      if (!found) return json(res, 401, "Unauthorized", { "www-authenticate": 'Bearer realm="conduit-mcp"' });
      view = found;
    }
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > s.limits.maxBodyBytes) return json(res, 413, "Payload too large", { connection: "close" });
    const raw = await readBody(req, s.limits.maxBodyBytes);
    if (raw === "too_large") return json(res, 413, "Payload too large", { connection: "close" });
    let body: unknown;
    if (raw && raw.length > 0) {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return json(res, 400, "Parse error");
      }
    }
    if (fastPath(req, res, body, view)) return;
    const controller = new AbortController();
    // Only a client gone before the answer was sent aborts the request (an abort costs errors made).
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) {
      if (Array.isArray(v)) for (const x of v) headers.append(k, x);
      else if (v !== undefined) headers.set(k, v);
    }
    const request = new Request(`http://${s.host.includes(":") ? `[${s.host}]` : s.host}/mcp`, {
      method: req.method ?? "GET",
      headers,
      ...(raw && raw.length > 0 ? { body: raw } : {}),
      signal: controller.signal,
    });
    const isLegacy = request.headers.has("mcp-session-id") || (await s.sdk.isLegacyRequest(request, body));
    const release: Array<() => void> = [];
    try {
      let response = isLegacy
        ? await legacy(request, body, view, release)
        : await modern.fetch(request, {
            ...(body !== undefined ? { parsedBody: body } : {}),
            authInfo: { token: "", clientId: view.principal ?? "", scopes: [], extra: { view } },
          });
      // A listen for task ids: the SDK validated it and opened its stream; serve's takes its place.
      if (!isLegacy && s.taskListens?.wants(body))
        response = await s.taskListens.serve(
          body as Record<string, unknown>,
          response,
          view,
          controller.signal,
        );
      await send(res, response);
    } finally {
      for (const r of release) r();
    }
  };

  const http: Server = createServer(
    { maxHeaderSize: s.limits.maxHeaderBytes, requestTimeout: 0 },
    (req, res) => {
      handle(req, res).catch(() => json(res, 500, "Internal error"));
    },
  );
  // Slow or half-open clients must not hold sockets forever.
  http.headersTimeout = 10_000;
  http.keepAliveTimeout = 5_000;
  const sweep = setInterval(
    () => {
      const now = Date.now();
      for (const [sid, session] of sessions) {
        if (session.inFlight === 0 && now - session.lastSeen >= s.limits.idleTimeout) closeSession(sid);
      }
    },
    Math.max(10, Math.min(s.limits.idleTimeout / 2, 30_000)),
  );
  sweep.unref();
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(s.port, s.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const shown = s.host.includes(":") ? `[${s.host}]` : s.host;
  return {
    url: `http://${shown}:${port}/mcp`,
    sessions: () => sessions.size,
    async close() {
      clearInterval(sweep);
      for (const sid of [...sessions.keys()]) closeSession(sid);
      s.forward.modern = null;
      await modern.close().catch(() => {});
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}

/** The body, read with data events (an async iterator per request costs more on the hot path). */
function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined | "too_large"> {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "DELETE")
    return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > max) {
        // Read no more of it: the 413 closes the connection.
        req.off("data", onData);
        req.pause();
        settled = true;
        resolve("too_large");
        return;
      }
      chunks.push(c);
    };
    req.on("data", onData);
    req.once("end", () => {
      settled = true;
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    });
    req.once("error", reject);
    // Gone before the end: nothing to answer. Every request closes, so the Error (its stack
    // captured) is made only for one that went away unread, not once per request.
    req.once("close", () => {
      if (!settled) reject(new Error("the client went away"));
    });
  });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const out: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    out[k] = v;
  });
  res.writeHead(response.status, out);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {
    // The client went away.
  }
  res.end();
}
