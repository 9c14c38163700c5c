/**
 * 2026-07-28 task status notifications over HTTP: a host's `subscriptions/listen` with
 * `notifications.taskIds` (the tasks extension) gets `notifications/tasks` for those of its own
 * tasks serve knows, each a complete `tasks/get` view (task-status.ts pushes them, rate-bounded).
 *
 * The SDK's entry serves `subscriptions/listen` itself and knows only the list-change filters,
 * so serve lets it validate the request and open its stream first (version, headers, envelope),
 * then serves its own stream in that one's place: the SDK's frames (its acknowledgment, with the
 * task ids serve agreed to added, its list changes and keep-alives) pass through, and serve's task
 * notifications go between them. When the SDK honours nothing (task ids only) its stream is
 * dropped and serve keeps its own alive. A listen ends when the host goes, on close(), and when
 * it asked for task ids only and every one of them has ended (gracefully: the listen's result).
 *
 * Only the caller's own live tasks are honoured: a foreign, unknown or expired id is left out of
 * the acknowledgment, the same for all (no oracle). A listen spends one of the caller's `tasks/*`
 * tokens (task-rate.ts); a caller has at most `MAX_PER_CALLER` task listens open.
 */
import { isObject } from "../shared/guards.js";
import type { CallerView } from "./callers.js";
import type { ServedTask, TaskMap } from "./task-map.js";
import { StatusPush } from "./task-status.js";
import { modernGet, TASKS_EXTENSION } from "./task-wire.js";

export const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";
/** Task listens a caller may have open at once; one more is refused. */
export const MAX_PER_CALLER = 16;
/** Keep-alive comments on a stream serve holds alone (as the SDK does on its own). */
const KEEPALIVE_MS = 15_000;

type Json = Record<string, unknown>;

/** The owner of a 2026-07-28 request's tasks: its principal, else loopback's one anonymous owner. */
export const modernOwner = (view: CallerView): string =>
  view.principal !== null ? `principal:${view.principal}` : "anonymous";

/** The task ids a request body asks to listen to, or null when it is no such listen. */
export function askedIds(body: unknown): unknown[] | null {
  if (!isObject(body) || body.method !== "subscriptions/listen" || body.id === undefined) return null;
  const params = isObject(body.params) ? body.params : null;
  const filter = params && isObject(params.notifications) ? params.notifications : null;
  return filter && Array.isArray(filter.taskIds) ? filter.taskIds : null;
}

export function declaresTasks(body: Json): boolean {
  const params = isObject(body.params) ? body.params : {};
  const meta = isObject(params._meta) ? params._meta : {};
  const caps = meta["io.modelcontextprotocol/clientCapabilities"];
  const ext = isObject(caps) && isObject(caps.extensions) ? caps.extensions : null;
  return ext !== null && isObject(ext[TASKS_EXTENSION]);
}

const frame = (message: Json) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

const rpcError = (id: unknown, status: number, error: Json) =>
  Response.json({ jsonrpc: "2.0", id, error }, { status });

export class TaskListens {
  readonly #tasks: TaskMap;
  readonly #open = new Set<() => void>();
  readonly #perOwner = new Map<string, number>();

  constructor(tasks: TaskMap) {
    this.#tasks = tasks;
  }

  /** Listens open now (tests, and serve's own accounting). */
  get size(): number {
    return this.#open.size;
  }

  /** Whether this request body is a listen for task ids (serve answers it: `serve`). */
  wants(body: unknown): boolean {
    return askedIds(body) !== null;
  }

