/** The CLI's one clock (src/cli/clock.ts): spans, and a request's deadline, on fake timers. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Clock } from "../src/cli/clock.js";
import { McpClientError } from "../src/index.js";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a span", () => {
  it("is --timeout from when it was made, shared by the steps that read it, never below 1 ms", () => {
    const clock = new Clock({ timeout: 1_000, maxTime: 5_000 });
    const span = clock.span();
    expect(span.left()).toBe(1_000);
    vi.advanceTimersByTime(400);
    expect(span.left()).toBe(600);
    vi.advanceTimersByTime(2_000);
    expect(span.left()).toBe(1);
    // A new span starts its own --timeout.
    expect(clock.span().left()).toBe(1_000);
  });
});

describe("a request's deadline", () => {
  it("ends at --timeout with timeout: deadline_exceeded", () => {
    const deadline = new Clock({ timeout: 1_000, maxTime: 5_000 }).request();
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect(McpClientError.is(deadline.signal.reason, "timeout")).toBe(true);
    expect((deadline.signal.reason as McpClientError).reason).toBe("deadline_exceeded");
  });

  it("is renewed by progress, up to --max-time", () => {
    const deadline = new Clock({ timeout: 1_000, maxTime: 2_500 }).request();
    vi.advanceTimersByTime(900);
    deadline.renew();
    vi.advanceTimersByTime(900);
    deadline.renew();
    expect(deadline.signal.aborted).toBe(false);
    // 1 800 ms run: --max-time leaves 700, less than a new window.
    vi.advanceTimersByTime(699);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
  });

  it("ends at --max-time when that is below --timeout", () => {
    const deadline = new Clock({ timeout: 30_000, maxTime: 12_000 }).request();
    vi.advanceTimersByTime(11_999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
  });

  it("stops while the user is asked, in --timeout and in --max-time alike", () => {
    const clock = new Clock({ timeout: 1_000, maxTime: 1_500 });
    const deadline = clock.request();
    vi.advanceTimersByTime(800);
    clock.asking.begin();
    vi.advanceTimersByTime(60_000);
    expect(deadline.signal.aborted).toBe(false);
    clock.asking.end();
    vi.advanceTimersByTime(199);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
  });

  it("nested questions: the clock runs again only when the last one ends", () => {
    const clock = new Clock({ timeout: 1_000, maxTime: 5_000 });
    const deadline = clock.request();
    clock.asking.begin();
    clock.asking.begin();
    clock.asking.end();
    vi.advanceTimersByTime(10_000);
    expect(deadline.signal.aborted).toBe(false);
    clock.asking.end();
    vi.advanceTimersByTime(1_000);
    expect(deadline.signal.aborted).toBe(true);
  });

  it("a settled request's deadline never fires, and a later question leaves it alone", () => {
    const clock = new Clock({ timeout: 1_000, maxTime: 5_000 });
    const deadline = clock.request();
    deadline.dispose();
    clock.asking.begin();
    clock.asking.end();
    vi.advanceTimersByTime(10_000);
    expect(deadline.signal.aborted).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
