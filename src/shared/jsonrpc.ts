/** JSON-RPC 2.0 messages as MCP uses them, and the guards that sort what arrives. */

export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcErrorResponse {
  jsonrpc: "2.0";
  id?: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/**
 * What a parsed value is, for routing; `invalid` when it is not a JSON-RPC 2.0 message at all.
 * `malformed_response`: a response whose id can be read but whose body breaks the rules (both
 * `result` and `error`, a `result` that is not an object, an `error` without an integer `code`,
 * or neither): the request with that id fails with a `protocol` error at once, instead of
 * succeeding with half of it or waiting for its timeout.
 */
export type MessageClass = "request" | "notification" | "result" | "error" | "malformed_response" | "invalid";

function isId(v: unknown): v is RequestId {
  return typeof v === "string" || (typeof v === "number" && Number.isInteger(v));
}

function isParams(v: unknown): boolean {
  return v === undefined || (typeof v === "object" && v !== null && !Array.isArray(v));
}

/** Classifies one parsed value. Cheap: it looks at the keys routing needs and no further. */
export function classifyMessage(v: unknown): MessageClass {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return "invalid";
  const m = v as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return "invalid";
  if (typeof m.method === "string") {
    if (!isParams(m.params)) return "invalid";
    return m.id === undefined ? "notification" : isId(m.id) ? "request" : "invalid";
  }
  if (m.method !== undefined) return "invalid";
  const hasResult = m.result !== undefined;
  const hasError = m.error !== undefined;
  if (hasResult && !hasError) {
    if (!isId(m.id)) return "invalid";
    const r = m.result;
    return typeof r === "object" && r !== null && !Array.isArray(r) ? "result" : "malformed_response";
  }
  if (hasError && !hasResult) {
    const e = m.error as Record<string, unknown> | null;
    const wellFormed = typeof e === "object" && e !== null && Number.isInteger(e.code);
    if (m.id === undefined || m.id === null) return wellFormed ? "error" : "invalid";
    if (!isId(m.id)) return "invalid";
    return wellFormed ? "error" : "malformed_response";
  }
  // Both, or neither.
  return isId(m.id) ? "malformed_response" : "invalid";
}

/** Standard and MCP error codes the client reacts to. */
export const ErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** The legacy range's one defined code: resource not found (2025-11-25 and earlier). */
  resourceNotFound: -32002,
  headerMismatch: -32020,
  missingRequiredClientCapability: -32021,
  unsupportedProtocolVersion: -32022,
} as const;
