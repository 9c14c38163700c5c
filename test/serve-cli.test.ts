// `conduit-mcp serve` as users run it (the built CLI), with the official client as the host:
// over stdio (what a desktop host launches) in front of server-filesystem and server-everything,
// in both eras, ending when the host closes stdin with every upstream process gone; over HTTP in
// front of one server (names unchanged), ending on SIGTERM with its port released.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as SdkClient } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI } from "./support/cli.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, OFFICIAL_SERVER, waitFor } from "./support/index.js";
import { httpHost, textOf } from "./support/serve.js";

/** Processes whose command line mentions `marker` (the upstream servers started for this test). */
function processesWith(marker: string): number {
  const out = execFileSync("ps", ["-eo", "args"], { encoding: "utf8" });
  return out.split("\n").filter((l) => l.includes(marker) && !l.startsWith("ps ")).length;
}

describe("conduit-mcp serve", () => {
  let dir: string;
  let config: string;

  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "serve-cli-")));
    writeFileSync(join(dir, "a.txt"), "hello from the filesystem");
    config = join(dir, "mcp.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          fs: { command: process.execPath, args: [FILESYSTEM_SERVER, dir] },
          everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] },
        },
      }),
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(["legacy", "modern"] as const)(
    "serves a config file over stdio to a %s host and stops when the host closes stdin",
    async (era) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "--config", config],
        stderr: "ignore",
      });
      const host = new SdkClient(
        { name: "desktop", version: "1.0.0" },
        era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
      );
      await host.connect(transport);
      const pid = transport.pid!;
      const names = (await host.listTools()).tools.map((t) => t.name);
      expect(names).toContain("mcp__fs__read_text_file");
      expect(names).toContain("mcp__everything__echo");
      const read = await host.callTool({
        name: "mcp__fs__read_text_file",
        arguments: { path: join(dir, "a.txt") },
      });
      expect(textOf(read)).toContain("hello from the filesystem");
      const echo = await host.callTool({ name: "mcp__everything__echo", arguments: { message: "hey" } });
      expect(textOf(echo)).toContain("hey");
      expect(processesWith(dir)).toBeGreaterThanOrEqual(1);
      await host.close();
      // serve and its upstream processes are gone.
      await waitFor(() => !alive(pid) && processesWith(dir) === 0, 10_000);
    },
    40_000,
  );

  it("puts a --policy ask to a stdio host as an elicitation and audits the call", async () => {
    const policy = join(dir, "policy.json");
    const audit = join(dir, "audit.jsonl");
    writeFileSync(policy, JSON.stringify([{ server: "fs", tool: "read_*", decision: "ask" }]));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "--config", config, "--policy", policy, "--audit", audit],
      stderr: "ignore",
    });
    const host = new SdkClient(
      { name: "desktop", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } } },
    );
    const asked: string[] = [];
    host.setRequestHandler("elicitation/create", async (req) => {
      asked.push(String((req.params as { message?: string }).message));
      return { action: "accept", content: { allow: true } };
    });
    await host.connect(transport);
    try {
      const read = await host.callTool({
        name: "mcp__fs__read_text_file",
        arguments: { path: join(dir, "a.txt") },
      });
      expect(textOf(read)).toContain("hello from the filesystem");
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("mcp__fs__read_text_file");
    } finally {
      await host.close();
    }
    await waitFor(() => existsSync(audit) && readFileSync(audit, "utf8").includes("read_text_file"), 10_000);
    const line = JSON.parse(readFileSync(audit, "utf8").trim().split("\n")[0]!);
    expect(line).toMatchObject({
      principal: null,
      server: "fs",
      tool: "read_text_file",
      decision: "ask",
      outcome: "ok",
    });
  }, 40_000);

  it("serves one server over HTTP with its names unchanged and stops on SIGTERM", async () => {
    // The fixture ignores arguments after the era: this one finds its process again.
    const marker = `serve-cli-marker-${process.pid}-${Date.now()}`;
    const upstream = [process.execPath, OFFICIAL_SERVER, "dual", marker];
    const child = spawn(process.execPath, [CLI, "serve", "--http", "127.0.0.1:0", "--", ...upstream], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
    try {
      await waitFor(() => /listening on (\S+)/.test(stderr), 15_000);
      const url = /listening on (\S+)/.exec(stderr)![1]!;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const host = await httpHost(url, "modern");
      const names = (await host.listTools()).tools.map((t) => t.name);
      expect(names).toContain("echo");
      // serve itself (the marker is in its command line too) and one upstream process.
      expect(processesWith(marker)).toBe(2);
      expect(textOf(await host.callTool({ name: "echo", arguments: { message: "plain" } }))).toBe("plain");
      await host.close();
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      const port = Number(new URL(url).port);
      await expect(
        new Promise((resolve, reject) => {
          const s = connect(port, "127.0.0.1", () => resolve(s.end()));
          s.on("error", reject);
        }),
      ).rejects.toThrow(/ECONNREFUSED/);
      expect(processesWith(marker)).toBe(0);
    } finally {
      // A failed assertion must not leave serve (and its upstream) running.
      if (child.exitCode === null) child.kill("SIGTERM");
    }
  }, 40_000);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
