import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { Client, type TransitionEvent } from "../src/index.js";
import { fullJitter } from "../src/shared/backoff.js";
import { FakeServer } from "../src/testing/index.js";
import { waitFor } from "./support/async.js";
import {
  closeAll,
  recordEvents,
  recordingLogger,
  scriptedClient,
  scriptedTransport,
} from "./support/scripted.js";

afterEach(closeAll);

const dir = mkdtempSync(join(tmpdir(), "conduit-reconnect-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const stateFile = () => join(dir, `state-${n++}`);

/** Records a client's transitions with the time each happened. */
function transitions(c: Client) {
  const seen: Array<TransitionEvent & { at: number }> = [];
  c.onStateChange((e) => seen.push({ ...e, at: Date.now() }));
  return seen;
}

describe("backoff", () => {
  it("full jitter stays inside [1, min(30 000, 500 * 2 ** attempt)]", () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const cap = Math.min(30_000, 500 * 2 ** attempt);
      for (let i = 0; i < 200; i++) {
        const ms = fullJitter(attempt);
        expect(Number.isInteger(ms)).toBe(true);
        expect(ms).toBeGreaterThanOrEqual(1);
        expect(ms).toBeLessThanOrEqual(cap);
      }
    }
    expect(fullJitter(3, { base: 1000, cap: 5000 })).toBeLessThanOrEqual(5000);
  });

  it("a backoff that throws or returns junk falls back to the default, reported once", async () => {
    const logger = recordingLogger();
    const results: unknown[] = [() => -1, () => 1.5, () => Number.NaN, () => "10"];
    let i = 0;
    const rec = recordEvents("connection:backoff_invalid");
    try {
      const c = scriptedClient(
        // Ready once (modern: one start per attempt); after its exit, four starts exit at once.
        { startFailures: { file: stateFile(), from: 1, count: 4 } },
        {
          logger,
          backoff: (attempt) => {
            if (attempt === 0) throw new Error("boom");
            return (results[i++ % results.length] as () => number)();
          },
        },
      );
      const seen = transitions(c);
      await c.ready({ timeout: 15_000 });
      await c.callTool("exit", {}).catch(() => {});
      await c.callTool("echo", {}, { timeout: 15_000 });
      // Five waits, each bad in its own way: one warning and one event, for the first.
      expect(seen.filter((e) => e.to === "reconnecting")).toHaveLength(5);
      expect(logger.lines.filter((l) => l.includes("backoff"))).toEqual([
        expect.stringContaining("the backoff function threw; using the default"),
      ]);
      expect(rec.of("connection:backoff_invalid")).toEqual([
        expect.objectContaining({ problem: "threw", attempt: 0 }),
      ]);
      const event = rec.of("connection:backoff_invalid")[0]!;
      expect(event.delay).toBeGreaterThanOrEqual(1);
      expect(event.delay).toBeLessThanOrEqual(500);
    } finally {
      rec.stop();
    }
  });
});

