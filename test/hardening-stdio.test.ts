/**
 * Issue 9 over stdio: what hostile and broken servers got through, each against the scripted
 * server (both eras where the point applies). Reaching a server that exits on the probe, the
 * modern era's rule that servers send no requests, re-discover limits, `input_required` where it
 * cannot be, the end of stdout, a server that stops reading, reconnect storms, progress floods,
 * the client's own listen streams and a refused listen.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { PROGRESS_PER_TURN } from "../src/connection/dispatch.js";
import { McpClientError } from "../src/index.js";
import { guardedBackoff } from "../src/shared/backoff.js";
import { waitFor } from "./support/async.js";
import { alive, closeAll, recordEvents, recordingLogger, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

const dir = mkdtempSync(join(tmpdir(), "conduit-hardening-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tempFile = () => join(dir, `file-${n++}`);
const lines = (file: string): string[] => {
  try {
    return readFileSync(file, "utf8").split("\n").filter(Boolean);
  } catch {
    return [];
  }
};

const ERAS = ["modern", "legacy"] as const;
const eraConfig = (era: "modern" | "legacy") => (era === "modern" ? { era: "dual" } : { era: "legacy" });

describe("reaching a server that exits on the probe", () => {
  it("maxReconnects 0: the probe table's restart is part of connecting; tools are listed", async () => {
    const state = tempFile();
    const c = scriptedClient({ probe: "exit", stateFile: state }, { maxReconnects: 0 });
    const seen: string[] = [];
    c.onStateChange((e) => seen.push(e.to));
    const tools = await c.listAllTools();
    expect(tools.map((t) => t.name)).toContain("echo");
    expect(c.era()).toBe("legacy");
    // Not a reconnect: the attempt went on with a fresh server that met initialize.
    expect(seen).not.toContain("reconnecting");
    expect(lines(state).filter((l) => l === "server/discover")).toHaveLength(1);
    expect(lines(state).filter((l) => l === "initialize")).toHaveLength(1);
  });

  it("the restart is one per attempt: a server that always exits still fails, counted", async () => {
    const c = scriptedClient({ startFailures: { file: tempFile(), count: 100 } }, { maxReconnects: 0 });
    const err = await c.ready({ timeout: 5000 }).catch((e) => e);
    expect(err).toMatchObject({ kind: "closed", reason: "server_exited" });
  });
});

describe("the modern era: servers send no requests", () => {
  it("modern: a server's requests are dropped unanswered, with a warning and an event", async () => {
    const logger = recordingLogger();
    const rec = recordEvents("server_request:dropped");
    try {
      const c = scriptedClient({ era: "modern" }, { logger });
      await c.callTool("ask", { method: "ping" });
      await c.callTool("ask", { method: "sampling/createMessage" });
      const r = await c.callTool("answers", {});
      expect(r.structured).toEqual({ answers: [] });
      expect(rec.of("server_request:dropped").map((e) => e.method)).toEqual([
        "ping",
        "sampling/createMessage",
      ]);
      expect(logger.lines.filter((l) => l.includes("dropped a request from a modern server"))).toHaveLength(
        2,
      );
    } finally {
      rec.stop();
    }
  });

  it("legacy: server requests are still answered (ping with {}, unknown ones -32601)", async () => {
    const c = scriptedClient({ era: "legacy" });
    await c.callTool("ask", { method: "ping" });
    await c.callTool("ask", { method: "no/such" });
    const r = await c.callTool("answers", {});
    const answers = (r.structured as { answers: Array<Record<string, unknown>> }).answers;
    expect(answers).toMatchObject([
      { id: "srv-1", result: {} },
      { id: "srv-2", error: { code: -32601 } },
    ]);
  });

  it("-32022 to the probe: one re-discover, not two, before closing", async () => {
    const state = tempFile();
    const c = scriptedClient(
      { era: "modern", probe: "always-stale", stateFile: state },
      { maxReconnects: 0 },
    );
    await expect(c.ready({ timeout: 5000 })).rejects.toMatchObject({ kind: "closed" });
    expect(lines(state).filter((l) => l === "server/discover")).toHaveLength(2);
  });

  it("-32022 to a call on a ready connection: one re-discover, then the call fails", async () => {
    const state = tempFile();
    const c = scriptedClient({
      era: "modern",
      probe: "stale-after-first",
      stale32022: 1,
      stateFile: state,
    });
    await c.ready();
    const err = await c.callTool("echo", {}).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err.kind).toBe("protocol");
    expect(lines(state).filter((l) => l === "server/discover")).toHaveLength(2);
  });

  it("input_required in answer to server/discover (ping()) is a protocol error", async () => {
    const c = scriptedClient({ era: "modern", probe: "input-after-first" });
    await c.ready();
    await expect(c.ping()).rejects.toMatchObject({ kind: "protocol", reason: "unexpected_input_required" });
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });
});

describe("the end of stdout and the server's process", () => {
  it("stdout closed while the server lives: requests fail at once, then the shutdown sequence", async () => {
    const pids = tempFile();
    // The server ignores stdin's end and SIGTERM: only SIGKILL (after termGrace) ends it.
    const c = scriptedClient({ pidFile: pids, ignoreTerm: true }, { requestTimeout: 30_000 });
    await c.ready();
    const [pid] = lines(pids).map(Number);
    const pending = c.callTool("hang", {}).catch((e) => e);
    await c.callTool("close-stdout", {}).catch(() => {});
    const err = await pending;
    expect(err).toMatchObject({ kind: "transport" });
    await waitFor(() => !alive(pid!));
    // It comes back with a new server.
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("the server exits while a grandchild holds its stdout: a failure at once, the grandchild reaped", async () => {
    const c = scriptedClient({}, { requestTimeout: 30_000 });
    await c.ready();
    const pending = c.callTool("hang", {}).catch((e) => e);
    const r = await c.callTool("orphan-stdout", {});
    const grandchild = (r.structured as { pid: number }).pid;
    const err = await pending;
    expect(err).toMatchObject({ kind: "transport", reason: "server_exited" });
    await waitFor(() => !alive(grandchild));
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("a server that stops reading stdin: the write queue is bounded, what does not fit is overloaded", async () => {
    const limit = 1024 * 1024;
    const c = scriptedClient({}, { requestTimeout: 2000 }, { maxWriteQueueBytes: limit });
    await c.ready();
    await c.callTool("deaf", {});
    const big = "x".repeat(300 * 1024);
    const results = await Promise.all(
      Array.from({ length: 12 }, () => c.callTool("echo", { big }).catch((e) => e)),
    );
    const overloaded = results.filter((e) => McpClientError.is(e, "overloaded"));
    expect(overloaded.length).toBeGreaterThan(0);
    expect(overloaded[0]).toMatchObject({ reason: "write_queue_full" });
    // Nothing else got through either: the rest time out, none succeeded.
    expect(results.every((e) => e instanceof McpClientError)).toBe(true);
  });

  it("maxWriteQueueBytes must be a positive integer", () => {
    expect(() => scriptedClient({}, {}, { maxWriteQueueBytes: 0 })).toThrow(TypeError);
  });
});

describe("reconnect storms and backoff", () => {
  it("100 concurrent reconnect() calls coalesce into one; close() leaves no process", async () => {
    const pids = tempFile();
    const c = scriptedClient({ pidFile: pids });
    await c.ready();
    await Promise.all(Array.from({ length: 100 }, () => c.reconnect()));
    await c.ready();
    expect((await c.callTool("echo", {})).isError).toBe(false);
    // The first server and the one reconnect's.
    expect(lines(pids)).toHaveLength(2);
    await c.close();
    for (const pid of lines(pids).map(Number)) expect(alive(pid)).toBe(false);
  });

  it("reconnect() racing close(): nothing is started after close()", async () => {
    const pids = tempFile();
    const c = scriptedClient({ pidFile: pids });
    await c.ready();
    const storm = Array.from({ length: 20 }, () => c.reconnect().catch(() => {}));
    await c.close();
    await Promise.all(storm);
    for (const pid of lines(pids).map(Number)) expect(alive(pid)).toBe(false);
    expect(c.status().state).toBe("closed");
  });

  it("a backoff of 1e12 ms is clamped to maxBackoff, with a warning", async () => {
    const logger = recordingLogger();
    // Ready once; after its exit the second start exits at once, so the backoff runs twice.
    const c = scriptedClient(
      { startFailures: { file: tempFile(), from: 1, count: 1 } },
      { logger, backoff: () => 1e12, maxBackoff: 20 },
    );
    await c.ready({ timeout: 10_000 });
    await c.callTool("exit", {}).catch(() => {});
    expect((await c.callTool("echo", {})).isError).toBe(false);
    expect(logger.lines.filter((l) => l.includes("maxBackoff"))).toHaveLength(1);
  });

  it("bad backoff values are clamped or replaced, and reported once", () => {
    const reports: string[] = [];
    const values: Array<() => unknown> = [
      () => Number.NaN,
      () => -5,
      () => Number.POSITIVE_INFINITY,
      () => 2 ** 31,
      () => 1e300,
      () => "100",
      () => {
        throw new Error("boom");
      },
    ];
    let i = 0;
    const b = guardedBackoff(
      () => values[i++]!() as number,
      (bad) => reports.push(bad.problem),
      60_000,
    );
    const delays = values.map((_, attempt) => b(attempt));
    for (const d of delays) {
      expect(Number.isInteger(d)).toBe(true);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(60_000);
    }
    // Too large (Infinity included) waits maxBackoff; the rest get the default's envelope.
    expect([delays[2], delays[3], delays[4]]).toEqual([60_000, 60_000, 60_000]);
    expect(delays[0]).toBeLessThanOrEqual(500);
    expect(reports).toEqual(["not_a_delay"]);
  });

  it("the guard never hands a timer more than it can wait", () => {
    const warnings: string[] = [];
    const b = guardedBackoff(
      () => 1e12,
      (bad) => warnings.push(bad.text),
      300_000,
    );
    expect(b(0)).toBe(300_000);
    expect(
      guardedBackoff(
        () => 1e12,
        () => {},
      )(0),
    ).toBeLessThanOrEqual(2 ** 31 - 1);
    expect(warnings).toHaveLength(1);
  });
});

describe.each(ERAS)("progress floods (%s)", (era) => {
  it("a burst of 4 progress notifications read at once arrives as 4, in order, before the result", async () => {
    const c = scriptedClient(eraConfig(era));
    const seen: number[] = [];
    const r = await c.callTool("progress", { count: 4 }, { onProgress: (p) => void seen.push(p.progress) });
    seen.push(-1); // the result
    expect(r.content[0]).toMatchObject({ text: "progressed 4" });
    expect(seen).toEqual([1, 2, 3, 4, -1]);
  });

  it("10 000 progress notifications in a burst are coalesced past the rate; the latest always arrives", async () => {
    const c = scriptedClient(eraConfig(era));
    const seen: number[] = [];
    const r = await c.callTool("progress", { count: 10_000 }, { onProgress: (p) => seen.push(p.progress) });
    expect(r.content[0]).toMatchObject({ text: "progressed 10000" });
    expect(seen.length).toBeLessThan(10_000);
    expect(seen.at(-1)).toBe(10_000);
    // Never out of order, and one by one up to the rate: the first ones all arrive.
    expect(seen.slice(0, PROGRESS_PER_TURN)).toEqual(
      Array.from({ length: PROGRESS_PER_TURN }, (_, i) => i + 1),
    );
    expect(seen.every((v, i) => i === 0 || v > seen[i - 1]!)).toBe(true);
  });
});

describe("the client's own listen streams (modern)", () => {
  it("a listen takes none of the caller's maxInFlight slots", async () => {
    const c = scriptedClient({ era: "dual" }, { maxInFlight: 2 });
    await c.listAllTools();
    await c.listAllTools();
    const listens = await c.callTool("listens", {});
    expect((listens.structured as { listens: unknown[] }).listens.length).toBeGreaterThan(0);
    const both = await Promise.all([c.callTool("late", { ms: 50 }), c.callTool("late", { ms: 50 })]);
    expect(both.map((r) => r.isError)).toEqual([false, false]);
  });

  it("listChanged advertised but listen answered -32601: not reopened until a reconnect, one warning", async () => {
    const state = tempFile();
    const logger = recordingLogger();
    const c = scriptedClient({ listen: "refuse", stateFile: state }, { logger, backoff: () => 1 });
    await c.listAllTools();
    const listens = () => lines(state).filter((l) => l === "subscriptions/listen").length;
    await waitFor(() => listens() >= 1);
    // Interest again, and calls in between: no second listen.
    for (let i = 0; i < 3; i++) {
      await c.listAllTools({ refresh: true });
      await c.callTool("echo", {});
    }
    expect(listens()).toBe(1);
    expect(logger.lines.filter((l) => l.includes("refused subscriptions/listen"))).toHaveLength(1);
    // A new connection asks once more.
    await c.reconnect();
    await c.ready();
    await c.listAllTools();
    await waitFor(() => listens() >= 2);
    await c.callTool("echo", {});
    expect(listens()).toBe(2);
    expect(logger.lines.filter((l) => l.includes("refused subscriptions/listen"))).toHaveLength(1);
  });
});
