/**
 * Upstream tasks handed to hosts through `serve`, under ids of serve's own: 128 random bits, so
 * two upstreams' task ids never collide, and a host can neither guess another caller's id nor
 * forge one that reaches an upstream task (an id is only ever looked up here, never decoded).
 * Each entry is bound to the caller that created it; a lookup by anyone else finds nothing, the
 * same answer as for an id that never existed (no oracle).
 *
 * serve waits for every mapped task itself (the client's `awaitTask`, within `deadlineMs`), so
 * the outcome is known once, whoever asks and however often. State is bounded: at most
 * `maxPerCaller` live entries per caller, each kept `ttlMs` from its creation; expired entries
 * are swept on each use (no timer), and `close()` stops every wait.
 */
import { randomBytes } from "node:crypto";
import type { Task } from "../client/tasks.js";
import type { ToolResult } from "../shared/tool.js";
import { Changes } from "./task-changes.js";
import type { TaskInput } from "./task-input.js";
import { TaskRate } from "./task-rate.js";

/** serve's `tasks` option. */
export interface ServeTaskOptions {
  /** Live mapped tasks per caller; a creation beyond it is refused. Default 32. */
  maxPerCaller?: number;
  /** How long a mapping (and its outcome) is kept, from its creation, in ms. Default 3 600 000 (1 h). */
  ttlMs?: number;
  /** How long serve waits for an upstream task before it cancels it and marks it failed, in ms. Default 1 800 000 (30 min). */
  deadlineMs?: number;
  /** `tasks/*` requests a caller may make per second, sustained (task-rate.ts). Default 50. */
  requestsPerSecond?: number;
  /** `tasks/*` requests a caller may make at once, beyond the sustained rate. Default 100. */
  requestBurst?: number;
  /** Status notifications to a host per task: at most one per this many ms (its end at once). Default 250. */
  statusIntervalMs?: number;
}

export const TASK_DEFAULTS: Required<ServeTaskOptions> = {
  maxPerCaller: 32,
  ttlMs: 3_600_000,
  deadlineMs: 1_800_000,
  requestsPerSecond: 50,
  requestBurst: 100,
  statusIntervalMs: 250,
};

/** How a mapped task ended: its result, or the JSON-RPC error a failed task carries. */
export type TaskOutcome =
  | { kind: "result"; result: ToolResult }
  /** `why`: the audit log's outcome (the client's error kind: `protocol`, `timeout`...). */
  | { kind: "failed"; code: number; message: string; why: string }
  | { kind: "cancelled" };

/** One upstream task as a host sees it. */
export interface ServedTask {
  readonly id: string;
  readonly owner: string;
  readonly serverId: string;
  /** The upstream task (the client updates its status as it polls). */
  readonly task: Task;
  /** Serve's wait for it; settles once, never rejects. */
  readonly done: Promise<TaskOutcome>;
  outcome: TaskOutcome | null;
  readonly createdAt: string;
  readonly expiresAt: number;
  /** Stops serve's wait (the upstream task is cancelled by the client). */
  readonly stop: AbortController;
  /** What the task asks the host while it runs (null: a task that cannot ask, already ended). */
  readonly input: TaskInput | null;
  /** Told when what a host would read may have changed (task-status.ts pushes it). */
  readonly changes: Changes;
}

export interface NewTask {
  owner: string;
  serverId: string;
  task: Task;
  input?: TaskInput;
  /** Serve's wait: the task's end, within the deadline and `signal`; `changed` when the upstream's status moved. */
  wait: (signal: AbortSignal, deadlineMs: number, changed: () => void) => Promise<TaskOutcome>;
}

export class TaskMap {
  readonly #o: Required<ServeTaskOptions>;
  readonly #byId = new Map<string, ServedTask>();
  readonly #perOwner = new Map<string, Set<ServedTask>>();
  /** Creations on their way upstream, per owner (they count against the cap). */
  readonly #pending = new Map<string, number>();
  readonly #settlers = new WeakMap<ServedTask, (o: TaskOutcome) => void>();
  #closed = false;

  /** The `tasks/*` request rate limit, per caller (shared by every session and request). */
  readonly rate: TaskRate;