describe("sixteen clients that lose one server at the same moment", () => {
  it("spread their first retries over the backoff window (full jitter from the first attempt)", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    const clients: Client[] = [];
    try {
      const server = new FakeServer();
      server.tool("bye", { type: "object" }, () => ({ content: [] }));
      const firstRetryAt = new Map<number, number>();
      for (let i = 0; i < 16; i++) {
        const c = new Client({ name: `herd-${i}`, transport: { type: "in-process", server } });
        c.onStateChange((e) => {
          if (e.from === "reconnecting" && e.to === "connecting" && !firstRetryAt.has(i)) {
            firstRetryAt.set(i, Date.now());
          }
        });
        clients.push(c);
      }
      await Promise.all(clients.map((c) => c.ready()));
      // The server hangs up on every client at once.
      server.fail("bye", { close: true });
      const lost = Date.now();
      await Promise.all(clients.map((c) => c.callTool("bye", {}).catch(() => {})));
      expect(clients.every((c) => c.status().state === "reconnecting")).toBe(true);
      // Attempt 0's window is [1, 500] ms.
      for (let t = 0; t < 500 && firstRetryAt.size < 16; t += 5) await vi.advanceTimersByTimeAsync(5);
      const delays = [...firstRetryAt.values()].map((at) => at - lost);
      expect(delays).toHaveLength(16);
      for (const d of delays) {
        expect(d).toBeGreaterThanOrEqual(1);
        expect(d).toBeLessThanOrEqual(500);
      }
      // Spread, not in lockstep: with 16 uniform draws over 100 steps of 5 ms, far more than 4
      // distinct moments (all in one step has odds of about 1e-30).
      expect(new Set(delays).size).toBeGreaterThan(4);
    } finally {
      vi.useRealTimers();
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe("reconnects", () => {
  it("a call that waits through failed reconnects past its deadline says why the server was down", async () => {
    // Ready once, then every start exits at once: the call queues, and its deadline comes first.
    const c = scriptedClient(
      { startFailures: { file: stateFile(), from: 1, count: 100 } },
      { backoff: () => 50 },
    );
    await c.ready({ timeout: 10_000 });
    await c.callTool("exit", {}).catch(() => {});
    await waitFor(() => c.status().state !== "ready", "the client to notice the exit", 5_000);
    const err = await c.callTool("echo", {}, { timeout: 800 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "timeout", reason: "deadline_exceeded" });
    expect((err as Error).cause).toMatchObject({ kind: "transport", reason: "server_exited" });
    // A call the server was given and never answered has no such cause: the server was up.
    await c.close();
    const slow = scriptedClient();
    await slow.ready({ timeout: 10_000 });
    const late = await slow.callTool("hang", {}, { timeout: 300 }).catch((e: unknown) => e);
    expect(late).toMatchObject({ kind: "timeout", reason: "deadline_exceeded" });
    expect((late as Error).cause).toBeUndefined();
  });

  it("a crash loop: delays stay in the full-jitter envelope and maxReconnects is honoured", async () => {
    // Ready once, then every start exits at once.
    const c = scriptedClient(
      { startFailures: { file: stateFile(), from: 1, count: 100 } },
      { maxReconnects: 3 },
    );
    const seen = transitions(c);
    await c.ready({ timeout: 10_000 });
    await c.callTool("exit", {}).catch(() => {});
    await waitFor(() => c.status().state === "closed", "the client to give up", 20_000);
    await expect(c.ready({ timeout: 10_000 })).rejects.toMatchObject({ kind: "closed" });
    const reconnecting = seen.filter((e) => e.to === "reconnecting");
    expect(reconnecting.map((e) => e.attempt)).toEqual([1, 2, 3]);
    // Each wait, from "reconnecting" to the next "connecting", fits its attempt's envelope.
    reconnecting.forEach((r, attempt) => {
      const next = seen.find((e) => e.at >= r.at && e.from === "reconnecting" && e.to === "connecting")!;
      expect(next.at - r.at).toBeLessThanOrEqual(Math.min(30_000, 500 * 2 ** attempt) + 50);
    });
    expect(c.status()).toMatchObject({ state: "closed" });
    expect(c.status().reason).toContain("server_exited");
  });

  it('onGiveUp "stay": closed with the reason, and reconnect() revives it', async () => {
    const file = stateFile();
    // Ready once; after its exit the one reconnect's start exits at once.
    const c = scriptedClient(
      { startFailures: { file, from: 1, count: 1 } },
      { maxReconnects: 1, backoff: () => 5 },
    );
    await c.ready({ timeout: 5000 });
    await c.callTool("exit", {}).catch(() => {});
    await expect(c.callTool("echo", {})).rejects.toMatchObject({ kind: "closed", reason: "server_exited" });
    expect(c.status().reason).toContain("server_exited");
    await c.reconnect(); // the third start succeeds
    await c.ready();
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it('onGiveUp "stop": closed for good, said through onStateChange; reconnect() refuses', async () => {
    const c = scriptedClient(
      { startFailures: { file: stateFile(), count: 100 } },
      { maxReconnects: 1, backoff: () => 5, onGiveUp: "stop" },
    );
    const seen = transitions(c);
    await expect(c.ready({ timeout: 5000 })).rejects.toMatchObject({ kind: "closed" });
    expect(seen.at(-1)).toMatchObject({ to: "closed" });
    await expect(c.reconnect()).rejects.toMatchObject({ kind: "closed", reason: "stopped" });
    await expect(c.callTool("echo", {})).rejects.toMatchObject({ kind: "closed" });
  });

  it("stableAfter: the attempt count resets only after the connection stayed ready that long", async () => {
    // Ready for ~400 ms each time, stable after 150: it never runs out of its one reconnect.
    const stable = scriptedClient(
      { exitAfter: 400 },
      { maxReconnects: 1, stableAfter: 150, backoff: () => 5 },
    );
    const stableSeen = transitions(stable);
    await waitFor(() => stableSeen.filter((e) => e.to === "ready").length >= 3, 8000);
    expect(stable.status().state).not.toBe("closed");
    // Ready for ~150 ms each time, stable only after 2 s: the second crash gives up.
    const flaky = scriptedClient(
      { exitAfter: 150 },
      { maxReconnects: 1, stableAfter: 2000, backoff: () => 5 },
    );
    const flakySeen = transitions(flaky);
    await waitFor(() => flaky.status().state === "closed", 8000);
    expect(flakySeen.filter((e) => e.to === "ready")).toHaveLength(2);
  });

  it("a call made during an outage succeeds once the server is back", async () => {
    const c = scriptedClient({}, { backoff: () => 300 });
    await c.ready();
    await c.callTool("exit", {}).catch(() => {});
    expect(c.status().state).toBe("reconnecting");
    const seen = transitions(c);
    const r = await c.callTool("echo", { during: "outage" });
    expect(r.isError).toBe(false);
    // It waited for the new connection (the backoff's length is the backoff tests' business).
    expect(seen.map((e) => e.to)).toEqual(["connecting", "discovering", "ready"]);
    expect(c.era()).toBe("modern"); // the era survives
  });

  it("a call made during an outage that lasts fails with timeout", async () => {
    const c = scriptedClient(
      { startFailures: { file: stateFile(), from: 1, count: 1000 } },
      { backoff: () => 50 },
    );
    await c.ready();
    await c.callTool("exit", {}).catch(() => {});
    await expect(c.callTool("echo", {}, { timeout: 300 })).rejects.toMatchObject({ kind: "timeout" });
    expect(c.status().state).not.toBe("ready");
    expect(c.status().state).not.toBe("closed");
  });

  it("a call in flight when the server died fails with transport and is never sent again", async () => {
    const file = stateFile();
    const c = scriptedClient({ stateFile: file }, { backoff: () => 20 });
    await c.ready();
    const hanging = c.callTool("hang", {}).catch((e) => e);
    await c.callTool("exit", {}).catch(() => {});
    expect(await hanging).toMatchObject({ kind: "transport" });
    await c.ready();
    await c.callTool("echo", {});
    const calls = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("tools/call"));
    expect(calls).toEqual(["tools/call hang", "tools/call exit", "tools/call echo"]);
  });

  it("modern stays modern across reconnects: never a downgrade", async () => {
    const file = stateFile();
    const c = scriptedClient({ stateFile: file }, { backoff: () => 10 });
    await c.ready();
    await c.callTool("exit", {}).catch(() => {});
    await c.ready();
    expect(c.era()).toBe("modern");
    expect(readFileSync(file, "utf8")).not.toContain("initialize");
  });

  it("health checks: two unanswered in a row restart the transport", async () => {
    const c = scriptedClient({}, { healthCheckInterval: 100, backoff: () => 10 });
    const seen = transitions(c);
    await c.ready();
    void c.callTool("freeze", {}).catch(() => {});
    await waitFor(() => seen.some((e) => e.to === "reconnecting"));
    expect(seen.find((e) => e.to === "reconnecting")!.reason).toBe("transport: health_check_failed");
    await c.ready();
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("health checks keep a healthy connection alone (legacy ping too)", async () => {
    for (const protocol of ["modern", "legacy"] as const) {
      // In process, so what the client sent is on record: the checks went out, and were answered.
      const server = new FakeServer();
      const c = new Client({
        name: "health",
        transport: { type: "in-process", server },
        healthCheckInterval: 50,
        protocol,
      });
      const seen = transitions(c);
      await c.ready();
      const method = protocol === "modern" ? "server/discover" : "ping";
      const handshake = server.callsOf(method).length;
      // Three checks answered (a missed one twice in a row would have restarted the connection).
      await waitFor(() => server.callsOf(method).length >= handshake + 3, "three health checks");
      expect(seen.filter((e) => e.to === "reconnecting")).toHaveLength(0);
      expect(c.status().state).toBe("ready");
      await c.close();
    }
  });

  it("a configuration fault is not retried: command_not_found closes at once", async () => {
    const c = new Client({ name: "bad", transport: { type: "stdio", command: "no-such-server-abc" } });
    const seen = transitions(c);
    await expect(c.ready({ timeout: 5000 })).rejects.toMatchObject({
      kind: "closed",
      reason: "command_not_found",
    });
    // At once: no attempt to reconnect came before the close.
    expect(seen.map((e) => e.to)).toEqual(["closed"]);
    await c.close();
  });

  it("no timer, pipe or process is left after close() in the middle of a backoff", async () => {
    const count = () =>
      process
        .getActiveResourcesInfo()
        .filter((r) => r === "Timeout" || r === "ProcessWrap" || r === "PipeWrap").length;
    const before = count();
    const c = new Client({
      name: "mid-backoff",
      transport: scriptedTransport(),
      // The scripted server answers tools it does not list (exit among them).
      callUnlistedTools: true,
      backoff: () => 60_000,
    });
    await c.ready();
    await c.callTool("exit", {}).catch(() => {});
    await waitFor(() => c.status().state === "reconnecting");
    await c.close();
    // The exited server's process handle is released a turn of the loop after its exit.
    await waitFor(() => count() <= before, "the handles to be released", 2000);
  });
});
