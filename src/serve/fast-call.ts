/**
 * The fast path for the hot request, `tools/call`: the frame parsed once, answered by the very
 * handler the SDK server would run (so the caller's view, policy, approval, audit and every
 * client-side limit apply the same), and the response frame written directly, without the SDK's
 * per-message schema checks, its Web Request/Response round or its per-request server. What the
 * call sends its host on the way (progress, log entries, a 2025 host's questions) goes through
 * the transport's `HostLink` (fast-host.ts). Only an input round's retry (`inputResponses`,
 * `requestState`), a task-augmented call or a frame the SDK's schema would refuse take the SDK
 * path, unchanged.
 */
import { fulfil, type HostLink, isInputRequired } from "./fast-host.js";
import { keptHandler } from "./handlers.js";
import type { SdkContext, SdkServer } from "./sdk.js";

export type Era = "modern" | "legacy";
type Handler = (request: { params?: Record<string, unknown> }, ctx: SdkContext) => Promise<unknown>;

/** A JSON-RPC `tools/call` request the fast path may answer. */
export interface HotCall {
  id: string | number;
  params: Record<string, unknown>;
}

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: string | number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const PARAM_KEYS = new Set(["name", "arguments", "_meta"]);
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/**
 * The request when it is a `tools/call` the fast path may answer (well formed, as the SDK's
 * schema would accept it, with nothing the SDK must handle), else null: the SDK path then
 * answers it, errors included.
 */
export function hotCall(body: unknown): HotCall | null {
  if (!isObject(body) || body.jsonrpc !== "2.0" || body.method !== "tools/call") return null;
  const id = body.id;
  if (typeof id !== "string" && !(typeof id === "number" && Number.isSafeInteger(id))) return null;
  const params = body.params;
  if (!isObject(params) || typeof params.name !== "string") return null;
  for (const key of Object.keys(params)) if (!PARAM_KEYS.has(key)) return null;
  if (params.arguments !== undefined && !isObject(params.arguments)) return null;
  const meta = params._meta;
  if (meta !== undefined && !isObject(meta)) return null;
  if (isObject(meta) && "progressToken" in meta) {
    const t = meta.progressToken;
    if (typeof t !== "string" && !(typeof t === "number" && Number.isInteger(t))) return null;
  }
  return { id, params };
}

/**
 * The envelope of a 2026-07-28 call (the SDK's classifier validates it), else null. A host that
 * declares the tasks extension may want a task back: the SDK path's handler makes it (task-*.ts).
 */
export function envelopeOf(call: HotCall): Record<string, unknown> | null {
  const meta = call.params._meta;
  if (!isObject(meta) || typeof meta[PROTOCOL_VERSION] !== "string") return null;
  const caps = meta[CLIENT_CAPABILITIES];
  const ext = isObject(caps) && isObject(caps.extensions) ? caps.extensions : null;
  return ext !== null && TASKS_EXTENSION in ext ? null : meta;
}

/**
 * Whether two envelopes are the same for the SDK's classifier: equal but for the progress token,
 * which changes call after call (hotCall checked its type) while the rest stays. Compared in
 * place: a host sends the same envelope on every call, and a JSON key made per call cost more.
 */
export function sameEnvelope(a: Record<string, unknown>, b: Record<string, unknown> | null): boolean {
  if (b === null) return false;
  let n = 0;
  for (const key in a) {
    if (key === "progressToken") continue;
    if (!Object.hasOwn(b, key) || !same(a[key], b[key])) return false;
    n++;
  }
  for (const key in b) if (key !== "progressToken") n--;
  return n === 0;
}

/** Deep equality of two JSON values (as JSON.parse makes them). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const key in x) {
    if (!Object.hasOwn(y, key) || !same(x[key], y[key])) return false;
    n++;
  }
  for (const _ in y) n--;
  return n === 0;
}

/** The `tools/call` handler of a server, when it was built by the recording `Server`. */
export function toolCallHandler(server: SdkServer): Handler | undefined {
  return keptHandler(server, "tools/call") as Handler | undefined;
}