  constructor(options: ServeTaskOptions | undefined) {
    this.#o = checkOptions(options);
    this.rate = new TaskRate({ perSecond: this.#o.requestsPerSecond, burst: this.#o.requestBurst });
  }

  get options(): Readonly<Required<ServeTaskOptions>> {
    return this.#o;
  }

  /**
   * A slot for one more task of `owner`, held while its call goes upstream (so concurrent
   * creations cannot pass the cap together), or null when it is full: room is made by forgetting
   * its oldest finished task. Asked before anything reaches an upstream; the returned function
   * gives the slot back (a mapped task has taken its own by then).
   */
  reserve(owner: string): (() => void) | null {
    if (this.#closed) return null;
    this.#sweep();
    const mine = this.#perOwner.get(owner);
    const pending = this.#pending.get(owner) ?? 0;
    if ((mine?.size ?? 0) + pending >= this.#o.maxPerCaller) {
      const finished = [...(mine ?? [])].find((e) => e.outcome !== null);
      if (!finished) return null;
      this.#drop(finished);
    }
    this.#pending.set(owner, pending + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const n = (this.#pending.get(owner) ?? 1) - 1;
      if (n <= 0) this.#pending.delete(owner);
      else this.#pending.set(owner, n);
    };
  }

  /** Maps a task an upstream made; serve starts waiting for it at once (or takes the outcome given). */
  add(n: NewTask): ServedTask {
    const stop = new AbortController();
    let settle!: (o: TaskOutcome) => void;
    const done = new Promise<TaskOutcome>((resolve) => {
      settle = resolve;
    });
    const entry: ServedTask = {
      id: randomBytes(16).toString("base64url"),
      owner: n.owner,
      serverId: n.serverId,
      task: n.task,
      outcome: null,
      createdAt: new Date().toISOString(),
      expiresAt: Date.now() + this.#o.ttlMs,
      stop,
      done,
      input: n.input ?? null,
      changes: new Changes(),
    };
    this.#settlers.set(entry, settle);
    const changed = () => entry.changes.emit();
    if (n.input) n.input.changed = changed;
    // Never waited for past its mapping's TTL: an upstream task is not left running unseen.
    n.wait(stop.signal, Math.min(this.#o.deadlineMs, this.#o.ttlMs), changed).then(
      (o) => this.settle(entry, o),
      () =>
        this.settle(entry, { kind: "failed", code: -32603, message: "upstream task failed", why: "error" }),
    );
    this.#byId.set(entry.id, entry);
    const mine = this.#perOwner.get(n.owner) ?? new Set();
    this.#perOwner.set(n.owner, mine);
    mine.add(entry);
    if (this.#closed) this.#drop(entry);
    return entry;
  }

  /** The task's outcome, once: the first one set stands (a cancelled task stays cancelled). */
  settle(e: ServedTask, o: TaskOutcome): void {
    if (e.outcome !== null) return;
    e.outcome = o;
    this.#settlers.get(e)?.(o);
    this.#settlers.delete(e);
    // The end is the last change: whoever pushes it is done after it.
    e.changes.emit();
  }

  /**
   * A host cancels its running task: cancelled at once (what the host sees from now on), and
   * serve's wait stopped, which sends `tasks/cancel` upstream. False when it had already ended.
   */
  cancel(e: ServedTask): boolean {
    if (e.outcome !== null) return false;
    this.settle(e, { kind: "cancelled" });
    e.stop.abort(new Error("serve: task cancelled by its host"));
    return true;
  }

  /** The caller's task by id; undefined for an unknown, expired or foreign id alike. */
  find(owner: string, id: unknown): ServedTask | undefined {
    if (typeof id !== "string") return undefined;
    this.#sweep();
    const e = this.#byId.get(id);
    return e !== undefined && e.owner === owner ? e : undefined;
  }

  /** The caller's live tasks, oldest first. */
  list(owner: string): ServedTask[] {
    this.#sweep();
    return [...(this.#perOwner.get(owner) ?? [])];
  }

  /** Forgets every task of `owner` (a 2025 session or stdio connection that closed): running ones are cancelled upstream. */
  forget(owner: string): void {
    for (const e of [...(this.#perOwner.get(owner) ?? [])]) this.#drop(e);
  }

  /** Mapped tasks now (all callers). */
  get size(): number {
    return this.#byId.size;
  }

  close(): void {
    this.#closed = true;
    for (const e of [...this.#byId.values()]) this.#drop(e);
  }

  #sweep(): void {
    const now = Date.now();
    // Insertion order is creation order, and every entry lives as long: the expired come first.
    for (const e of this.#byId.values()) {
      if (e.expiresAt > now) break;
      this.#drop(e);
    }
  }

  #drop(e: ServedTask): void {
    this.#byId.delete(e.id);
    const mine = this.#perOwner.get(e.owner);
    mine?.delete(e);
    if (mine?.size === 0) this.#perOwner.delete(e.owner);
    // A task still running when forgotten is not wanted any more: its wait cancels it upstream.
    if (e.outcome === null) {
      this.settle(e, { kind: "cancelled" });
      e.stop.abort(new Error("serve: task forgotten"));
    }
    e.changes.clear();
  }
}

function checkOptions(given: ServeTaskOptions | undefined): Required<ServeTaskOptions> {
  const out = { ...TASK_DEFAULTS };
  if (given === undefined) return out;
  if (typeof given !== "object" || given === null)
    throw new TypeError('conduit-mcp: option "tasks" must be an object');
  for (const [key, value] of Object.entries(given)) {
    if (!(key in TASK_DEFAULTS)) throw new TypeError(`conduit-mcp: option "tasks.${key}" is not known`);
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw new TypeError(`conduit-mcp: option "tasks.${key}" must be an integer >= 1`);
    }
    out[key as keyof ServeTaskOptions] = value as number;
  }
  return out;
}
