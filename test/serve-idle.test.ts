/**
 * Eight hours of idle (vitest fake timers for serve's sweep and the clock; I/O and the libraries'
 * timeouts stay real): sessions abandoned by their hosts (no DELETE) are closed after the default
 * 30-minute idle timeout, serve's timers do not pile up, the heap does not grow, and serve still
 * answers afterwards. The upstream is the official server fixture behind a hub.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { officialServer, silentLogger } from "./support/index.js";
import { httpHost, type ServedHub, serveHub } from "./support/serve.js";

const HOUR = 3_600_000;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe("serve: eight hours of idle", () => {
  let s: ServedHub;
  let served: ServeHandle;

  beforeAll(async () => {
    s = await serveHub({ input: false, servers: { official: { transport: officialServer("dual") } } });
  }, 30_000);

  afterAll(async () => {
    vi.useRealTimers();
    await served?.close();
    await s?.close();
  });

  it("closes abandoned sessions, keeps its timers and heap flat, and still serves", async () => {
    // Only serve's idle sweep (an interval) and the clock are simulated.
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "Date"] });
    served = await serve(s.hub, { transport: { type: "http", port: 0 }, logger: silentLogger() });
    const timers = vi.getTimerCount();
    for (let i = 0; i < 20; i++) {
      const host = await httpHost(served.url!, i % 2 ? "legacy" : "modern");
      await host.callTool({ name: "mcp__official__add", arguments: { a: i, b: 1 } });
      // Closed without ending its session: only the idle timeout can free it.
      await host.close();
    }
    expect(served.sessions()).toBe(10);
    const heapBefore = heap();
    // Half an hour at a time, as the sweep sees it (it runs every 30 s).
    await vi.advanceTimersByTimeAsync(HOUR / 2 + 60_000);
    expect(served.sessions()).toBe(0);
    for (let h = 0; h < 15; h++) await vi.advanceTimersByTimeAsync(HOUR / 2);
    expect(served.sessions()).toBe(0);
    expect(vi.getTimerCount()).toBe(timers);
    // Ten sessions' worth freed, nothing of eight hours kept.
    expect(heap() - heapBefore).toBeLessThan(4 * 1024 * 1024);
    // Still serving, in both eras.
    for (const era of ["legacy", "modern"] as const) {
      const host = await httpHost(served.url!, era);
      const r = await host.callTool({ name: "mcp__official__add", arguments: { a: 2, b: 3 } });
      expect(r.structuredContent).toMatchObject({ sum: 5 });
      await host.close();
    }
    expect(s.hub.status().servers.official!.state).toBe("ready");
  }, 60_000);
});
