/**
 * serve's HTTP fast path: a `tools/call` answered from the node:http request and response, with
 * no Web Request/Response, no SDK transport and no per-request SDK server (fast-call.ts says
 * which calls qualify and how they are answered). The response's head waits for the first thing
 * to send: the result alone is `application/json`; a message for the host first (progress, a
 * log entry, a 2025 host's question) makes the response an event stream carrying those and then
 * the result, as Streamable HTTP allows. A 2025 host's answer to such a question is a POST of
 * its response to the session, taken here. Every check of http.ts (Host, Origin, token, sizes,
 * the session's owner) has passed before; anything this does not take goes on to the SDK.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CallerView } from "./callers.js";
import {
  answerCall,
  type Era,
  envelopeOf,
  type HotCall,
  hotCall,
  sameEnvelope,
  toolCallHandler,
} from "./fast-call.js";
import type { HostLink, Legs } from "./fast-host.js";
import { infoOf } from "./handlers.js";
import type { Sdk, SdkServer } from "./sdk.js";

/** A 2025 session as the fast path needs it. */
export interface FastSession {
  id: string;
  server: SdkServer;
  /** Fast-path calls in flight, by request id, for the host's `notifications/cancelled`. */
  fast: Map<string | number, AbortController>;
  /** Questions its fast calls put to the host, awaiting the host's answers. */
  legs: Legs;
  /** Busy from the call's start to its answer sent (the idle sweep leaves it alone). */
  busy(): () => void;
}

export class FastHttp {
  readonly #sdk: Sdk;
  readonly #build: (view: CallerView) => SdkServer;
  /** One server per caller view for 2026-07-28 calls: its handlers only, never connected. */
  readonly #servers = new WeakMap<CallerView, SdkServer>();
  /** The last request the SDK's classifier found valid: its standard headers and envelope. */
  #valid: { version: string; method: string; name: string; meta: Record<string, unknown> } | null = null;

  constructor(sdk: Sdk, build: (view: CallerView) => SdkServer) {
    this.#sdk = sdk;
    this.#build = build;
  }

