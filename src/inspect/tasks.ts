/**
 * The tasks the page started: a task-augmented call through the hub (`callTool` with
 * `task: "return"`), then the client's public task API on the returned Task: `awaitTask` waits
 * for the end (answering input the task asks for through the page's handler), and its polls keep
 * the Task's status current, which the board announces on the event stream as it changes.
 * Cancel is `cancelTask` (cooperative: the server may still finish).
 */
import type { Task } from "../client/tasks.js";
import type { Hub } from "../hub/hub.js";
import { type Feed, failureOf as failure } from "./feed.js";

type Answer = { status: number; body: unknown };

/** The longest the page waits for a task (the task is cancelled after that, as awaitTask does). */
const TASK_WAIT = 600_000;
/** How often the board looks at a task's status for changes (no request: awaitTask's polls update it). */
const WATCH_MS = 100;
/** Tasks kept for the page's list, newest last. */
const MAX_TASKS = 50;

interface Entry {
  task: Task;
  tool: string;
  seen: string;
  result?: unknown;
  error?: { kind: string; message: string };
}

const bad = (message: string, status = 400): Answer => ({ status, body: { error: { message } } });

export class TaskBoard {
  readonly #hub: Hub;
  readonly #feed: Feed;
  readonly #entries = new Map<string, Entry>();
  readonly #stop = new AbortController();

  constructor(hub: Hub, feed: Feed) {
    this.#hub = hub;
    this.#feed = feed;
  }

  /** What the page shows on load. */
  list(): Array<Record<string, unknown>> {
    return [...this.#entries.values()].map((e) => this.#view(e));
  }

  /** `POST /api/task { name, arguments }`: a Task (also announced), or the result if the server ran it at once. */
  async start(b: Record<string, unknown>): Promise<Answer> {
    const { name, arguments: args } = b;
    if (typeof name !== "string") return bad("name must be a string");
    if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
      return bad("arguments must be an object");
    }
    let answer: Awaited<ReturnType<Hub["callTool"]>>;
    try {
      answer = await this.#hub.callTool(name, args as Record<string, unknown> | undefined, {
        task: "return",
        signal: this.#stop.signal,
      });
    } catch (err) {
      return { status: 200, body: { error: failure(err) } };
    }
    if (!("status" in answer)) {
      const r = answer as { content: unknown; structured: unknown; isError: boolean };
      return {
        status: 200,
        body: { result: { content: r.content, structured: r.structured, isError: r.isError } },
      };
    }
    const entry: Entry = { task: answer, tool: name, seen: "" };
    this.#add(entry);
    this.#follow(entry);
    return { status: 200, body: { task: this.#view(entry) } };
  }

  /** `POST /api/task/cancel { taskId }`. */
  async cancel(b: Record<string, unknown>): Promise<Answer> {
    const entry = typeof b.taskId === "string" ? this.#entries.get(b.taskId) : undefined;
    if (!entry) return bad("no such task started on this page", 404);
    try {
      await this.#hub.client(entry.task.serverId).cancelTask(entry.task, { timeout: 10_000 });
    } catch (err) {
      return { status: 200, body: { error: failure(err) } };
    }
    this.#announce(entry);
    return { status: 200, body: { cancelled: true } };
  }

  /** Stops following every task (the inspector is stopping). */
  close(): void {
    this.#stop.abort(new Error("inspector stopped"));
  }

  #add(entry: Entry): void {
    this.#entries.set(entry.task.id, entry);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= MAX_TASKS) break;
      this.#entries.delete(key);
    }
  }

  /** Waits for the end in the background; announces each status change meanwhile. */
  #follow(entry: Entry): void {
    this.#announce(entry);
    const timer = setInterval(() => this.#announce(entry), WATCH_MS);
    this.#hub
      .client(entry.task.serverId)
      .awaitTask(entry.task, { timeout: TASK_WAIT, signal: this.#stop.signal })
      .then(
        (r) => {
          entry.result = { content: r.content, structured: r.structured, isError: r.isError };
        },
        (err) => {
          entry.error = failure(err);
        },
      )
      .finally(() => {
        clearInterval(timer);
        this.#announce(entry, true);
      });
  }

  /** Sends the task's view when its status or message changed (or `always`). */
  #announce(entry: Entry, always = false): void {
    const key = `${entry.task.status}\u0000${entry.task.statusMessage ?? ""}`;
    if (!always && key === entry.seen) return;
    entry.seen = key;
    this.#feed.send("task", this.#view(entry));
  }

  #view(e: Entry): Record<string, unknown> {
    const t = e.task;
    return {
      taskId: t.id,
      serverId: t.serverId,
      tool: e.tool,
      era: t.era,
      status: t.status,
      statusMessage: t.statusMessage,
      done: e.result !== undefined || e.error !== undefined,
      result: e.result ?? null,
      error: e.error ?? null,
    };
  }
}
