/**
 * The fast path for the hot request, `tools/call`: the frame parsed once, answered by the very
 * handler the SDK server would run (so the caller's view, policy, approval, audit and every
 * client-side limit apply the same), and the response frame written directly, without the SDK's
 * per-message schema checks, its Web Request/Response round or its per-request server. Only
 * calls that cannot need the SDK's help take it: no progress token, no input round (no
 * `inputResponses` or `requestState`), a host that declared neither elicitation, sampling nor roots
 * (an upstream's question could be put to it) and asked for no log entries; everything else takes
 * the SDK path unchanged.
 */
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
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

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
  if (meta !== undefined && (!isObject(meta) || "progressToken" in meta)) return null;
  return { id, params };
}

/** A host that can be asked nothing: the handler never answers `input_required` to it. */
export function asksNothing(caps: Record<string, unknown> | undefined): boolean {
  return (
    caps === undefined ||
    (caps.elicitation === undefined && caps.sampling === undefined && caps.roots === undefined)
  );
}

/**
 * The envelope of a 2026-07-28 call (already validated by the SDK's classifier) when the fast
 * path can serve it: a host that can be asked nothing and wants no log entries on the response.
 */
export function plainEnvelope(call: HotCall): Record<string, unknown> | null {
  const meta = call.params._meta;
  if (!isObject(meta) || typeof meta[PROTOCOL_VERSION] !== "string" || LOG_LEVEL in meta) return null;
  const caps = meta[CLIENT_CAPABILITIES];
  if (caps !== undefined && (!isObject(caps) || !asksNothing(caps) || isObject(caps.extensions))) return null;
  return meta;
}

/** The `tools/call` handler of a server, when it was built by the recording `Server`. */
export function toolCallHandler(server: SdkServer): Handler | undefined {
  return keptHandler(server, "tools/call") as Handler | undefined;
}

export interface FastAnswer {
  handler: Handler;
  era: Era;
  /** The server's name and version, stamped on 2026-07-28 results as the SDK does. */
  serverInfo: { name: string; version: string };
  signal: AbortSignal;
}

/** Runs the call through the server's own handler; the response frame (never rejects). */
export async function answerCall(call: HotCall, a: FastAnswer): Promise<JsonRpcResponse> {
  const ctx: SdkContext = {
    mcpReq: {
      signal: a.signal,
      requestState: () => undefined,
      // Nothing is sent on the way: no progress token, no log level (see hotCall, plainEnvelope).
      notify: async () => {},
      ...(a.era === "modern" ? { envelope: call.params._meta as Record<string, unknown> } : {}),
    },
  };
  try {
    const result = (await a.handler({ params: call.params }, ctx)) as Record<string, unknown>;
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

/** The SDK's 2026-07-28 result encoding for `tools/call`: `resultType`, then `serverInfo` in `_meta`. */
function encodeModern(result: Record<string, unknown>, serverInfo: { name: string; version: string }) {
  let out = result;
  const caps = out.capabilities;
  if (isObject(caps) && "tasks" in caps) {
    const { tasks: _t, ...rest } = caps;
    out = { ...out, capabilities: rest };
  }
  if (out.resultType === undefined) out = { ...out, resultType: "complete" };
  const meta = out._meta;
  if (meta === undefined) return { ...out, _meta: { [SERVER_INFO]: serverInfo } };
  if (!isObject(meta) || meta[SERVER_INFO] !== undefined) return out;
  return { ...out, _meta: { ...meta, [SERVER_INFO]: serverInfo } };
}
