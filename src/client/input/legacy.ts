/**
 * Legacy era: server requests (`sampling/createMessage`, `elicitation/create`, `roots/list`)
 * answered by the handler's callbacks. Each runs beside the connection under its
 * `handlerTimeout` (then answered `-32603`); at most `maxServerRequests` run at once (one more is
 * answered `-32000`, busy); the server's `notifications/cancelled` aborts one (no answer is sent);
 * one tied to a call in flight pauses that call's deadline while it runs.
 */
import { NO_REPLY, type ServerRequestInfo } from "../../connection/types.js";
import { isObject, type JsonObject } from "../../shared/guards.js";
import {
  ErrorCodes,
  type JsonRpcErrorObject,
  type JsonRpcRequest,
  type RequestId,
} from "../../shared/jsonrpc.js";
import { describe, runCallback } from "./invoke.js";
import type { InputContext, InputRefusal } from "./options.js";
import { checkAnswer, isRefusal, type Prepared, prepareInput } from "./safety.js";
import type { InputScope } from "./scope.js";

/** JSON-RPC "server error" range code the client answers when it is too busy. */
export const BUSY_CODE = -32000;

/** Why a callback was aborted, as `ctx.signal.reason`. */
export class InputCancelledError extends Error {
  override readonly name = "AbortError";
}

export class LegacyDispatcher {
  readonly #svc: InputScope;
  readonly #running = new Map<RequestId, AbortController>();

  constructor(svc: InputScope) {
    this.#svc = svc;
  }

  get running(): number {
    return this.#running.size;
  }

  async handle(m: JsonRpcRequest, info: ServerRequestInfo): Promise<JsonObject> {
    const svc = this.#svc;
    const o = svc.options;
    const p = prepareInput(o, m.method, m.params);
    if (isRefusal(p)) {
      if (p.reason !== "unknown_input_method") {
        svc.deps.warn(`refused ${m.method} from server "${svc.deps.serverId}" (${p.reason})`);
      }
      throw rpc(p.code, p.message);
    }
    if (p.kind === "sampling" && info.callsInFlight === 0 && !o.sampling.allowIdle) {
      svc.deps.warn(`refused sampling from server "${svc.deps.serverId}": no request in flight`);
      throw rpc(o.sampling.rejectionCode, "Sampling refused: the client has no request in flight");
    }
    if (this.#running.size >= o.maxServerRequests) {
      throw rpc(BUSY_CODE, "Client busy: too many server requests in progress");
    }
    if (this.#running.has(m.id)) throw rpc(ErrorCodes.invalidRequest, "Duplicate request id");
    if (!svc.takeBudget(1)) {
      svc.deps.warn(`refused ${m.method} from server "${svc.deps.serverId}": over the input request budget`);
      throw rpc(p.kind === "sampling" ? o.sampling.rejectionCode : BUSY_CODE, "Too many input requests");
    }
    const controller = new AbortController();
    this.#running.set(m.id, controller);
    const resume = info.relatedRequestId === null ? undefined : svc.deps.pauseDeadline(info.relatedRequestId);
    try {
      const ctx = svc.context(
        "legacy",
        info.relatedContext,
        info.relatedRequestId,
        controller.signal,
        p.extra,
      );
      const outcome = await runCallback(() => call(svc, p, ctx), controller, o.handlerTimeout[p.kind]);
      if (outcome.status === "timeout") {
        svc.deps.warn(`the ${p.kind} callback timed out (server "${svc.deps.serverId}")`);
        throw rpc(ErrorCodes.internalError, "Client handler timed out");
      }
      // The server cancelled it, or the connection is gone: nobody is waiting for an answer.
      if (outcome.status === "aborted") throw NO_REPLY;
      if (outcome.status === "threw") {
        svc.deps.warn(`the ${p.kind} callback threw: ${describe(outcome.error)}`);
        throw rpc(ErrorCodes.internalError, "Internal error");
      }
      const refused = asInputRefusal(outcome.value);
      if (refused) throw refused.error;
      const checked = checkAnswer(p, outcome.value);
      if (isRefusal(checked)) {
        svc.deps.warn(`the ${p.kind} callback's answer was refused (${checked.reason})`);
        throw rpc(checked.code, checked.message);
      }
      if (checked.dropped) {
        svc.deps.warn(`${checked.dropped} root(s) left out: only local file:// URIs are sent`);
      }
      return checked.result;
    } finally {
      resume?.();
      this.#running.delete(m.id);
    }
  }

  cancel(id: RequestId): void {
    this.#running.get(id)?.abort(new InputCancelledError("the server cancelled the request"));
  }

  abortAll(): void {
    for (const c of this.#running.values()) c.abort(new InputCancelledError("the connection was lost"));
  }
}

/** Calls the callback for `p` as a method of the handler (a class instance keeps its `this`). */
export function call(svc: InputScope, p: Prepared, ctx: InputContext): unknown {
  const h = svc.options.handler;
  switch (p.kind) {
    case "sampling":
      return h.sampling!(p.params, ctx);
    case "elicitation":
      return h.elicitation!(p.params, ctx);
    case "roots":
      return h.listRoots!(ctx);
  }
}

/** A callback's `{ error: { code, message } }`, checked, or undefined when the value is not one. */
export function asInputRefusal(v: unknown): { error: JsonRpcErrorObject } | undefined {
  if (!isObject(v) || !isObject(v.error) || Object.keys(v).length !== 1) return undefined;
  const e = (v as unknown as InputRefusal).error;
  if (!Number.isSafeInteger(e.code) || typeof e.message !== "string") return undefined;
  return { error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } };
}

function rpc(code: number, message: string): JsonRpcErrorObject {
  return { code, message };
}
