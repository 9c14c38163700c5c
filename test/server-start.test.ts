/**
 * Issue 23 (starting and restarting servers) over stdio: how many processes a client starts, and
 * what it says about a server that never became ready. Spawns are counted by the scripted server
 * itself (`pidFile`: each start appends its pid).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Client, type ConnectionState, McpClientError } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { closeAll, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

const dir = mkdtempSync(join(tmpdir(), "conduit-server-start-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const tempFile = () => join(dir, `file-${n++}`);
const starts = (pidFile: string): number => {
  try {
    return readFileSync(pidFile, "utf8").split("\n").filter(Boolean).length;
  } catch {
    return 0;
  }
};
const statesOf = (c: Client): ConnectionState[] => {
  const seen: ConnectionState[] = [];
  c.onStateChange((e) => seen.push(e.to));
  return seen;
};

describe("maxReconnects bounds the processes started", () => {
  it("a server that exits on the probe and dies after each ready: 1 + maxReconnects starts", async () => {
    const pids = tempFile();
    // rmcp-style: exits on server/discover; met with initialize it is ready, then dies 1 s later.
    const c = scriptedClient(
      { probe: "exit", exitAfter: 1000, pidFile: pids },
      { maxReconnects: 2, backoff: () => 5, stableAfter: 60_000 },
    );
    const seen = statesOf(c);
    await c.ready({ timeout: 20_000 });
    await waitFor(() => c.status().state === "closed", "the client to give up", 30_000);
    expect(starts(pids)).toBe(3);
    // Every start after the probe's restart met initialize at once: two readies, no third.
    expect(seen.filter((s) => s === "ready")).toHaveLength(2);
    expect(c.status().reason).toContain("server_exited");
  });

  it("a server that was ready once, then exits at once at every start: 1 + maxReconnects starts", async () => {
    const pids = tempFile();
    // The first start serves (legacy, so each reconnect probes again); every later one exits at once.
    const c = scriptedClient(
      { era: "legacy", pidFile: pids, startFailures: { file: tempFile(), from: 1, count: 100 } },
      { maxReconnects: 2, backoff: () => 5 },
    );
    await c.ready({ timeout: 20_000 });
    await c.callTool("exit", {}).catch(() => {});
    await waitFor(() => c.status().state === "closed", "the client to give up", 30_000);
    expect(starts(pids)).toBe(3);
  });
});

describe("a server that never became ready fails fast and says why", () => {
  it("closed / server_exited after two starts (the probe's and initialize's), with its exit and stderr", async () => {
    const pids = tempFile();
    // A script that throws at start-up, writing (coloured) words on stderr first.
    const c = scriptedClient(
      {
        pidFile: pids,
        startFailures: { file: tempFile(), count: 100 },
        stderrAtStart: "Error: \u001b[31mCannot find module\u001b[0m './missing.js'",
      },
      { requestTimeout: 20_000 },
    );
    const seen = statesOf(c);
    const err = await c.ready({ timeout: 20_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "closed", reason: "server_exited" });
    expect((err as McpClientError).data).toEqual({
      code: 7,
      signal: null,
      stderr: ["Error: Cannot find module './missing.js'"],
    });
    expect(starts(pids)).toBe(2);
    expect(seen).not.toContain("reconnecting");
    // Later calls say the same, without starting anything.
    await expect(c.callTool("echo", {})).rejects.toMatchObject({ kind: "closed", reason: "server_exited" });
    expect(starts(pids)).toBe(2);
  });

  it("stderr in data is the last lines only, each clamped", async () => {
    const long = "x".repeat(2000);
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}`).join("\n");
    const c = scriptedClient({
      startFailures: { file: tempFile(), count: 100 },
      stderrAtStart: `${lines}\n${long}`,
    });
    const err = (await c.ready({ timeout: 20_000 }).catch((e: unknown) => e)) as McpClientError;
    const stderr = (err.data as { stderr: string[] }).stderr;
    expect(stderr).toHaveLength(20);
    expect(stderr.at(-2)).toBe("line 39");
    expect(stderr.at(-1)!.length).toBeLessThanOrEqual(500);
  });

  it("a server started with npx that exits before it is ready: the hint names the environment and env", async () => {
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    const npx = join(bin, "npx");
    // What npx says for a misspelt package, then its exit: nothing on stdout.
    writeFileSync(
      npx,
      "#!/bin/sh\necho 'npm error 404 Not Found - GET https://registry.npmjs.org/@example%2fmisspelt' >&2\nexit 1\n",
    );
    chmodSync(npx, 0o755);
    const c = new Client({
      name: "npx",
      transport: { type: "stdio", command: npx, args: ["-y", "@example/misspelt"], stderr: "discard" },
    });
    try {
      const err = (await c.ready({ timeout: 20_000 }).catch((e: unknown) => e)) as McpClientError;
      expect(err).toMatchObject({ kind: "closed", reason: "server_exited" });
      const data = err.data as { code: number; stderr: string[]; hint: string };
      expect(data.code).toBe(1);
      expect(data.stderr).toEqual([
        "npm error 404 Not Found - GET https://registry.npmjs.org/@example%2fmisspelt",
      ]);
      expect(data.hint).toContain("minimal allowlist");
      expect(data.hint).toContain("env option");
      expect(data.hint).toMatch(/npm_config_registry.*HTTPS_PROXY/);
    } finally {
      await c.close();
    }
  });

  it("a server that was ready once is restarted when it exits (the backoff's business)", async () => {
    const pids = tempFile();
    const c = scriptedClient({ pidFile: pids }, { backoff: () => 5 });
    await c.ready();
    await c.callTool("exit", {}).catch(() => {});
    await waitFor(() => starts(pids) === 2 && c.status().state === "ready", "the restart", 20_000);
  });
});
