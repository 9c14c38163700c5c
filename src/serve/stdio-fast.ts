/**
 * serve's stdio fast path: the SDK's own stdio transport, but each line is parsed once here and a
 * `tools/call` that qualifies (fast-call.ts) is answered by the connection's server's own handler
 * and written straight out, without the SDK's schema check of the frame, its dispatch and its
 * per-request context. What such a call sends its host (progress, log entries, a 2025 host's
 * questions) is written on the same stream, and the host's answers to those questions are taken
 * here (their ids are this file's own strings). Every other line goes to the SDK unchanged (in
 * order), so initialization, era pinning, lists, input-round retries and errors stay the SDK's. A
 * line that is not JSON is answered with a JSON-RPC parse error (the SDK drops it without a word).
 */
import {
  answerCall,
  type Era,
  envelopeOf,
  type HotCall,
  hotCall,
  sameEnvelope,
  toolCallHandler,
} from "./fast-call.js";
import { type HostLink, Legs } from "./fast-host.js";
import { infoOf } from "./handlers.js";
import type { Sdk, SdkServer, StdioWire } from "./sdk.js";

/** As the SDK's stdio transport: a longer line is its to refuse (it closes the connection). */
const MAX_LINE = 10 * 1024 * 1024;
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const PARSE_ERROR = `${JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } })}\n`;
const BAD_ID = `${JSON.stringify({
  jsonrpc: "2.0",
  id: null,
  error: { code: -32600, message: "Invalid Request: an id must be a string or an integer" },
})}\n`;

export interface FastWire extends StdioWire {
  /** The server serving this connection now (set by serve's factory, cleared when it closes). */
  server: SdkServer | null;
}

type WireClass = new () => StdioWire & {
  _ondata: (chunk: Buffer) => void;
  send(message: unknown, options?: unknown): Promise<void>;
  _stdout: NodeJS.WritableStream;
  _closed: boolean;
};

const validId = (id: unknown) =>
  typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id));

