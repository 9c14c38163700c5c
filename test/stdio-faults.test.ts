import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Client, McpClientError, Secret } from "../src/index.js";
import { waitFor, watch } from "./support/async.js";
import {
  alive,
  closeAll,
  recordEvents,
  recordingLogger,
  SCRIPTED,
  scriptedClient,
  scriptedTransport,
} from "./support/scripted.js";
import { WireTap } from "./support/wire-tap.js";

afterEach(closeAll);

/** A fresh client of a well-behaved scripted server, to show that the fault left nothing broken. */
async function stillWorks(client?: Client): Promise<void> {
  const c = client ?? scriptedClient();
  const r = await c.callTool("echo", { ok: true });
  expect(r.isError).toBe(false);
}

describe("stdio faults, each with its typed error and a client that still works", () => {
  it("junk lines under the limit are skipped with a warning", async () => {
    const logger = recordingLogger();
    const c = scriptedClient({ junkBefore: 3 }, { logger });
    await c.ready();
    expect((await c.callTool("junk", { lines: 5 })).content[0]).toMatchObject({ text: "after junk" });
    expect(logger.lines.some((l) => l.includes("not JSON-RPC"))).toBe(true);
    await stillWorks(c);
  });

  it("junk lines over the limit close the transport (junk_output) and fail what is pending", async () => {
    const c = scriptedClient({}, { backoff: () => 10 }, { maxJunkLines: 5 });
    await c.ready();
    const err = await c.callTool("junk", { lines: 6 }).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "transport", reason: "junk_output" });
    expect(c.status()).toMatchObject({ state: "reconnecting", reason: "transport: junk_output" });
    // It comes back on its own, with a new server.
    await stillWorks(c);
    // With no reconnects allowed, it stays closed and says why.
    const once = scriptedClient({}, { maxReconnects: 0 }, { maxJunkLines: 5 });
    await once.callTool("junk", { lines: 6 }).catch(() => {});
    expect(once.status()).toMatchObject({ state: "closed", reason: "transport: junk_output" });
    await expect(once.callTool("echo", {})).rejects.toMatchObject({ kind: "closed", reason: "junk_output" });
  });

  it("an over-long line closes the transport with message_too_large and stops the server", async () => {
    const c = scriptedClient({ grandchild: true }, { maxReconnects: 0 }, { maxMessageBytes: 64 * 1024 });
    await c.ready();
    const { pid } = (await c.callTool("grandchild", {})).structured as { pid: number };
    expect(alive(pid)).toBe(true);
    const err = await c.callTool("huge", { bytes: 100 * 1024 }).catch((e) => e);
    expect(err).toMatchObject({ kind: "message_too_large" });
    expect(c.status().state).toBe("closed");
    await c.close();
    expect(alive(pid)).toBe(false);
    await stillWorks();
  });

  it("a line just under the cap is fine", async () => {
    const c = scriptedClient({}, {}, { maxMessageBytes: 64 * 1024 });
    const r = await c.callTool("huge", { bytes: 60 * 1024 });
    expect((r.content[0] as { text: string }).text).toHaveLength(60 * 1024);
  });

  it("a response for an unknown id is dropped (response:dropped) and the right one is used", async () => {
    const rec = recordEvents("response:dropped");
    const c = scriptedClient();
    const r = await c.callTool("unknown-id", {});
    rec.stop();
    expect(r.content[0]).toMatchObject({ text: "right one" });
    expect(rec.of("response:dropped").map((e) => e.requestId)).toContain(999999);
    await stillWorks(c);
  });

  it("a late response after a timeout: timeout, cancelled on the wire, the late answer dropped", async () => {
    const rec = recordEvents("request:cancel", "response:dropped");
    const c = scriptedClient();
    await c.ready();
    const err = await c.callTool("late", { ms: 400 }, { timeout: 100 }).catch((e) => e);
    // The timeout came first: the late answer has not arrived yet.
    expect(rec.of("response:dropped")).toEqual([]);
    expect(err).toMatchObject({ kind: "timeout" });
    const cancel = rec.of("request:cancel")[0]!;
    expect(cancel).toMatchObject({ method: "tools/call", reason: "timeout" });
    await waitFor(
      () => rec.of("response:dropped").some((e) => e.requestId === cancel.requestId),
      "the late answer to be dropped",
    );
    rec.stop();
    const seen = (await c.callTool("cancellations", {})).structured as { cancelled: unknown[] };
    expect(seen.cancelled).toContain(cancel.requestId);
    await stillWorks(c);
  });

  it("messages sent in one tick (written together) reach the server in the order they were sent", async () => {
    const rec = recordEvents("request:cancel");
    const c = scriptedClient();
    await c.ready();
    const aborts = Array.from({ length: 6 }, () => new AbortController());
    const calls = aborts.map((ac) => c.callTool("hang", {}, { signal: ac.signal }).catch((e) => e));
    // Let the six requests go out, then cancel them in one tick, in a shuffled order.
    await c.callTool("echo", {});
    for (const i of [3, 0, 5, 1, 4, 2]) aborts[i]!.abort(new Error("stop"));
    await Promise.all(calls);
    rec.stop();
    const sent = rec.of("request:cancel").map((e) => e.requestId);
    expect(sent).toHaveLength(6);
    const seen = (await c.callTool("cancellations", {})).structured as { cancelled: unknown[] };
    expect(seen.cancelled).toEqual(sent);
    await stillWorks(c);
  });

  it("a server that exits mid-call: the call fails with transport, and is not sent again", async () => {
    const c = scriptedClient({}, { backoff: () => 10 });
    await c.ready();
    const other = c.callTool("hang", {}).catch((e) => e);
    const err = await c.callTool("exit", { code: 3 }).catch((e) => e);
    expect(err).toMatchObject({ kind: "transport", reason: "server_exited" });
    expect(err.data).toMatchObject({ code: 3 });
    expect(await other).toMatchObject({ kind: "transport" });
    expect(c.status()).toMatchObject({ state: "reconnecting" });
    expect(c.status().reason).toContain("server_exited");
    await c.ready();
    // The new server saw no request from before: nothing that may have run was resent.
    const seen = (await c.callTool("cancellations", {})).structured as { cancelled: unknown[] };
    expect(seen.cancelled).toEqual([]);
    await stillWorks(c);
  });

  it("a server that never answers: timeout, and the client keeps working", async () => {
    const c = scriptedClient();
    await expect(c.callTool("hang", {}, { timeout: 150 })).rejects.toMatchObject({
      kind: "timeout",
      reason: "deadline_exceeded",
    });
    await stillWorks(c);
  });

  it("a server that ignores SIGTERM and stdin EOF is SIGKILLed after the graces", async () => {
    const tap = new WireTap(scriptedTransport({ ignoreTerm: true }, { stdinGrace: 150, termGrace: 150 }));
    // callUnlistedTools: grandchild is one of the scripted server's unlisted cues.
    const c = new Client({ name: "stubborn", transport: tap, callUnlistedTools: true });
    await c.ready();
    const { pid } = (await c.callTool("grandchild", {})).structured as { pid: number | null };
    expect(pid).toBeNull(); // no grandchild here; the server itself is the test
    const server = tap.pid!;
    // The graces on a fake clock (the process and its pipes are real); the signals sent to the
    // server's group are recorded as they go.
    const signals: unknown[] = [];
    const kill = process.kill.bind(process);
    const spy = vi.spyOn(process, "kill").mockImplementation((target, signal) => {
      if (Math.abs(target) === server && signal !== 0) signals.push(signal);
      return kill(target, signal);
    });
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const closing = watch(c.close());
      await vi.advanceTimersByTimeAsync(149);
      expect(signals).toEqual([]); // stdin ended: the first grace
      await vi.advanceTimersByTimeAsync(1);
      expect(signals).toEqual(["SIGTERM"]);
      await vi.advanceTimersByTimeAsync(149);
      expect(signals).toEqual(["SIGTERM"]); // ignored: the second grace
      await vi.advanceTimersByTimeAsync(1);
      expect(signals).toEqual(["SIGTERM", "SIGKILL"]);
      // The rest of close() (reaping, the pipes closing) polls on the same clock.
      while (!closing.settled) {
        await vi.advanceTimersByTimeAsync(20);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await closing.promise;
    } finally {
      vi.useRealTimers();
      spy.mockRestore();
    }
    expect(alive(server)).toBe(false); // and then it was killed: close() resolved after its end
    expect(c.status().state).toBe("closed");
    await stillWorks();
  });

  it("closing stops the whole process group: no grandchild outlives the server", async () => {
    const c = scriptedClient({ grandchild: true });
    const { pid } = (await c.callTool("grandchild", {})).structured as { pid: number };
    expect(alive(pid)).toBe(true);
    await c.close();
    expect(alive(pid)).toBe(false);
  });

  it("a command that does not exist fails the connection with a typed error", async () => {
    const c = new Client({
      name: "missing",
      transport: { type: "stdio", command: "no-such-mcp-server-xyz" },
    });
    await expect(c.ready()).rejects.toMatchObject({ kind: "closed", reason: "command_not_found" });
    await expect(c.listTools()).rejects.toBeInstanceOf(McpClientError);
    await c.close();
  });

  it("a file that exists but cannot be executed says so", async () => {
    const c = new Client({ name: "noexec", transport: { type: "stdio", command: SCRIPTED } });
    await expect(c.ready()).rejects.toMatchObject({ kind: "closed", reason: "command_not_executable" });
    await c.close();
  });

  it("a cd that does not exist fails the connection with a typed error", async () => {
    const c = scriptedClient({}, {}, { cd: "/no/such/dir/anywhere" });
    await expect(c.ready()).rejects.toMatchObject({ kind: "closed", reason: "cd_not_a_directory" });
  });
});

