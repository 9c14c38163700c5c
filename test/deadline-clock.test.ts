// The process's one deadline clock (src/connection/deadline-clock.ts): watches are told in the
// order they are due, never before; one that leaves is never told; the timer keeps the process
// alive only while some watch has requests to watch.
import { describe, expect, it } from "vitest";
import { type ClockWatch, schedule, unschedule, watching } from "../src/connection/deadline-clock.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function watch(name: string, told: Array<[string, number]>): ClockWatch {
  const w: ClockWatch = {
    clockAt: Number.POSITIVE_INFINITY,
    clockIndex: -1,
    due() {
      told.push([name, Date.now()]);
    },
  };
  return w;
}

/** Ref'd timers of the process (an unref'd one is not listed). */
const refTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("deadline clock", () => {
  it("tells each watch once, in the order due, never before its time", async () => {
    const told: Array<[string, number]> = [];
    const now = Date.now();
    const ws = [
      ["c", 60],
      ["a", 20],
      ["b", 40],
      ["d", 80],
    ] as const;
    const made = ws.map(([n, ms]) => {
      const w = watch(n, told);
      schedule(w, now + ms);
      return [w, now + ms] as const;
    });
    await sleep(150);
    expect(told.map(([n]) => n)).toEqual(["a", "b", "c", "d"]);
    const dueOf = new Map(ws.map(([n], i) => [n as string, made[i]![1]]));
    for (const [n, at] of told) expect(at).toBeGreaterThanOrEqual(dueOf.get(n)!);
    for (const [w] of made) expect(w.clockIndex).toBe(-1);
  });

  it("a watch that leaves is not told; one moved sooner or later is told at its new time", async () => {
    const told: Array<[string, number]> = [];
    const now = Date.now();
    const gone = watch("gone", told);
    const sooner = watch("sooner", told);
    const later = watch("later", told);
    schedule(gone, now + 20);
    schedule(sooner, now + 200);
    schedule(later, now + 10);
    unschedule(gone);
    schedule(sooner, now + 30);
    schedule(later, now + 60);
    await sleep(120);
    expect(told.map(([n]) => n)).toEqual(["sooner", "later"]);
    expect(told[0]![1]).toBeGreaterThanOrEqual(now + 30);
    expect(told[1]![1]).toBeGreaterThanOrEqual(now + 60);
  });

  it("keeps its order over many watches added, moved and removed at random", async () => {
    const told: Array<[string, number]> = [];
    const now = Date.now();
    const ws: Array<ClockWatch & { want: number }> = [];
    let seed = 7;
    const rand = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 200; i++) {
      const w = Object.assign(watch(String(i), told), { want: 0 });
      w.want = now + 20 + Math.floor(rand() * 60);
      schedule(w, w.want);
      ws.push(w);
    }
    for (let i = 0; i < 100; i++) {
      const w = ws[Math.floor(rand() * ws.length)]!;
      if (rand() < 0.3) {
        unschedule(w);
        w.want = -1;
      } else {
        w.want = now + 20 + Math.floor(rand() * 60);
        schedule(w, w.want);
      }
    }
    await sleep(150);
    const expected = ws.filter((w) => w.want > 0);
    expect(told.length).toBe(expected.length);
    const byName = new Map(ws.map((w, i) => [String(i), w]));
    let last = 0;
    for (const [n, at] of told) {
      const w = byName.get(n)!;
      expect(w.want).toBeGreaterThan(0);
      expect(at).toBeGreaterThanOrEqual(w.want);
      expect(w.want).toBeGreaterThanOrEqual(last);
      last = w.want;
    }
  });

  it("holds the process open only while a watch has requests to watch", async () => {
    const told: Array<[string, number]> = [];
    const base = refTimers();
    const w = watch("w", told);
    schedule(w, Date.now() + 5_000);
    expect(refTimers()).toBe(base);
    watching(1);
    expect(refTimers()).toBe(base + 1);
    watching(-1);
    expect(refTimers()).toBe(base);
    unschedule(w);
    await sleep(10);
    expect(told).toEqual([]);
  });
});