/** A stdio wire transport for `serveStdio({ transport })` with the fast path in front. */
export function fastStdioWire(sdk: Sdk, Base: new () => StdioWire): FastWire {
  class Wire extends (Base as WireClass) {
    server: SdkServer | null = null;
    #era: Era | null = null;
    #rest: Buffer | undefined;
    /** The last envelope the SDK's classifier found valid (a host sends the same one each call). */
    #valid: Record<string, unknown> | null = null;
    readonly #fast = new Map<string | number, AbortController>();
    readonly #legs = new Legs();
    readonly #host: HostLink = {
      notify: (n) => this.#write(`${JSON.stringify({ jsonrpc: "2.0", ...n })}\n`),
      request: (method, params, signal) =>
        this.#legs.send({ method, params }, (m) => this.#write(`${JSON.stringify(m)}\n`), signal),
    };

    constructor() {
      super();
      const toSdk = this._ondata;
      this._ondata = (chunk: Buffer) => this.#data(chunk, toSdk);
    }

    #data(chunk: Buffer, toSdk: (chunk: Buffer) => void): void {
      const buf = this.#rest ? Buffer.concat([this.#rest, chunk]) : chunk;
      this.#rest = undefined;
      let start = 0;
      let sdkFrom = 0;
      for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
        const taken = this.#line(buf.toString("utf8", start, nl));
        if (taken) {
          // What came before goes to the SDK first, so messages keep their order.
          if (sdkFrom < start) toSdk(buf.subarray(sdkFrom, start));
          sdkFrom = nl + 1;
        }
        start = nl + 1;
      }
      if (start < buf.length && buf.length - start <= MAX_LINE) this.#rest = buf.subarray(start);
      const end = this.#rest ? start : buf.length;
      if (sdkFrom < end) toSdk(buf.subarray(sdkFrom, end));
    }

    /** True when this line was dealt with here; false: the SDK's. */
    #line(text: string): boolean {
      const line = text.endsWith("\r") ? text.slice(0, -1) : text;
      if (line.trim() === "") return false;
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        this.#write(PARSE_ERROR);
        return true;
      }
      const m = msg as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
      // A request whose id no answer could carry (null, a fraction, an object): the SDK would
      // drop it without a word; JSON-RPC answers it with an invalid-request error.
      if (typeof m?.method === "string" && m.id !== undefined && !validId(m.id)) {
        this.#write(BAD_ID);
        return true;
      }
      // The host's answer to a question a fast call put to it.
      if (m?.method === undefined && this.#legs.settle(m as { id?: unknown })) return true;
      const claims =
        typeof m?.params?._meta === "object" && m.params._meta !== null && PROTOCOL_VERSION in m.params._meta;
      // The era the SDK pins the connection to, from its first request (as its classifier does).
      if (this.#era === null && typeof m?.method === "string" && m.id !== undefined) {
        this.#era = claims ? "modern" : "legacy";
        return false;
      }
      if (m?.method === "notifications/cancelled") return this.#cancel(m.params);
      const call = hotCall(msg);
      if (!call || !this.server || this.#fast.has(call.id)) return false;
      if (claims) {
        if (this.#era !== "modern" || !envelopeOf(call)) return false;
        // The same envelope call after call: checked by the SDK's classifier once (see http-fast.ts).
        const meta = call.params._meta as Record<string, unknown>;
        if (!sameEnvelope(meta, this.#valid)) {
          const cls = sdk.classifyInboundRequest({ httpMethod: "POST", body: msg });
          if (cls.kind !== "modern" || cls.messageKind !== "request") return false;
          this.#valid = meta;
        }
      } else {
        if (this.#era !== "legacy" || this.server.getClientCapabilities() === undefined) return false;
      }
      return this.#run(call, this.server, this.#era);
    }

    #cancel(params: unknown): boolean {
      const id = (params as { requestId?: unknown } | undefined)?.requestId;
      const controller = typeof id === "string" || typeof id === "number" ? this.#fast.get(id) : undefined;
      if (!controller) return false;
      this.#fast.delete(id as string | number);
      controller.abort(new Error("cancelled by the client"));
      return true;
    }

    #run(call: HotCall, server: SdkServer, era: Era): boolean {
      const handler = toolCallHandler(server);
      if (!handler) return false;
      const controller = new AbortController();
      this.#fast.set(call.id, controller);
      void answerCall(call, {
        handler,
        server,
        era,
        serverInfo: infoOf(server),
        signal: controller.signal,
        host: this.#host,
        caps: era === "legacy" ? server.getClientCapabilities() : undefined,
      }).then((frame) => {
        if (this.#fast.get(call.id) === controller) this.#fast.delete(call.id);
        // A cancelled request is not answered (as on the SDK path).
        if (!controller.signal.aborted) this.#write(`${JSON.stringify(frame)}\n`);
      });
      return true;
    }

    /**
     * The first line of a turn of the event loop is written at once (a lone answer waits for
     * nothing); the lines after it in the same turn go out together when the turn ends: with many
     * calls in flight the answers come back together, and a pipe write (a system call that wakes
     * the host) per answer was a large part of serve's CPU per call. Flushed before the SDK
     * writes, so order holds.
     */
    #out: string[] = [];
    #turn = false;

    #write(text: string): void {
      if (this._closed) return;
      if (!this.#turn) {
        this.#turn = true;
        setImmediate(() => {
          this.#turn = false;
          this.#flush();
        });
        this._stdout.write(text);
        return;
      }
      this.#out.push(text);
    }

    #flush(): void {
      if (this.#out.length === 0) return;
      const text = this.#out.length === 1 ? this.#out[0]! : this.#out.join("");
      this.#out = [];
      if (!this._closed) this._stdout.write(text);
    }

    override send(message: unknown, options?: unknown): Promise<void> {
      this.#flush();
      return super.send(message, options);
    }

    override async close(): Promise<void> {
      for (const c of this.#fast.values()) c.abort(new Error("the connection closed"));
      this.#fast.clear();
      this.#legs.close();
      this.#flush();
      return super.close();
    }
  }
  return new Wire();
}
