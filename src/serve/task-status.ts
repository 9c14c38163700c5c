/**
 * A mapped task's status changes pushed to the host that made it (2025-11-25
 * `notifications/tasks/status` on its session; 2026-07-28 `notifications/tasks` on the listen
 * stream it opened for the task, task-listen.ts). What changes is learned from serve's own wait
 * for the upstream task (the client's `awaitTask` reads every status the upstream reports, by poll
 * or woken by the upstream's notifications), from the task's questions to the host
 * (task-input.ts) and from its end. Only serve's view leaves, never an upstream notification.
 *
 * Bounded whatever the upstream does: a push sends only a change (status, message, questions), at
 * most one per `statusIntervalMs` (changes in between are coalesced into the latest, sent when the
 * interval ends); the end is sent at once, and is the last. A push holds at most one timer, which
 * is cleared at the end, when its sink goes (a session closed, a listen cancelled) or on close.
 */
import type { ServedTask } from "./task-map.js";

export interface PushTo {
  /** What the host would read now (its era's `tasks/get`). */
  view: () => Record<string, unknown>;
  /** Writes one notification's params (must not throw). */
  send: (params: Record<string, unknown>) => void;
  /** At most one send per this many ms (the end excepted). */
  intervalMs: number;
  /** The host has not seen the task's state yet (a listen opened later): it is sent first. */
  initial: boolean;
}

export class StatusPush {
  readonly #e: ServedTask;
  readonly #view: () => Record<string, unknown>;
  readonly #send: (params: Record<string, unknown>) => void;
  readonly #interval: number;
  #last = "";
  #at = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  readonly #off: () => void;

  /** Starts listening to `e`'s changes. */
  constructor(e: ServedTask, to: PushTo) {
    this.#e = e;
    this.#view = to.view;
    this.#send = to.send;
    this.#interval = to.intervalMs;
    // What the host already knows (the CreateTaskResult it was just given) is not news.
    if (!to.initial) this.#last = keyOf(to.view());
    this.#off = e.changes.on(() => this.#poke());
    if (to.initial || e.outcome !== null) this.#poke();
  }

  /** Stops at once: nothing more is sent, and its timer is cleared. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#off();
  }

  #poke(): void {
    if (this.#stopped) return;
    const ended = this.#e.outcome !== null;
    if (!ended) {
      // Coalesced: one pending send at most, which reads the state when it fires.
      if (this.#timer !== undefined) return;
      const wait = this.#at + this.#interval - Date.now();
      if (wait > 0) {
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#poke();
        }, wait);
        return;
      }
    }
    const view = this.#view();
    const key = keyOf(view);
    if (key !== this.#last) {
      this.#last = key;
      this.#at = Date.now();
      this.#send(view);
    }
    if (ended) this.stop();
  }
}

/** What counts as a change: the status, its message, and which questions wait. */
function keyOf(v: Record<string, unknown>): string {
  const asked = v.inputRequests;
  const keys = typeof asked === "object" && asked !== null ? Object.keys(asked).join("\u0000") : "";
  return `${String(v.status)}\u0001${String(v.statusMessage ?? "")}\u0001${keys}`;
}
