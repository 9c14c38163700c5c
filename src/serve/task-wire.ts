/**
 * Tasks through `serve` on the wire: serve's wait for an upstream task (the client's public
 * `awaitTask`), and a mapped task as each era's host reads it (legacy 2025-11-25 `Task` with
 * `ttl` / `pollInterval`; the 2026-07-28 tasks extension's with `ttlMs` / `pollIntervalMs` and
 * the outcome inline). Only serve's own task id leaves, never the upstream's.
 */
import type { Client } from "../client/client.js";
import type { Task } from "../client/tasks.js";
import { McpClientError } from "../shared/errors.js";
import type { ToolResult } from "../shared/tool.js";
import type { NewTask, ServedTask, TaskOutcome } from "./task-map.js";

export type HostEra = "modern" | "legacy";

/** The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** Legacy: what ties a `tasks/result` response to its task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** How often a host is told to poll when the upstream said nothing. */
const POLL_DEFAULT_MS = 1_000;

/** serve's wait for one upstream task, through the client that made it. Never rejects. */
export function taskWait(client: Client, task: Task, assigns: Record<string, unknown>) {
  return async (signal: AbortSignal, deadlineMs: number, changed: () => void): Promise<TaskOutcome> => {
    try {
      // Every status the client reads upstream (a poll, or one a status notification woke).
      const result = await client.awaitTask(task, {
        timeout: deadlineMs,
        signal,
        assigns,
        onStatus: changed,
      });
      return { kind: "result", result };
    } catch (err) {
      return failure(err, signal);
    }
  };
}

function failure(err: unknown, signal: AbortSignal): TaskOutcome {
  if (signal.aborted) return { kind: "cancelled" };
  if (McpClientError.is(err, "unavailable") && err.reason === "task_cancelled") return { kind: "cancelled" };
  if (McpClientError.is(err, "protocol") && err.reason === "jsonrpc_error") {
    const code = (err.detail as { jsonrpc?: unknown } | undefined)?.jsonrpc;
    return {
      kind: "failed",
      code: typeof code === "number" && Number.isInteger(code) ? code : -32603,
      message: err.serverMessage(500) ?? "the upstream task failed",
      why: "protocol",
    };
  }
  if (McpClientError.is(err, "timeout")) {
    // The deadline passed: the client has cancelled the task upstream.
    return {
      kind: "failed",
      code: -32603,
      message: "the upstream task did not finish in time",
      why: "timeout",
    };
  }
  const why = McpClientError.is(err) ? err.kind : "error";
  return { kind: "failed", code: -32603, message: `the upstream task failed (${why})`, why };
}

/** The audit log's outcome of a task: `ok`, `tool_error`, `cancelled` or the error kind. */
export function outcomeKind(o: TaskOutcome): string {
  if (o.kind === "result") return o.result.isError ? "tool_error" : "ok";
  return o.kind === "cancelled" ? "cancelled" : o.why;
}

/** The status a host sees: serve's outcome once known, else `working` (serve is still waiting). */
function statusOf(e: ServedTask, era: HostEra): string {
  const o = e.outcome;
  // 2025-11-25: a tool result with `isError` is a failed task; the extension keeps it completed.
  if (o?.kind === "result") return era === "legacy" && o.result.isError ? "failed" : "completed";
  if (o) return o.kind === "failed" ? "failed" : "cancelled";
  // The upstream asked something the host must answer (task-input.ts).
  if (e.input?.requests()) return "input_required";
  // Still waiting (a task the upstream finished is one whose result serve is reading).
  return "working";
}

/** A mapped task's state, as the host's era spells it (no outcome). */
export function wireTask(e: ServedTask, era: HostEra): Record<string, unknown> {
  const t = e.task;
  const poll = t.pollIntervalMs ?? POLL_DEFAULT_MS;
  const ttl = Math.max(0, e.expiresAt - Date.parse(e.createdAt));
  const message = e.outcome === null ? t.statusMessage : null;
  return {
    taskId: e.id,
    status: statusOf(e, era),
    ...(message ? { statusMessage: message } : {}),
    createdAt: e.createdAt,
    lastUpdatedAt: t.lastUpdatedAt ?? e.createdAt,
    ...(era === "legacy" ? { ttl, pollInterval: poll } : { ttlMs: ttl, pollIntervalMs: poll }),
  };
}

/** What a host's task-augmented `tools/call` answers: the `CreateTaskResult` of its era. */
export function createResult(e: ServedTask, era: HostEra): Record<string, unknown> {
  if (era === "modern") return { resultType: "task", ...wireTask(e, era) };
  // The SDK checks a 2025 tools/call result as a CallToolResult whatever it is: an empty
  // `content` gets a CreateTaskResult through (results may carry more keys than their own).
  return { task: wireTask(e, era), content: [] };
}

/** A modern `tasks/get`: the task, with its result or error once it ended. */
export function modernGet(e: ServedTask): Record<string, unknown> {
  const o = e.outcome;
  const base = wireTask(e, "modern");
  if (o?.kind === "result") return { ...base, result: wireResult(o.result) };
  if (o?.kind === "failed") return { ...base, error: { code: o.code, message: o.message } };
  const asked = o === null ? e.input?.requests() : null;
  return asked ? { ...base, inputRequests: asked } : base;
}

/**
 * A tool result as the wire has it. An upstream's `related-task` meta is left out: it names the
 * upstream's own task id (a bearer token there), which never reaches a host.
 */
export function wireResult(r: ToolResult): Record<string, unknown> {
  let meta = r.meta;
  if (meta && RELATED_TASK in meta) {
    const { [RELATED_TASK]: _upstreamTask, ...rest } = meta;
    meta = Object.keys(rest).length > 0 ? rest : null;
  }
  return {
    ...r.extra,
    content: r.content,
    ...(r.structured !== null && r.structured !== undefined ? { structuredContent: r.structured } : {}),
    isError: r.isError,
    ...(meta ? { _meta: meta } : {}),
  };
}

/** A task of a call the upstream answered at once (a 2025 host asked for a task): already ended. */
export function finishedTask(owner: string, serverId: string, result: ToolResult): NewTask {
  const task: Task = {
    id: "",
    serverId,
    era: "legacy",
    status: "completed",
    statusMessage: null,
    pollIntervalMs: null,
    ttlMs: null,
    createdAt: null,
    lastUpdatedAt: null,
  };
  return { owner, serverId, task, wait: async () => ({ kind: "result", result }) };
}
