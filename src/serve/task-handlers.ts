/**
 * The host's side of tasks through `serve`: `tasks/get`, `tasks/cancel` (both eras),
 * `tasks/result` and `tasks/list` (2025-11-25). Each looks the id up among the caller's own
 * mapped tasks (task-map.ts): a foreign, unknown, expired or forged id is `-32602` "task not
 * found", and nothing reaches an upstream.
 */
import type { Sdk, SdkContext, SdkServer } from "./sdk.js";
import type { ServedTask, TaskMap } from "./task-map.js";
import { type HostEra, modernGet, RELATED_TASK, wireResult, wireTask } from "./task-wire.js";

const INVALID_PARAMS = -32602;

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

/** The host's era for this request: 2026-07-28 requests carry their envelope. */
export const eraOf = (ctx: SdkContext): HostEra => (ctx.mcpReq.envelope !== undefined ? "modern" : "legacy");

export function registerTaskHandlers(server: SdkServer, p: TaskPorts): void {
  const on = (method: string, handler: Handler) =>
    (server as unknown as WithSchemas).setRequestHandler(method, { params: ANY }, handler);
  const find = (params: Record<string, unknown>, ctx: SdkContext): ServedTask => {
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
    if (!p.tasks.cancel(e)) {
      throw new p.sdk.ProtocolError(INVALID_PARAMS, "Cannot cancel task: already in terminal status");
    }
    // Legacy answers with the task (now cancelled); the extension with an empty acknowledgment.
    return eraOf(ctx) === "modern" ? {} : wireTask(e, "legacy");
  });

  // 2025-11-25: the result, once the task ends (blocking until then), exactly as the call's own.
  on("tasks/result", async (params, ctx) => {
    const e = find(params, ctx);
    const o = await untilDone(e, ctx.mcpReq.signal);
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

/** The task's outcome, or the host giving up on its request. */
function untilDone(e: ServedTask, signal: AbortSignal) {
  if (e.outcome) return Promise.resolve(e.outcome);
  return new Promise<NonNullable<ServedTask["outcome"]>>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    void e.done.then((o) => {
      signal.removeEventListener("abort", onAbort);
      resolve(o);
    });
  });
}
