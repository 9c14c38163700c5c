/**
 * 2026-07-28 task status notifications over stdio: the SDK's stdio entry serves
 * `subscriptions/listen` itself (its acknowledgment knows only the list-change filters), so serve
 * watches the connection's messages: a listen with `notifications.taskIds` is noted on its way in,
 * its acknowledgment on its way out gets the task ids serve agreed to (the connection's own live
 * tasks), and `notifications/tasks` for them go out stamped with the listen's id (task-status.ts
 * pushes them, rate-bounded), until the host cancels the listen (`notifications/cancelled`), the
 * task ends, or the connection or serve closes. A host without the tasks extension gets -32021
 * instead of the acknowledgment (and the SDK forgets the listen).
 *
 * Attached to serve's stdio wire (stdio-fast.ts) from outside, before the SDK starts it: its
 * `onmessage` is read through, its `send` wrapped; neither costs the fast path (its calls never
 * reach `onmessage`, and `send` looks at one field).
 */
import { isObject } from "../shared/guards.js";
import { askedIds, declaresTasks, MAX_PER_CALLER, SUBSCRIPTION_ID } from "./task-listen.js";
import type { ServedTask, TaskMap } from "./task-map.js";
import { StatusPush } from "./task-status.js";
import { modernGet, TASKS_EXTENSION } from "./task-wire.js";

type Json = Record<string, unknown>;
type Send = (message: unknown, options?: unknown) => Promise<void>;
interface Wire {
  onmessage?: (message: unknown, extra?: unknown) => void;
  send: Send;
  close(): Promise<void>;
}

/** The one owner of a stdio connection's 2026-07-28 tasks (server-factory.ts: no principal). */
const OWNER = "anonymous";

export function watchStdioTaskListens(wire: object, tasks: TaskMap): { close(): void } {
  const w = wire as Wire;
  /** Listens for task ids on their way in, by request id: whether the host declared the extension. */
  const asked = new Map<unknown, { ids: unknown[]; declared: boolean }>();
  /** Listens acknowledged with task ids: their tasks, and the pushes once the acknowledgment is out. */
  const open = new Map<unknown, { tasks: ServedTask[]; pushes: StatusPush[] }>();
  const stopListen = (id: unknown) => {
    for (const p of open.get(id)?.pushes ?? []) p.stop();
    open.delete(id);
  };
  const close = () => {
    for (const id of [...open.keys()]) stopListen(id);
    asked.clear();
  };

  let inner: Wire["onmessage"];
  const observe = (m: unknown) => {
    if (!isObject(m)) return;
    if (m.method === "notifications/cancelled" && isObject(m.params)) return stopListen(m.params.requestId);
    const ids = askedIds(m);
    if (ids === null) return;
    // Listens whose tasks have all ended hold nothing: they do not count against the cap.
    for (const [id, l] of open) if (l.tasks.every((e) => e.outcome !== null)) stopListen(id);
    if (asked.size + open.size < MAX_PER_CALLER) asked.set(m.id, { ids, declared: declaresTasks(m) });
  };
  const through = (m: unknown, extra?: unknown) => {
    observe(m);
    inner?.(m, extra);
  };
  Object.defineProperty(w, "onmessage", {
    configurable: true,
    get: () => (inner ? through : undefined),
    set: (fn: Wire["onmessage"]) => {
      inner = fn;
    },
  });

  const send: Send = w.send.bind(w);
  /** The caller's own live tasks among those asked for (one tasks/* token spent). */
  const mine = (ids: unknown[]): ServedTask[] => {
    if (!tasks.rate.take(OWNER)) return [];
    const out: ServedTask[] = [];
    for (const taskId of new Set(ids)) {
      const e = tasks.find(OWNER, taskId);
      if (e && out.length < tasks.options.maxPerCaller) out.push(e);
    }
    return out;
  };
  const push = (id: unknown, e: ServedTask) => {
    const note = (params: Json) =>
      void send({
        jsonrpc: "2.0",
        method: "notifications/tasks",
        params: { ...params, _meta: { [SUBSCRIPTION_ID]: id } },
      }).catch(() => {});
    const intervalMs = tasks.options.statusIntervalMs;
    return new StatusPush(e, { view: () => modernGet(e), send: note, intervalMs, initial: true });
  };
  w.send = (message, options) => {
    const m = message as Json;
    if (m?.method !== "notifications/subscriptions/acknowledged" || !isObject(m.params)) {
      // A listen the SDK refused (an error for its id) is not one to acknowledge any more.
      if (asked.size > 0 && m?.id !== undefined) asked.delete(m.id);
      return send(message, options);
    }
    const meta = isObject(m.params._meta) ? m.params._meta : {};
    const id = meta[SUBSCRIPTION_ID];
    const listen = asked.get(id);
    if (!listen) return send(message, options);
    asked.delete(id);
    if (!listen.declared) {
      // The extension's rule; the SDK's own listen for it is cancelled, as the host would.
      inner?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
      return send({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32021,
          message: "Missing required client capability",
          data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        },
      });
    }
    const honored = mine(listen.ids);
    const notifications = {
      ...(isObject(m.params.notifications) ? m.params.notifications : {}),
      taskIds: honored.map((e) => e.id),
    };
    const sent = send({ ...m, params: { ...m.params, notifications } }, options);
    // Nothing on a listen comes before its acknowledgment: its pushes start once that is out.
    const held = { tasks: honored, pushes: [] as StatusPush[] };
    open.set(id, held);
    void sent.then(
      () => {
        if (open.get(id) === held) held.pushes = honored.map((e) => push(id, e));
      },
      () => open.delete(id),
    );
    return sent;
  };
  const closeWire = w.close.bind(w);
  w.close = () => {
    close();
    return closeWire();
  };
  return { close };
}
