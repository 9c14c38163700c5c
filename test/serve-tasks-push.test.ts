/**
 * serve's StatusPush (src/serve/task-status.ts) on its own, with fake timers: a change is sent at
 * once, a burst in one interval is coalesced into its latest state sent when the interval ends,
 * no change is no send, the end goes at once and is the last, and nothing is left running after
 * the end or stop() (no timer, no listener).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Changes } from "../src/serve/task-changes.js";
import type { ServedTask, TaskOutcome } from "../src/serve/task-map.js";
import { StatusPush } from "../src/serve/task-status.js";

// biome-ignore lint/suspicious/noExplicitAny: a stand-in task: only the fields StatusPush reads
type Json = Record<string, any>;

function fakeTask() {
  const state = { status: "working", statusMessage: "" };
  const e = { outcome: null as TaskOutcome | null, changes: new Changes() };
  const sent: Json[] = [];
  const change = (patch: Partial<typeof state>) => {
    Object.assign(state, patch);
    e.changes.emit();
  };
  const end = () => {
    e.outcome = { kind: "cancelled" };
    state.status = "cancelled";
    e.changes.emit();
  };
  const push = (initial = false) =>
    new StatusPush(e as unknown as ServedTask, {
      view: () => ({ ...state }),
      send: (p) => void sent.push(p),
      intervalMs: 100,
      initial,
    });
  return { e, sent, change, end, push };
}

describe("StatusPush", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("sends a change at once, coalesces a burst into its latest, and sends nothing unchanged", () => {
    const t = fakeTask();
    t.push();
    t.change({});
    expect(t.sent).toEqual([]);
    t.change({ statusMessage: "1" });
    expect(t.sent.map((p) => p.statusMessage)).toEqual(["1"]);
    for (let i = 2; i <= 5000; i++) t.change({ statusMessage: String(i) });
    expect(t.sent).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(100);
    expect(t.sent.map((p) => p.statusMessage)).toEqual(["1", "5000"]);
    expect(vi.getTimerCount()).toBe(0);
    // Back to an already-sent state within the interval, then the interval passes: no news.
    t.change({ statusMessage: "x" });
    t.change({ statusMessage: "5000" });
    vi.advanceTimersByTime(100);
    expect(t.sent).toHaveLength(2);
  });

  it("sends the end at once, even within the interval, and nothing after it; no timer is left", () => {
    const t = fakeTask();
    t.push();
    t.change({ statusMessage: "a" });
    t.change({ statusMessage: "b" });
    expect(vi.getTimerCount()).toBe(1);
    t.end();
    expect(t.sent.map((p) => p.status)).toEqual(["working", "cancelled"]);
    expect(vi.getTimerCount()).toBe(0);
    t.change({ statusMessage: "late" });
    vi.advanceTimersByTime(1_000);
    expect(t.sent).toHaveLength(2);
  });

  it("stop() leaves nothing running: its pending send is dropped and it hears no more", () => {
    const t = fakeTask();
    const p = t.push();
    t.change({ statusMessage: "a" });
    t.change({ statusMessage: "b" });
    p.stop();
    expect(vi.getTimerCount()).toBe(0);
    t.end();
    vi.advanceTimersByTime(1_000);
    expect(t.sent.map((s) => s.statusMessage)).toEqual(["a"]);
  });

  it("a push for a host that has not seen the task (a listen) sends its state first; for an ended task, its end only", () => {
    const t = fakeTask();
    t.push(true);
    expect(t.sent.map((p) => p.status)).toEqual(["working"]);
    const ended = fakeTask();
    ended.end();
    ended.push(true);
    expect(ended.sent.map((p) => p.status)).toEqual(["cancelled"]);
    // A host given the state already (a CreateTaskResult) hears nothing it knows.
    const known = fakeTask();
    known.end();
    known.push(false);
    expect(known.sent).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
