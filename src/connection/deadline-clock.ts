import { MAX_TIMER_DELAY } from "../shared/deadline.js";

/**
 * One process timer for the deadline watches of every connection (deadline-timers.ts), where each
 * had a `setTimeout` of its own: a `Timeout`, its argument array and its number fields, ~210 B
 * per connection, held from a connection's first request until a request timeout after its last
 * (issue 26). The watches wait in a min-heap by when they are due; the timer is set for the
 * first. It is ref'd while any watch has a request to watch (as each connection's timer was) and
 * unref'd otherwise, so it never keeps the process alive on its own.
 */
export interface ClockWatch {
  /** When it is due (absolute ms); Infinity while it is not in the heap. */
  clockAt: number;
  /** Its place in the heap; -1 when it is not there. */
  clockIndex: number;
  /** Its time came (it has left the heap; it may schedule itself again). */
  due(): void;
}

const heap: ClockWatch[] = [];
let timer: NodeJS.Timeout | undefined;
/** When the timer fires (absolute ms); Infinity when there is none. */
let timerAt = Number.POSITIVE_INFINITY;
/** Watches with a request to watch: the timer is ref'd while there is one. */
let busy = 0;

/** `w` is due at `at` (sooner or later than before, or for the first time). */
export function schedule(w: ClockWatch, at: number): void {
  const before = w.clockAt;
  w.clockAt = at;
  if (w.clockIndex < 0) {
    w.clockIndex = heap.length;
    heap.push(w);
    up(w.clockIndex);
  } else if (at < before) up(w.clockIndex);
  else down(w.clockIndex);
  if (at < timerAt) setTimer(at);
}

/** `w` leaves the heap (its connection closed): the heap no longer holds it. */
export function unschedule(w: ClockWatch): void {
  const i = w.clockIndex;
  w.clockAt = Number.POSITIVE_INFINITY;
  if (i < 0) return;
  w.clockIndex = -1;
  const last = heap.pop()!;
  if (last !== w) {
    heap[i] = last;
    last.clockIndex = i;
    up(i);
    down(last.clockIndex);
  }
  if (heap.length === 0 && timer !== undefined) {
    clearTimeout(timer);
    timer = undefined;
    timerAt = Number.POSITIVE_INFINITY;
  }
}

/** A watch began (`+1`) or ended (`-1`) having requests to watch. */
export function watching(delta: 1 | -1): void {
  busy += delta;
  if (busy === 0) timer?.unref();
  else if (busy === 1 && delta === 1) timer?.ref();
}

function setTimer(at: number): void {
  if (timer !== undefined) clearTimeout(timer);
  timerAt = at;
  const delay = Math.min(MAX_TIMER_DELAY, Math.max(0, at - Date.now()));
  timer = setTimeout(fire, delay);
  if (busy === 0) timer.unref();
}

function fire(): void {
  timer = undefined;
  timerAt = Number.POSITIVE_INFINITY;
  const now = Date.now();
  // Those due leave the heap first, then each is told: one may schedule itself again.
  const due: ClockWatch[] = [];
  while (heap.length > 0 && heap[0]!.clockAt <= now) {
    const w = heap[0]!;
    unschedule(w);
    due.push(w);
  }
  for (const w of due) w.due();
  const first = heap[0];
  if (first !== undefined && first.clockAt < timerAt) setTimer(first.clockAt);
}

function up(i: number): void {
  const w = heap[i]!;
  while (i > 0) {
    const p = (i - 1) >> 1;
    const parent = heap[p]!;
    if (parent.clockAt <= w.clockAt) break;
    heap[i] = parent;
    parent.clockIndex = i;
    i = p;
  }
  heap[i] = w;
  w.clockIndex = i;
}

function down(i: number): void {
  const w = heap[i]!;
  const n = heap.length;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= n) break;
    const r = l + 1;
    const c = r < n && heap[r]!.clockAt < heap[l]!.clockAt ? r : l;
    const child = heap[c]!;
    if (child.clockAt >= w.clockAt) break;
    heap[i] = child;
    child.clockIndex = i;
    i = c;
  }
  heap[i] = w;
  w.clockIndex = i;
}