export interface FastAnswer {
  handler: Handler;
  /** The server whose handler it is (2026-07-28: told the request's client capabilities). */
  server: SdkServer;
  era: Era;
  /** The server's name and version, stamped on 2026-07-28 results as the SDK does. */
  serverInfo: { name: string; version: string };
  signal: AbortSignal;
  /** Where the call's progress, log entries and (2025) questions go; none: they are dropped. */
  host?: HostLink | undefined;
  /** 2025: the capabilities the host declared at initialize (what its questions may be). */
  caps?: Record<string, unknown> | undefined;
}

/** Calls the fast path has taken in this process (the tests tell the two paths apart by it). */
export const fastStats = { calls: 0 };

/** Runs the call through the server's own handler; the response frame (never rejects). */
export async function answerCall(call: HotCall, a: FastAnswer): Promise<JsonRpcResponse> {
  fastStats.calls++;
  const host = a.host;
  const ctxOf = (signal: AbortSignal, responses?: Record<string, unknown>, state?: string): SdkContext => ({
    mcpReq: {
      signal,
      requestState: () => state,
      ...(responses !== undefined ? { inputResponses: responses } : {}),
      notify: async (n) => host?.notify(n),
      ...(a.era === "modern" ? { envelope: call.params._meta as Record<string, unknown> } : {}),
    },
  });
  const request = { params: call.params };
  // 2026-07-28: the host's capabilities are this request's, as the SDK seeds its per-request
  // servers; the handler reads them before its first await, so calls in flight do not mix.
  if (a.era === "modern") {
    const caps = (call.params._meta as Record<string, unknown>)[CLIENT_CAPABILITIES];
    (a.server as unknown as { _clientCapabilities?: unknown })._clientCapabilities = isObject(caps)
      ? caps
      : {};
  }
  try {
    let result = (await a.handler(request, ctxOf(a.signal))) as Record<string, unknown>;
    // 2026-07-28: an input round is a result like any other. 2025: the host is asked here.
    if (a.era === "legacy" && isInputRequired(result)) {
      if (!host) throw new Error("no way to ask the host");
      result = (await fulfil(result, {
        again: (responses, state) => a.handler(request, ctxOf(a.signal, responses, state)),
        release: (state) => {
          // Only a parked upstream request is waiting (server-factory.ts's "parked:" state); an
          // approval's state is a digest, with nothing upstream yet.
          if (!state?.startsWith("parked:")) return;
          const gone = new AbortController();
          gone.abort(new Error("the host did not answer"));
          void a.handler(request, ctxOf(gone.signal, undefined, state)).catch(() => {});
        },
        host,
        caps: a.caps,
        signal: a.signal,
      })) as Record<string, unknown>;
    }
    return {
      jsonrpc: "2.0",
      id: call.id,
      result: a.era === "modern" ? encodeModern(result, a.serverInfo) : result,
    };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown; data?: unknown };
    let code = typeof e?.code === "number" && Number.isInteger(e.code) ? e.code : -32603;
    // As the SDK's 2026-07-28 codec: -32002 (resource not found) is -32602 on that era.
    if (a.era === "modern" && code === -32002) code = -32602;
    const message =
      typeof e?.code === "number" && typeof e.message === "string" ? e.message : "Internal error";
    return {
      jsonrpc: "2.0",
      id: call.id,
      error: {
        code,
        message,
        ...(e?.data !== undefined && typeof e.code === "number" ? { data: e.data } : {}),
      },
    };
  }
}

/**
 * The SDK's 2026-07-28 result encoding for `tools/call`: `resultType`, then `serverInfo` in `_meta`.
 * One copy of the handler's result, completed in place (not one copy per added key).
 */
function encodeModern(result: Record<string, unknown>, serverInfo: { name: string; version: string }) {
  const out = { ...result };
  const caps = out.capabilities;
  if (isObject(caps) && "tasks" in caps) {
    const { tasks: _t, ...rest } = caps;
    out.capabilities = rest;
  }
  if (out.resultType === undefined) out.resultType = "complete";
  const meta = out._meta;
  if (meta === undefined) out._meta = { [SERVER_INFO]: serverInfo };
  else if (isObject(meta) && meta[SERVER_INFO] === undefined)
    out._meta = { ...meta, [SERVER_INFO]: serverInfo };
  return out;
}