describe("the stdio options", () => {
  it("the server inherits only HOME LOGNAME PATH SHELL TERM USER, plus env (Secrets revealed to it only)", async () => {
    process.env.CONDUIT_TEST_LEAK = "should-not-pass";
    const token = new Secret("tok-ABCDEFGH-123456");
    const c = scriptedClient({}, {}, { env: { GITHUB_TOKEN: token, PLAIN: "1" } });
    const env = (await c.callTool("env", {})).structured as Record<string, string>;
    delete process.env.CONDUIT_TEST_LEAK;
    expect(env.GITHUB_TOKEN).toBe("tok-ABCDEFGH-123456");
    expect(env.PLAIN).toBe("1");
    expect(env.CONDUIT_TEST_LEAK).toBeUndefined();
    const allowed = new Set(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "GITHUB_TOKEN", "PLAIN"]);
    // Node itself may add nothing; anything else came from us.
    expect(Object.keys(env).filter((k) => !allowed.has(k))).toEqual([]);
  });

  it("env given as [name, value] pairs works too", async () => {
    const c = scriptedClient({}, {}, { env: [["A_VAR", "a"]] });
    const env = (await c.callTool("env", {})).structured as Record<string, string>;
    expect(env.A_VAR).toBe("a");
  });

  it("cd sets the working directory", async () => {
    const c = scriptedClient({}, {}, { cd: tmpdir() });
    expect((await c.callTool("cwd", {})).content[0]).toMatchObject({ text: tmpdir() });
  });

  it("stderr to a file is appended, and discard discards", async () => {
    const file = join(tmpdir(), `conduit-stderr-${process.pid}-${Date.now()}.log`);
    try {
      const c = scriptedClient({}, {}, { stderr: { file } });
      await c.callTool("stderr", { text: "first" });
      await c.close();
      const d = scriptedClient({}, {}, { stderr: { file } });
      await d.callTool("stderr", { text: "second" });
      await d.close();
      expect(readFileSync(file, "utf8")).toBe("first\nsecond\n");
    } finally {
      rmSync(file, { force: true });
    }
  });

  it.each([
    [{ command: "npx -y server" }, "transport.command"],
    [{ command: "./relative" }, "transport.command"],
    [{ command: "" }, "transport.command"],
    [{ command: "node", args: "x" }, "transport.args"],
    [{ command: "node", args: [1] }, "transport.args[0]"],
    [{ command: "node", cd: "relative/dir" }, "transport.cd"],
    [{ command: "node", stderr: "merge" }, "transport.stderr"],
    [{ command: "node", stderr: { file: "rel.log" } }, "transport.stderr.file"],
    [{ command: "node", env: { A: 1 } }, "transport.env.A"],
    [{ command: "node", maxJunkLines: -1 }, "transport.maxJunkLines"],
    [{ command: "node", maxMessageBytes: 1.5 }, "transport.maxMessageBytes"],
    [{ command: "node", stdinGrace: "2s" }, "transport.stdinGrace"],
    [{ command: "node", bogus: true }, "transport.bogus"],
    [{ command: "server.cmd" }, "transport.command"],
    [{ command: "server.bat", allowBatchFiles: true, args: ["a&b"] }, "transport.args[0]"],
  ])("refuses %j naming %s, before any I/O", (transport, key) => {
    expect(() => new Client({ name: "x", transport: { type: "stdio", ...transport } as never })).toThrow(
      new RegExp(key.replace(/[.[\]]/g, "\\$&")),
    );
  });

  it("a batch file is accepted with allowBatchFiles", async () => {
    const make = () =>
      new Client({
        name: "x",
        transport: { type: "stdio", command: "/opt/server.cmd", allowBatchFiles: true, args: ["ok"] },
      });
    let c: Client | undefined;
    expect(() => {
      c = make();
    }).not.toThrow();
    // Past validation it goes as far as looking for the file (which this machine does not have).
    await expect(c!.ready({ timeout: 5000 })).rejects.toMatchObject({
      kind: "closed",
      reason: "command_not_found",
    });
    await c!.close();
  });
});
