import {
  ErrorCodes,
  type JsonRpcErrorObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
} from "../shared/jsonrpc.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { Telemetry } from "../telemetry/events.js";
import { type ConnectionHooks, NO_REPLY, type ServerRequestInfo } from "./types.js";

/**
 * A request from the server (legacy): the client's hook answers it, with a result or an error
 * object; `NO_REPLY` answers nothing. Anything else thrown is an internal error, its text kept
 * from the server. `reply` is called only when there is something to send. Never rejects (the
 * connection does not wait for it): what was thrown is read only where a throw is caught.
 */
export async function answerServerRequest(
  hooks: ConnectionHooks,
  m: JsonRpcRequest,
  info: ServerRequestInfo,
  reply: (message: JsonRpcMessage) => void,
): Promise<void> {
  let message: JsonRpcMessage;
  try {
    const result = await hooks.serverRequest(m, info);
    message = { jsonrpc: "2.0", id: m.id, result };
  } catch (err) {
    if (err === NO_REPLY) return;
    message = { jsonrpc: "2.0", id: m.id, error: toRpcErrorObject(err) };
  }
  reply(message);
}

/** A request from a modern server: never answered (not even an error), but reported. */
export function dropServerRequest(hooks: ConnectionHooks, telemetry: Telemetry, m: JsonRpcRequest): void {
  const method = sanitizeText(typeof m.method === "string" ? m.method : "", { maxLength: 128 });
  hooks.warn(`dropped a request from a modern server, unanswered (${method})`);
  telemetry.emit("server_request:dropped", () => ({ method }));
}

function toRpcErrorObject(err: unknown): JsonRpcErrorObject {
  try {
    if (typeof err === "object" && err !== null && !(err instanceof Error)) {
      const e = err as Record<string, unknown>;
      const { code, message, data } = e;
      if (typeof code === "number" && Number.isInteger(code) && typeof message === "string") {
        return { code, message, ...(data !== undefined ? { data } : {}) };
      }
    }
  } catch {
    // A thrown object whose fields throw when read (a hostile proxy): an internal error.
  }
  return { code: ErrorCodes.internalError, message: "Internal error" };
}