  /** A 2026-07-28 request (no session): true when answered here. */
  modern(req: IncomingMessage, res: ServerResponse, body: unknown, view: CallerView): boolean {
    const call = hotCall(body);
    if (!call || !postsJson(req)) return false;
    if (!envelopeOf(call) || !this.#classified(req, call, body)) return false;
    let server = this.#servers.get(view);
    if (!server) {
      server = this.#build(view);
      this.#servers.set(view, server);
    }
    return this.#run(call, { req, res, server, era: "modern" });
  }

  /**
   * The SDK's classifier says this is a valid 2026-07-28 request (headers and envelope). A host
   * sends the same envelope and headers call after call: the last one found valid is remembered,
   * so its schema check runs once, not per call.
   */
  #classified(req: IncomingMessage, call: HotCall, body: unknown): boolean {
    const h = req.headers;
    // The SDK's entry checks the standard headers after its classifier (presence, and Mcp-Name
    // against the body); a request they do not plainly match is the SDK's to refuse.
    if (!plain(h["mcp-method"], "tools/call") || !plain(h["mcp-name"], call.params.name as string))
      return false;
    const version = h["mcp-protocol-version"];
    if (typeof version !== "string") return false;
    const method = h["mcp-method"] as string;
    const name = h["mcp-name"] as string;
    const meta = call.params._meta as Record<string, unknown>;
    const v = this.#valid;
    if (
      v !== null &&
      v.version === version &&
      v.method === method &&
      v.name === name &&
      sameEnvelope(meta, v.meta)
    )
      return true;
    const cls = this.#sdk.classifyInboundRequest({
      httpMethod: "POST",
      body,
      ...header(req, "mcp-protocol-version", "protocolVersionHeader"),
      ...header(req, "mcp-method", "mcpMethodHeader"),
      ...header(req, "mcp-name", "mcpNameHeader"),
    });
    if (cls.kind !== "modern" || cls.messageKind !== "request") return false;
    this.#valid = { version, method, name, meta };
    return true;
  }

  /** A request of a 2025 session its caller owns: true when answered here. */
  legacy(req: IncomingMessage, res: ServerResponse, body: unknown, session: FastSession): boolean {
    if (req.method !== "POST") return false;
    if (isCancel(body)) {
      const id = (body.params as { requestId?: unknown }).requestId as string | number;
      const controller = session.fast.get(id);
      if (!controller) return false;
      // Cancelled: no answer is sent for it (as the SDK does), the upstream call is cancelled.
      session.fast.delete(id);
      controller.abort(new Error("cancelled by the client"));
      res.writeHead(202).end();
      return true;
    }
    // The host's answer to a question a fast call put to it (its ids are fast-host.ts's own).
    if (isResponse(body) && session.legs.settle(body)) {
      res.writeHead(202).end();
      return true;
    }
    const call = hotCall(body);
    if (!call || !postsJson(req)) return false;
    const version = req.headers["mcp-protocol-version"];
    if (version !== undefined && !this.#sdk.SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
      return false;
    const caps = session.server.getClientCapabilities();
    if (caps === undefined) return false;
    if (session.fast.has(call.id)) return false;
    const done = session.busy();
    return this.#run(call, {
      req,
      res,
      server: session.server,
      era: "legacy",
      sid: session.id,
      track: session.fast,
      done,
      legs: session.legs,
      caps,
    });
  }

  #run(
    call: HotCall,
    o: {
      req: IncomingMessage;
      res: ServerResponse;
      server: SdkServer;
      era: Era;
      /** A 2025 session's id, sent back on the response. */
      sid?: string;
      track?: Map<string | number, AbortController>;
      done?: () => void;
      legs?: Legs;
      caps?: Record<string, unknown>;
    },
  ): boolean {
    const handler = toolCallHandler(o.server);
    if (!handler) {
      o.done?.();
      return false;
    }
    const controller = new AbortController();
    o.track?.set(call.id, controller);
    // The host gone before its answer cancels the call (the SDK path does the same).
    o.res.on("close", () => {
      if (!o.res.writableFinished) controller.abort(new Error("the client went away"));
    });
    const res = o.res;
    let streaming = false;
    // The first message for the host turns the answer into an event stream.
    const event = (message: Record<string, unknown>) => {
      if (res.destroyed || res.writableEnded) return;
      if (!streaming) {
        streaming = true;
        res.writeHead(
          200,
          withSession(
            [
              "content-type",
              "text/event-stream",
              "cache-control",
              "no-cache, no-transform",
              "connection",
              "keep-alive",
            ],
            o.sid,
          ),
        );
      }
      res.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
    };
    const legs = o.legs;
    const host: HostLink = {
      notify: (n) => event({ jsonrpc: "2.0", ...n }),
      request: (method, params, signal) =>
        legs ? legs.send({ method, params }, event, signal) : Promise.reject(new Error("no session")),
    };
    void answerCall(call, {
      handler,
      server: o.server,
      era: o.era,
      serverInfo: infoOf(o.server),
      signal: controller.signal,
      host,
      caps: o.caps,
    }).then((frame) => {
      o.done?.();
      if (o.track?.get(call.id) === controller) o.track.delete(call.id);
      if (controller.signal.aborted) {
        // Cancelled: no answer, as on the SDK path (an event stream that ends with no event).
        if (!res.headersSent && !res.destroyed)
          res.writeHead(200, withSession(["content-type", "text/event-stream"], o.sid)).end();
        else if (!res.writableEnded) res.end();
        return;
      }
      if (streaming) {
        event(frame as unknown as Record<string, unknown>);
        res.end();
        return;
      }
      const text = JSON.stringify(frame);
      // Headers as a flat list: node takes it as is (an object is copied and checked key by key).
      res.writeHead(
        200,
        withSession(
          ["content-type", "application/json", "content-length", String(Buffer.byteLength(text))],
          o.sid,
        ),
      );
      res.end(text);
    });
    return true;
  }
}

/** A response's headers (a flat list of names and values), with the 2025 session's id when there is one. */
function withSession(head: string[], sid: string | undefined): string[] {
  if (sid !== undefined) head.push("mcp-session-id", sid);
  return head;
}

/** A POST of JSON from a client that takes both answers the spec allows (else the SDK says no). */
function postsJson(req: IncomingMessage): boolean {
  const accept = req.headers.accept ?? "";
  const type = req.headers["content-type"] ?? "";
  return (
    req.method === "POST" &&
    accept.includes("application/json") &&
    accept.includes("text/event-stream") &&
    type.toLowerCase().startsWith("application/json")
  );
}

function header(req: IncomingMessage, name: string, key: string): Record<string, string> {
  const v = req.headers[name];
  return typeof v === "string" ? { [key]: v } : {};
}

function isCancel(body: unknown): body is { params: Record<string, unknown> } {
  const b = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: { requestId?: unknown } };
  return (
    typeof b === "object" &&
    b !== null &&
    b.jsonrpc === "2.0" &&
    b.method === "notifications/cancelled" &&
    b.id === undefined &&
    (typeof b.params?.requestId === "string" || typeof b.params?.requestId === "number")
  );
}

function isResponse(body: unknown): body is { id: unknown } {
  const b = body as { jsonrpc?: unknown; method?: unknown; id?: unknown };
  return (
    typeof b === "object" && b !== null && b.jsonrpc === "2.0" && b.method === undefined && b.id !== undefined
  );
}

/** A header carrying exactly this value (surrounding whitespace aside, as HTTP allows). */
function plain(v: string | string[] | undefined, want: string): boolean {
  return typeof v === "string" && v.trim() === want;
}
