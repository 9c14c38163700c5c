import type { Connection } from "../connection/connection.js";
import { legacyToolTasks, modernTasks, TASKS_EXTENSION } from "../protocol/era.js";
import type { Session } from "../protocol/negotiator.js";
import type { Deadline } from "../shared/deadline.js";
import { McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { Era } from "../shared/versions.js";
import type { ToolCallSpan } from "../telemetry/open-telemetry.js";
import { stableJson } from "../util/stable-json.js";
import type { CredentialIdentity } from "./cache/list-cache.js";
import { answerRound, MRTR_LIMITS } from "./input/mrtr.js";
import type { InputService } from "./input/service.js";
import type { Via } from "./request-call.js";
import type { Requester } from "./requester.js";
import { expectComplete, toToolResult } from "./results.js";
import type { CallToolOptions, RequestOptions, Tool, ToolResult } from "./types.js";

export { TASKS_EXTENSION };

/** Requests about tasks declare the tasks extension (modern). */
const WITH_TASKS: Via = { withTasks: true };
/** The extension result type a call that declared tasks may answer with. */
const TASK_RESULT: ReadonlySet<string> = new Set(["task"]);

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled" | "unknown";
const STATUSES: readonly TaskStatus[] = ["working", "input_required", "completed", "failed", "cancelled"];

/**
 * A long-running tool call the server runs as a task. `id` may act as a bearer token on the
 * server: the client never logs it or puts it in an event or error, and neither should you.
 */
export interface Task {
  readonly id: string;
  readonly serverId: string;
  readonly era: Era;
  status: TaskStatus;
  /** The server's note on the current status (sanitised), or null. */
  statusMessage: string | null;
  /** How often the server wants to be polled, or null when it did not say. */
  pollIntervalMs: number | null;
  /** How long the server keeps the task, from its creation (null: unlimited or not said). */
  ttlMs: number | null;
  createdAt: string | null;
  lastUpdatedAt: string | null;
}

/** What `awaitTask()` and `callTool(..., { task: "await" })` take. */
export interface AwaitTaskOptions {
  /** The whole wait, in ms (the task is cancelled when it passes). Default: `requestTimeout`. */
  timeout?: number;
  signal?: AbortSignal;
  assigns?: Record<string, unknown>;
  /**
   * Called with the task each time the wait has read its state from the server (a poll, or one a
   * status notification woke), before it acts on it; a throw is ignored. Not called for the final
   * read: the wait's own outcome says how it ended.
   */
  onStatus?: (task: Task) => void;
}

/** `awaitTask()`'s option keys beyond the common request options. */
export const AWAIT_TASK_KEYS = ["onStatus"] as const;

/** Polling bounds: a server cannot make the client spin, nor wait longer than a minute. */
const POLL_MIN_MS = 25;
const POLL_MAX_MS = 60_000;
const POLL_DEFAULT_MS = 1_000;

export interface TasksDeps {
  serverId: string;
  connection: Connection<Session>;
  requester: Requester;
  identity(): CredentialIdentity;
  /** The tool's listed definition, fetching the listing when none is cached (legacy task support). */
  findTool(name: string, deadline: Deadline, signal: AbortSignal | undefined): Promise<Tool | undefined>;
  input: InputService;
  /** Interest in status notifications of a task (modern listen `taskIds`). */
  watch(taskId: string): () => void;
  warn(text: string): void;
}

/** A tool call on its way to a task (tool-call-op.ts's call object is one). */
export interface RoutedCall {
  readonly name: string;
  /** The call's params; a legacy task-augmented call adds `task` to them. */
  readonly toolParams: JsonObject;
  readonly opts: CallToolOptions;
  readonly deadline: Deadline;
  readonly rounds: { count: number };
  readonly toolSpan: ToolCallSpan | undefined;
}

/** Whose credentials created a task, and in which era: a task is only touched with the same. */
interface Binding {
  identity: string;
  era: Era;
}

/**
 * Server tasks in both eras: the modern `io.modelcontextprotocol/tasks` extension
 * (`resultType: "task"`, `tasks/get`, `tasks/update`, `tasks/cancel`) and legacy task-augmented
 * calls (`tasks/get`, `tasks/result`, `tasks/cancel`).
 */
export class Tasks {
  readonly #d: TasksDeps;
  // Made on first use: most clients never run a task (~0.3 KB per client, issue 12).
  #bindings: WeakMap<Task, Binding> | undefined;
  #wakers: Map<string, Set<() => void>> | undefined;

  constructor(deps: TasksDeps) {
    this.#d = deps;
  }

  /** A modern `CreateTaskResult` (`resultType: "task"`) as a Task. */
  fromModern(result: JsonObject): Task {
    return this.#make(result, "modern");
  }

  /** A legacy `CreateTaskResult` (`{ task: {...} }`) as a Task. */
  fromLegacy(result: JsonObject): Task {
    if (!isObject(result.task)) throw new McpClientError("protocol", "invalid_task_result");
    return this.#make(result.task, "legacy");
  }

  /** The way a tool call becomes a task, after the common case (no task) did not apply. */
  async route(call: RoutedCall): Promise<{ result: ToolResult } | { task: Task }> {
    const { name, toolParams: params, opts, deadline, rounds, toolSpan } = call;
    const conn = this.#d.connection;
    const requester = this.#d.requester;
    // No await when ready: what this call sends goes out now, before anything the caller does next.
    if (conn.state !== "ready") await conn.whenReady(deadline.left(), opts.signal);
    let task: Task;
    if (modernTasks(conn.session)) {
      const via = { deadline, rounds, toolSpan, withTasks: true, accept: TASK_RESULT };
      const wire = await requester.withInput("tools/call", params, opts, via);
      if (wire.resultType !== "task") return { result: toToolResult(expectComplete(wire)) };
      task = this.fromModern(wire);
    } else {
      if (!(await this.#legacyTaskSupport(name, opts, deadline))) {
        const wire = await requester.withInput("tools/call", params, opts, { deadline, rounds, toolSpan });
        return { result: toToolResult(expectComplete(wire)) };
      }
      params.task = opts.taskTtl === undefined ? {} : { ttl: opts.taskTtl };
      rounds.count += 1;
      const wire = await requester.request("tools/call", params, opts, { deadline, toolSpan });
      if (!isObject(wire.task)) return { result: toToolResult(wire) }; // the server ran it at once after all
      task = this.fromLegacy(wire);
    }
    if (opts.task === "return") return { task };
    return { result: await this.await(task, { signal: opts.signal, assigns: opts.assigns }, deadline) };
  }

  /**
   * Legacy: a call is task-augmented only when the server declares `tasks.requests.tools.call`
   * and the tool allows it: `"required"` always, `"optional"` only when a task was asked for.
   */
  async #legacyTaskSupport(name: string, opts: CallToolOptions, deadline: Deadline): Promise<boolean> {
    if (!legacyToolTasks(this.#d.connection.session)) return false;
    let tool: Tool | undefined;
    try {
      tool = await this.#d.findTool(name, deadline, opts.signal);
    } catch (err) {
      // The connection failed or time ran out: the call fails with it. A server that cannot
      // list its tools gets a plain call.
      if (!McpClientError.is(err, "protocol") && !McpClientError.is(err, "pagination_cycle")) throw err;
      this.#d.warn(`could not read the tool list to see whether a tool runs as a task: ${String(err)}`);
    }
    const support = tool?.execution?.taskSupport;
    return support === "required" || (support === "optional" && opts.task !== undefined);
  }

  /** A request about a task, with the tasks extension declared (modern). */
  #request(
    method: string,
    params: JsonObject,
    options: RequestOptions,
    deadline?: Deadline,
  ): Promise<JsonObject> {
    return this.#d.requester.request(
      method,
      params,
      options,
      deadline ? { deadline, withTasks: true } : WITH_TASKS,
    );
  }

  /** Asks the server for the task's state; updates and returns `task`. */
  async get(task: Task, options: RequestOptions = {}): Promise<Task> {
    this.#check(task);
    const r = await this.#request("tasks/get", { taskId: task.id }, options);
    this.#update(task, r);
    return task;
  }

  /** Asks the server to cancel the task (cooperative: it may still finish). */
  async cancel(task: Task, options: RequestOptions = {}): Promise<void> {
    this.#check(task);
    const r = await this.#request("tasks/cancel", { taskId: task.id }, options);
    // Legacy answers with the task; modern with an empty acknowledgment.
    if (typeof r.status === "string") this.#update(task, r);
  }

  /**
   * Polls until the task finishes and returns its result, within one deadline; answers its input
   * requests with the handler (modern) or reads `tasks/result` (legacy). When the deadline passes
   * or the signal aborts, the task is cancelled on the server.
   */
  async await(
    task: Task,
    options: AwaitTaskOptions = {},
    deadline: Deadline = this.#d.requester.deadline(options),
  ): Promise<ToolResult> {
    this.#check(task);
    if (options.onStatus !== undefined && typeof options.onStatus !== "function")
      throw new TypeError('conduit-mcp: option "onStatus" must be a function');
    const unwatch = task.era === "modern" ? this.#d.watch(task.id) : () => {};
    try {
      return task.era === "modern"
        ? await this.#awaitModern(task, deadline, options)
        : await this.#awaitLegacy(task, deadline, options);
    } catch (err) {
      const aborted = options.signal?.aborted === true && err === options.signal.reason;
      if (aborted || McpClientError.is(err, "timeout")) {
        // The caller stopped waiting: the work is not wanted any more.
        this.cancel(task, { timeout: 5_000 }).catch(() => {});
      }
      throw err;
    } finally {
      unwatch();
    }
  }

  /** A task status notification (modern `notifications/tasks`, legacy `notifications/tasks/status`). */
  notified(params: JsonObject | undefined): void {
    const id = params?.taskId;
    if (typeof id !== "string") return;
    for (const wake of this.#wakers?.get(id) ?? []) wake();
  }

  async #awaitModern(task: Task, deadline: Deadline, options: AwaitTaskOptions): Promise<ToolResult> {
    const answered = new Set<string>();
    let updates = 0;
    for (;;) {
      const r = await this.#request(
        "tasks/get",
        { taskId: task.id },
        this.#left(deadline, options),
        deadline,
      );
      this.#update(task, r);
      if (!isTerminal(task.status)) told(options, task);
      switch (task.status) {
        case "completed":
          return this.#result(r.result);
        case "failed":
          throw taskFailure(r.error);
        case "cancelled":
          throw new McpClientError("unavailable", "task_cancelled");
        case "input_required": {
          const pending = isObject(r.inputRequests) ? r.inputRequests : {};
          const keys = Object.keys(pending).filter((k) => !answered.has(k));
          if (keys.length === 0) break;
          if (++updates > MRTR_LIMITS.rounds) {
            throw new McpClientError("mrtr_round_limit", "max_rounds", { limit: MRTR_LIMITS.rounds });
          }
          if (keys.length > MRTR_LIMITS.inputRequests) {
            throw new McpClientError("mrtr_round_limit", "max_input_requests", {
              limit: MRTR_LIMITS.inputRequests,
            });
          }
          const opts: RequestOptions = { signal: options.signal, assigns: options.assigns };
          const inputResponses = await answerRound(this.#d.input, pending, keys, { opts, deadline });
          for (const k of keys) answered.add(k);
          await this.#request(
            "tasks/update",
            { taskId: task.id, inputResponses },
            this.#left(deadline, options),
            deadline,
          );
          continue; // look again at once: the answers may have moved it on
        }
      }
      await this.#sleep(task, deadline, options.signal);
    }
  }

  async #awaitLegacy(task: Task, deadline: Deadline, options: AwaitTaskOptions): Promise<ToolResult> {
    for (;;) {
      if (task.status === "cancelled") throw new McpClientError("unavailable", "task_cancelled");
      // tasks/result blocks until the task ends; while it needs input, the server asks through
      // it (its requests reach the handler like any other), so it is the way to wait then too.
      if (task.status === "completed" || task.status === "failed" || task.status === "input_required") {
        const r = await this.#request(
          "tasks/result",
          { taskId: task.id },
          this.#left(deadline, options),
          deadline,
        );
        return this.#result(r);
      }
      await this.#sleep(task, deadline, options.signal);
      const r = await this.#request(
        "tasks/get",
        { taskId: task.id },
        this.#left(deadline, options),
        deadline,
      );
      this.#update(task, r);
      if (!isTerminal(task.status)) told(options, task);
    }
  }

  #result(v: unknown): ToolResult {
    if (!isObject(v)) throw new McpClientError("protocol", "invalid_task_result");
    return toToolResult(v);
  }

  #left(deadline: Deadline, options: AwaitTaskOptions): RequestOptions {
    if (deadline.expired()) throw new McpClientError("timeout", "deadline_exceeded");
    return { signal: options.signal, assigns: options.assigns };
  }

  /** Waits the poll interval, or less when a status notification arrives for this task. */
  #sleep(task: Task, deadline: Deadline, signal?: AbortSignal): Promise<void> {
    const interval = Math.min(POLL_MAX_MS, Math.max(POLL_MIN_MS, task.pollIntervalMs ?? POLL_DEFAULT_MS));
    const ms = Math.min(interval, deadline.remaining());
    if (ms <= 0) return Promise.reject(new McpClientError("timeout", "deadline_exceeded"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      this.#wakers ??= new Map();
      const all = this.#wakers;
      const wakers = all.get(task.id) ?? new Set();
      all.set(task.id, wakers);
      const began = Date.now();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        wakers.delete(notice);
        if (wakers.size === 0) all.delete(task.id);
      };
      const wake = () => {
        done();
        resolve();
      };
      // A notification looks again at once, but never sooner than POLL_MIN_MS after the last
      // look: a server flooding status notifications does not get a request for each.
      const notice = () => {
        const early = began + POLL_MIN_MS - Date.now();
        if (early <= 0) return wake();
        wakers.delete(notice);
        clearTimeout(timer);
        timer = setTimeout(wake, Math.max(0, Math.min(early, began + ms - Date.now())));
      };
      const onAbort = () => {
        done();
        reject(signal!.reason);
      };
      let timer = setTimeout(wake, ms);
      wakers.add(notice);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  #make(wire: JsonObject, era: Era): Task {
    if (typeof wire.taskId !== "string" || wire.taskId.length === 0) {
      throw new McpClientError("protocol", "invalid_task_result");
    }
    const task: Task = {
      id: wire.taskId,
      serverId: this.#d.serverId,
      era,
      status: "unknown",
      statusMessage: null,
      pollIntervalMs: null,
      ttlMs: null,
      createdAt: null,
      lastUpdatedAt: null,
    };
    this.#update(task, wire);
    this.#bindings ??= new WeakMap();
    this.#bindings.set(task, { identity: stableJson(this.#d.identity()), era });
    return task;
  }

  /** Reads a task's state from the wire (modern and legacy field names both). */
  #update(task: Task, w: JsonObject): void {
    if (w.taskId !== undefined && w.taskId !== task.id)
      throw new McpClientError("protocol", "task_id_mismatch");
    task.status = STATUSES.includes(w.status as TaskStatus) ? (w.status as TaskStatus) : "unknown";
    task.statusMessage =
      typeof w.statusMessage === "string" ? sanitizeText(w.statusMessage, { maxLength: 1024 }) : null;
    const poll = w.pollIntervalMs ?? w.pollInterval;
    if (typeof poll === "number" && Number.isFinite(poll) && poll >= 0)
      task.pollIntervalMs = Math.round(poll);
    const ttl = w.ttlMs ?? w.ttl;
    task.ttlMs = typeof ttl === "number" && Number.isFinite(ttl) && ttl >= 0 ? Math.round(ttl) : null;
    if (typeof w.createdAt === "string") task.createdAt = sanitizeText(w.createdAt, { maxLength: 64 });
    if (typeof w.lastUpdatedAt === "string")
      task.lastUpdatedAt = sanitizeText(w.lastUpdatedAt, { maxLength: 64 });
  }

  /** A task is only touched in the era, and with the credentials, that created it. */
  #check(task: Task): void {
    if (!isObject(task) || typeof task.id !== "string")
      throw new TypeError("conduit-mcp: task must be a Task");
    const binding = this.#bindings?.get(task);
    if (!binding) throw new TypeError("conduit-mcp: this task was not created by this client");
    if (binding.era !== (this.#d.connection.session?.era ?? null))
      throw new McpClientError("unavailable", "task_era_changed");
    if (binding.identity !== stableJson(this.#d.identity())) {
      throw new McpClientError("auth", "task_credentials_changed");
    }
  }
}

const isTerminal = (s: TaskStatus) => s === "completed" || s === "failed" || s === "cancelled";

/** The caller's `onStatus`: what it throws is its own business, not the wait's. */
function told(options: AwaitTaskOptions, task: Task): void {
  try {
    options.onStatus?.(task);
  } catch {
    // ignored (documented)
  }
}

/** A failed task's JSON-RPC error, as the protocol error it is. */
function taskFailure(e: unknown): McpClientError {
  if (isObject(e) && typeof e.code === "number") {
    const message = typeof e.message === "string" ? sanitizeText(e.message, { maxLength: 1024 }) : "";
    return new McpClientError(
      "protocol",
      "jsonrpc_error",
      { message, data: e.data },
      { detail: { jsonrpc: e.code } },
    );
  }
  return new McpClientError("protocol", "task_failed");
}
