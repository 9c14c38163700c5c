/**
 * The host's side of tasks through `serve`: `tasks/get`, `tasks/cancel` (both eras),
 * `tasks/result` and `tasks/list` (2025-11-25). Each looks the id up among the caller's own
 * mapped tasks (task-map.ts): a foreign, unknown, expired or forged id is `-32602` "task not
 * found", and nothing reaches an upstream.
 */

import { isObject } from "../shared/guards.js";
import type { Sdk, SdkContext, SdkServer } from "./sdk.js";
import type { ServedTask, TaskMap } from "./task-map.js";
import { type HostEra, modernGet, RELATED_TASK, TASKS_EXTENSION, wireResult, wireTask } from "./task-wire.js";

const INVALID_PARAMS = -32602;
const MISSING_CAPABILITY = -32021;
/** JSON-RPC's implementation-defined server error range: MCP names no code for a rate limit. */
const RATE_LIMITED = -32000;

/** Any params: the handlers read them themselves (the SDK has no 2026-07-28 schema for `tasks/*`). */
const ANY = { "~standard": { version: 1, vendor: "conduit-mcp", validate: (value: unknown) => ({ value }) } };

type Handler = (params: Record<string, unknown>, ctx: SdkContext) => Promise<unknown>;
interface WithSchemas {
  setRequestHandler(method: string, schemas: { params: unknown }, handler: Handler): void;
}

export interface TaskPorts {
  sdk: Sdk;
  tasks: TaskMap;
  /** Who asks (the key tasks are bound to), from the request. */
  ownerOf(ctx: SdkContext): string;
}

/** Whether a 2026-07-28 request declares the tasks extension in its client capabilities. */
export function declaresTasks(ctx: SdkContext): boolean {
  const caps = ctx.mcpReq.envelope?.["io.modelcontextprotocol/clientCapabilities"];
  const ext = isObject(caps) && isObject(caps.extensions) ? caps.extensions : null;
  return ext !== null && isObject(ext[TASKS_EXTENSION]);
}

/** The host's era for this request: 2026-07-28 requests carry their envelope. */
export const eraOf = (ctx: SdkContext): HostEra => (ctx.mcpReq.envelope !== undefined ? "modern" : "legacy");

export function registerTaskHandlers(server: SdkServer, p: TaskPorts): void {
  // Every tasks/* request spends the caller's token first: over the limit, refused before any
  // lookup (task-rate.ts), and nothing goes upstream.
  const on = (method: string, handler: Handler) =>
    (server as unknown as WithSchemas).setRequestHandler(method, { params: ANY }, (params, ctx) => {
      if (!p.tasks.rate.take(p.ownerOf(ctx))) {
        throw new p.sdk.ProtocolError(RATE_LIMITED, "Rate limit exceeded for tasks requests; retry later");
      }
      return handler(params, ctx);
    });
  const find = (params: Record<string, unknown>, ctx: SdkContext): ServedTask => {
    // A 2026-07-28 request without the extension has no task surface (SEP-2663), whatever the id.
    if (eraOf(ctx) === "modern" && !declaresTasks(ctx)) {
      const data = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };
      throw new p.sdk.ProtocolError(MISSING_CAPABILITY, "Missing required client capability", data);
    }
    const e = p.tasks.find(p.ownerOf(ctx), params?.taskId);
    if (!e) throw new p.sdk.ProtocolError(INVALID_PARAMS, "Failed to retrieve task: Task not found");
    return e;
  };

  on("tasks/get", async (params, ctx) => {
    const e = find(params, ctx);
    return eraOf(ctx) === "modern" ? modernGet(e) : wireTask(e, "legacy");
  });

  on("tasks/cancel", async (params, ctx) => {
    const e = find(params, ctx);
    // The extension's cancel is idempotent: a finished task gets the same empty acknowledgment.
    if (eraOf(ctx) === "modern") {
      p.tasks.cancel(e);
      return {};
    }
    if (!p.tasks.cancel(e)) {
      throw new p.sdk.ProtocolError(INVALID_PARAMS, "Cannot cancel task: already in terminal status");
    }
    // Legacy answers with the task (now cancelled).
    return wireTask(e, "legacy");
  });

  // 2026-07-28: the host's answers to the task's `inputRequests`.
  on("tasks/update", async (params, ctx) => {
    const e = find(params, ctx);
    // The SDK lifts `inputResponses` out of a 2026-07-28 request's params into the context.
    e.input?.answer(ctx.mcpReq.inputResponses ?? params?.inputResponses);
    return {};
  });

  // 2025-11-25: the result, once the task ends (blocking until then), exactly as the call's own;
  // what the task asks meanwhile is put to the host as requests tied to this one.
  on("tasks/result", async (params, ctx) => {
    const e = find(params, ctx);
    const o = await untilDone(e, ctx);
    const related = { [RELATED_TASK]: { taskId: e.id } };
    if (o.kind === "result") {
      const r = wireResult(o.result);
      return { ...r, _meta: { ...(r._meta as Record<string, unknown> | undefined), ...related } };
    }
    if (o.kind === "failed") throw new p.sdk.ProtocolError(o.code, o.message);
    throw new p.sdk.ProtocolError(-32603, "The task was cancelled");
  });

  on("tasks/list", async (params, ctx) => {
    // Every live task of a caller fits one page (the cap bounds them): no cursor is ever issued.
    if (params?.cursor !== undefined) throw new p.sdk.ProtocolError(INVALID_PARAMS, "Invalid cursor");
    return { tasks: p.tasks.list(p.ownerOf(ctx)).map((e) => wireTask(e, "legacy")) };
  });
}

type Outcome = NonNullable<ServedTask["outcome"]>;
/** `ctx.mcpReq.send`: a request to the host tied to this one (sdk.ts's context type leaves it out). */
type Send = (r: { method: string; params: Record<string, unknown> }) => Promise<Record<string, unknown>>;

/** The task's outcome, asking the host what the task asks meanwhile; or the host giving up. */
async function untilDone(e: ServedTask, ctx: SdkContext): Promise<Outcome> {
  const signal = ctx.mcpReq.signal;
  const send = (ctx.mcpReq as { send?: Send }).send;
  for (;;) {
    if (e.outcome) return e.outcome;
    if (signal.aborted) throw signal.reason;
    const asked = e.input?.requests();
    if (asked && send) {
      for (const [key, q] of Object.entries(asked)) {
        const related = { "io.modelcontextprotocol/related-task": { taskId: e.id } };
        const params = { ...q.params, _meta: { ...(q.params._meta as object | undefined), ...related } };
        const answer = await send({ method: q.method, params }).catch((err: unknown) =>
          q.method === "elicitation/create"
            ? { action: "decline" }
            : { error: { code: -1, message: err instanceof Error ? err.message : "the host failed" } },
        );
        e.input?.answer({ [key]: answer });
      }
      continue;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
      const done = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      void e.done.then(done);
      void e.input?.next().then(done);
    });
  }
}
