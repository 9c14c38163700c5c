import { LOG_LEVELS } from "../client/types.js";
import type { JsonRpcMessage, RequestId } from "../shared/jsonrpc.js";
import { META, MODERN_VERSIONS } from "../shared/versions.js";
import type { InProcessPeer, InProcessSession } from "../transport/in-process.js";
import type { FakeServerState } from "./fake-server-state.js";
import type { FakeContext, FakeEra, FakeFault } from "./fake-types.js";

type Params = Record<string, unknown>;

/** An answer the session sends as a JSON-RPC error. */
class RpcError {
  constructor(
    readonly code: number,
    readonly message: string,
    readonly data?: unknown,
  ) {}
}

const LEGACY_VERSION = "2025-11-25";
const LEGACY_ACCEPTED = new Set(["2025-11-25", "2025-06-18", "2025-03-26"]);
const LIST_FILTER = {
  tools: "toolsListChanged",
  resources: "resourcesListChanged",
  prompts: "promptsListChanged",
} as const;

/**
 * One connection of a `FakeServer`: the era it settled on, the requests running (to cancel), its
 * listen streams (modern) and the server requests it is waiting on (legacy input).
 */
export class FakeSession implements InProcessSession {
  #era: FakeEra | undefined;
  #closed = false;
  #logLevel: string | undefined;
  readonly #running = new Map<RequestId, { controller: AbortController; call: { cancelled: boolean } }>();
  readonly #listens = new Map<RequestId, Params>();
  readonly #asked = new Map<RequestId, (answer: unknown) => void>();
  #nextAsk = 0;

  constructor(
    readonly server: FakeServerState,
    readonly peer: InProcessPeer,
    readonly onClose: () => void,
  ) {}