  /**
   * The answer to a listen for task ids, given the SDK's answer to the same request: the SDK's
   * refusal as it is; else serve's stream (or serve's own refusal: no tasks extension, over the
   * rate or the cap).
   */
  async serve(body: Json, sdk: Response, view: CallerView, signal: AbortSignal): Promise<Response> {
    if (!sdk.ok || !sdk.body || !(sdk.headers.get("content-type") ?? "").includes("text/event-stream"))
      return sdk;
    const refuse = (status: number, error: Json) => {
      void sdk.body?.cancel().catch(() => {});
      return rpcError(body.id, status, error);
    };
    // The extension's rule: task notifications are for hosts that declared it.
    if (!declaresTasks(body)) {
      return refuse(400, {
        code: -32021,
        message: "Missing required client capability",
        data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      });
    }
    const owner = modernOwner(view);
    if (!this.#tasks.rate.take(owner))
      return refuse(200, { code: -32000, message: "Rate limit exceeded for tasks requests; retry later" });
    const open = this.#perOwner.get(owner) ?? 0;
    if (open >= MAX_PER_CALLER) return refuse(200, { code: -32603, message: "Subscription limit reached" });
    const ids = new Set((askedIds(body) ?? []).filter((id): id is string => typeof id === "string"));
    const mine: ServedTask[] = [];
    for (const id of ids) {
      const e = this.#tasks.find(owner, id);
      if (e && mine.length < this.#tasks.options.maxPerCaller) mine.push(e);
    }
    this.#perOwner.set(owner, open + 1);
    const left = () => {
      const n = (this.#perOwner.get(owner) ?? 1) - 1;
      if (n <= 0) this.#perOwner.delete(owner);
      else this.#perOwner.set(owner, n);
    };
    const stream = this.#stream({ id: body.id, sdk: sdk.body, mine, signal }, left);
    const headers = new Headers(sdk.headers);
    headers.delete("content-length");
    return new Response(stream, { status: 200, headers });
  }

  /** Ends every listen gracefully (serve is closing). */
  closeAll(): void {
    for (const end of [...this.#open]) end();
  }

  #stream(
    s: { id: unknown; sdk: ReadableStream<Uint8Array>; mine: ServedTask[]; signal: AbortSignal },
    left: () => void,
  ): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    const reader = s.sdk.getReader();
    const pushes: StatusPush[] = [];
    const interval = this.#tasks.options.statusIntervalMs;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let closed = false;
    let alone = false;
    let keepalive: ReturnType<typeof setInterval> | undefined;
    const write = (text: string) => {
      if (closed) return;
      try {
        controller.enqueue(encoder.encode(text));
      } catch {
        // The host went: teardown follows.
      }
    };
    const teardown = (graceful: boolean) => {
      if (closed) return;
      if (graceful)
        write(
          frame({
            jsonrpc: "2.0",
            id: s.id,
            result: { resultType: "complete", _meta: { [SUBSCRIPTION_ID]: s.id } },
          }),
        );
      closed = true;
      for (const p of pushes) p.stop();
      clearInterval(keepalive);
      s.signal.removeEventListener("abort", onAbort);
      void reader.cancel().catch(() => {});
      this.#open.delete(end);
      left();
      try {
        controller.close();
      } catch {
        // already closed or errored
      }
    };
    const end = () => teardown(true);
    const onAbort = () => teardown(false);
    /** A task-ids-only listen whose tasks have all ended has nothing more to say. */
    const maybeDone = () => {
      if (alone && s.mine.every((e) => e.outcome !== null)) queueMicrotask(end);
    };
    const start = () => {
      for (const e of s.mine) {
        const send = (task: Json) => {
          write(
            frame({
              jsonrpc: "2.0",
              method: "notifications/tasks",
              params: { ...task, _meta: { [SUBSCRIPTION_ID]: s.id } },
            }),
          );
          if (e.outcome !== null) maybeDone();
        };
        pushes.push(
          new StatusPush(e, { view: () => modernGet(e), send, intervalMs: interval, initial: true }),
        );
      }
      maybeDone();
    };
    /** Reads the SDK's frames: its acknowledgment rewritten, then the rest as they come. */
    const pump = async () => {
      let buffer = "";
      let acked = false;
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (closed) return;
        if (done) {
          // The SDK ended its stream: at close() (its graceful result passed through), or at once
          // when it honoured nothing, which serve then holds alone.
          if (acked && alone) return;
          return teardown(false);
        }
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
          const raw = buffer.slice(0, cut + 2);
          buffer = buffer.slice(cut + 2);
          if (acked) {
            write(raw);
            continue;
          }
          acked = true;
          const ack = parseData(raw);
          // Not the acknowledgment the SDK always sends first: nothing to build on.
          if (ack?.method !== "notifications/subscriptions/acknowledged") return teardown(false);
          const honored =
            isObject(ack?.params) && isObject(ack.params.notifications) ? ack.params.notifications : {};
          alone = Object.keys(honored).length === 0;
          const notifications = { ...honored, taskIds: s.mine.map((e) => e.id) };
          write(frame({ ...ack, params: { ...(ack.params as Json), notifications } }));
          if (alone) {
            void reader.cancel().catch(() => {});
            keepalive = setInterval(() => write(": keepalive\n\n"), KEEPALIVE_MS);
            keepalive.unref?.();
          }
          start();
          if (alone) return;
        }
      }
    };
    return new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
        this.#open.add(end);
        if (s.signal.aborted) return teardown(false);
        s.signal.addEventListener("abort", onAbort, { once: true });
        void pump();
      },
      cancel: () => teardown(false),
    });
  }
}

function parseData(raw: string): Json | null {
  const data = raw
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trimStart())
    .join("\n");
  try {
    const v = JSON.parse(data) as unknown;
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}