  receive(message: JsonRpcMessage): void {
    if (this.#closed) return;
    const m = message as {
      id?: RequestId;
      method?: string;
      params?: Params;
      result?: unknown;
      error?: unknown;
    };
    if (m.method === undefined) {
      // An answer to one of our input requests (legacy).
      const resolve = m.id === undefined ? undefined : this.#asked.get(m.id);
      if (resolve && m.id !== undefined) {
        this.#asked.delete(m.id);
        resolve("result" in m ? m.result : { error: m.error });
      }
      return;
    }
    const params = m.params ?? {};
    if (m.id === undefined) return this.#notification(m.method, params);
    void this.#request(m.id, m.method, params);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const r of this.#running.values()) r.controller.abort(new Error("connection closed"));
    this.#running.clear();
    this.onClose();
  }

  /** A list changed: legacy clients hear it at once, modern ones on the listens that asked. */
  listChanged(kind: "tools" | "resources" | "prompts"): void {
    const method = `notifications/${kind}/list_changed`;
    if (this.#era === "legacy") return this.#send({ jsonrpc: "2.0", method });
    for (const [id, filter] of this.#listens) {
      if (filter[LIST_FILTER[kind]] === true) {
        this.#send({ jsonrpc: "2.0", method, params: { _meta: { [META.subscriptionId]: id } } });
      }
    }
  }

  #send(message: JsonRpcMessage): void {
    if (!this.#closed) this.peer.send(message);
  }

  #notification(method: string, params: Params): void {
    this.server.notifications.push({ method, params });
    if (method === "notifications/cancelled") {
      const id = params.requestId as RequestId;
      this.#listens.delete(id);
      const running = this.#running.get(id);
      if (running) {
        running.call.cancelled = true;
        running.controller.abort(new Error("cancelled by the client"));
      }
    }
  }

  async #request(id: RequestId, method: string, params: Params): Promise<void> {
    const era = this.#eraOf(method);
    const call = { method, params, era, cancelled: false };
    this.server.calls.push(call);
    const controller = new AbortController();
    this.#running.set(id, { controller, call });
    try {
      const result = await this.#answer(id, method, params, era, controller.signal);
      if (result === undefined) return;
      if (!controller.signal.aborted) this.#send({ jsonrpc: "2.0", id, result });
    } catch (err) {
      if (controller.signal.aborted || this.#closed) return; // cancelled: no answer
      const e = err instanceof RpcError ? err : new RpcError(-32603, "Internal error");
      this.#send({
        jsonrpc: "2.0",
        id,
        error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) },
      });
    } finally {
      this.#running.delete(id);
    }
  }

  /** The era a request belongs to: pinned by the opening (`initialize` is legacy). */
  #eraOf(method: string): FakeEra {
    if (this.#era) return this.#era;
    if (method === "initialize") return "legacy";
    return this.server.eras.includes("modern") ? "modern" : "legacy";
  }

  /** The result to send, or undefined when nothing is sent (a hang that was cancelled, a close). */
  async #answer(
    id: RequestId,
    method: string,
    params: Params,
    era: FakeEra,
    signal: AbortSignal,
  ): Promise<Params | undefined> {
    const target = targetOf(method, params);
    const fault = this.server.takeFault(method, target);
    if (fault) {
      const done = await this.#applyFault(fault, signal, params, era);
      if (done !== undefined) return done;
    }
    if (method === "subscriptions/listen" && this.#era === "modern") {
      const filter = (params.notifications as Params | undefined) ?? {};
      this.#listens.set(id, filter);
      this.#send({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: filter, _meta: { [META.subscriptionId]: id } },
      });
      return new Promise<undefined>((resolve) => signal.addEventListener("abort", () => resolve(undefined)));
    }
    const ctx = this.#context(params, era, signal);
    const result = await this.#dispatch(method, params, ctx);
    return era === "modern" && this.#era === "modern" ? { resultType: "complete", ...result } : result;
  }

  /**
   * Applies a fault. Resolves with the result that ends the request, or undefined to go on to the
   * normal answer (after a delay, a list change, the legacy input answers); rejects with an
   * RpcError to answer an error, or with the signal's reason when the request is cancelled.
   */
  async #applyFault(
    fault: FakeFault,
    signal: AbortSignal,
    params: Params,
    era: FakeEra,
  ): Promise<Params | undefined> {
    if ("error" in fault) throw new RpcError(fault.error.code, fault.error.message, fault.error.data);
    if ("delay" in fault) {
      await sleep(fault.delay, signal);
      return undefined;
    }
    if ("hang" in fault) {
      await sleep(Number.POSITIVE_INFINITY, signal);
      return undefined;
    }
    if ("isError" in fault)
      return { content: [{ type: "text", text: fault.text ?? "scripted tool error" }], isError: true };
    if ("result" in fault) return fault.result;
    if ("listChanged" in fault) {
      this.listChanged(fault.listChanged);
      return undefined;
    }
    if ("close" in fault) {
      queueMicrotask(() => {
        this.peer.close();
        this.close();
      });
      await sleep(Number.POSITIVE_INFINITY, signal);
      return undefined;
    }
    if ("inputRequests" in fault) {
      if (era === "modern") {
        // The retry carries the answers: the handler runs with them.
        if (params.inputResponses !== undefined) return undefined;
        return {
          resultType: "input_required",
          inputRequests: fault.inputRequests,
          ...(fault.requestState === undefined ? {} : { requestState: fault.requestState }),
        };
      }
      // Legacy: ask the client, then run the handler with what it said.
      const answers: Params = {};
      for (const [key, req] of Object.entries(fault.inputRequests)) {
        answers[key] = await this.#ask(req.method, req.params, signal);
      }
      params.inputResponses = answers;
      return undefined;
    }
    return undefined;
  }

  #ask(method: string, params: Params | undefined, signal: AbortSignal): Promise<unknown> {
    const id = `fake-${++this.#nextAsk}`;
    return new Promise((resolve, reject) => {
      this.#asked.set(id, resolve);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      this.#send({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) });
    });
  }

  #context(params: Params, era: FakeEra, signal: AbortSignal): FakeContext {
    const meta = params._meta as Params | undefined;
    const token = meta?.progressToken as string | number | undefined;
    const wanted = era === "modern" ? (meta?.[META.logLevel] as string | undefined) : this.#logLevel;
    return {
      era,
      signal,
      meta,
      inputResponses: params.inputResponses as Params | undefined,
      progress: (progress, total, message) => {
        if (token === undefined) return;
        this.#send({
          jsonrpc: "2.0",
          method: "notifications/progress",
          params: {
            progressToken: token,
            progress,
            ...(total === undefined ? {} : { total }),
            ...(message === undefined ? {} : { message }),
          },
        });
      },
      log: (level, data, logger) => {
        const rank = (l: string | undefined) => LOG_LEVELS.indexOf(l as (typeof LOG_LEVELS)[number]);
        if (wanted !== undefined && rank(level) < rank(wanted)) return;
        this.#send({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level, data, ...(logger === undefined ? {} : { logger }) },
        });
      },
    };
  }

  async #dispatch(method: string, params: Params, ctx: FakeContext): Promise<Params> {
    const s = this.server;
    switch (method) {
      case "server/discover":
        if (!s.eras.includes("modern")) throw new RpcError(-32601, "Method not found");
        this.#era = "modern";
        return {
          supportedVersions: [...MODERN_VERSIONS],
          capabilities: this.#capabilities(),
          ...(s.instructions === undefined ? {} : { instructions: s.instructions }),
          _meta: { [META.serverInfo]: s.info },
        };
      case "initialize": {
        if (!s.eras.includes("legacy")) {
          throw new RpcError(-32022, "Unsupported protocol version", {
            supported: [...MODERN_VERSIONS],
            requested: params.protocolVersion,
          });
        }
        this.#era = "legacy";
        const asked = params.protocolVersion;
        return {
          protocolVersion: typeof asked === "string" && LEGACY_ACCEPTED.has(asked) ? asked : LEGACY_VERSION,
          capabilities: this.#capabilities(),
          serverInfo: s.info,
          ...(s.instructions === undefined ? {} : { instructions: s.instructions }),
        };
      }
      case "ping":
      case "resources/subscribe":
      case "resources/unsubscribe":
        return {};
      case "logging/setLevel":
        this.#logLevel = typeof params.level === "string" ? params.level : undefined;
        return {};
      case "tools/list":
        return { tools: [...s.tools.values()].map((t) => t.definition) };
      case "resources/list":
        return { resources: [...s.resources.values()].map((r) => r.definition) };
      case "resources/templates/list":
        return { resourceTemplates: [] };
      case "prompts/list":
        return { prompts: [...s.prompts.values()].map((p) => p.definition) };
      case "completion/complete":
        return { completion: { values: [] } };
      case "tools/call": {
        const tool = s.tools.get(params.name as string);
        if (!tool) throw new RpcError(-32602, `Unknown tool: ${String(params.name)}`);
        try {
          const out = await tool.handler((params.arguments as Params | undefined) ?? {}, ctx);
          return typeof out === "string" ? { content: [{ type: "text", text: out }] } : out;
        } catch (err) {
          // As the official servers do: a tool that throws is a tool error, told in the result.
          if (ctx.signal.aborted) throw err;
          const text = err instanceof Error ? err.message : String(err);
          return { content: [{ type: "text", text }], isError: true };
        }
      }
      case "resources/read": {
        const uri = params.uri as string;
        const resource = s.resources.get(uri);
        if (!resource)
          throw new RpcError(ctx.era === "legacy" ? -32002 : -32602, `Resource not found: ${String(uri)}`);
        const out = await resource.handler(uri, ctx);
        if (typeof out === "string") return { contents: [{ uri, text: out }] };
        if ("contents" in out) return out;
        return {
          contents: [
            {
              uri,
              ...(resource.definition.mimeType ? { mimeType: resource.definition.mimeType } : {}),
              ...out,
            },
          ],
        };
      }
      case "prompts/get": {
        const prompt = s.prompts.get(params.name as string);
        if (!prompt) throw new RpcError(-32602, `Unknown prompt: ${String(params.name)}`);
        const out = await prompt.handler((params.arguments as Record<string, string> | undefined) ?? {}, ctx);
        if (typeof out === "string")
          return { messages: [{ role: "user", content: { type: "text", text: out } }] };
        return out;
      }
      default:
        throw new RpcError(-32601, "Method not found");
    }
  }

  #capabilities(): Params {
    return {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    };
  }
}

/** What a fault may be scripted on besides the method: the tool, resource or prompt asked for. */
function targetOf(method: string, params: Params): string | undefined {
  if (method === "tools/call" || method === "prompts/get")
    return typeof params.name === "string" ? params.name : undefined;
  if (method === "resources/read") return typeof params.uri === "string" ? params.uri : undefined;
  return undefined;
}

/** Waits `ms` (Infinity: until aborted); rejects with the signal's reason when it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
    function done() {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
