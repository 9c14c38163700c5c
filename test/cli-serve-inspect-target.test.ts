// `conduit-mcp serve` and `conduit-mcp inspect` read their target as every other command does
// (the built CLI, run as users run it): --header and --bearer-env reach the upstream (a recording
// proxy in front of test/fixtures/cli-watch-server.mjs, the official server package), --server
// picks one entry of a config file, and a secret of the file (a header built from a variable)
// never reaches stdout or stderr, even when the upstream refuses by echoing it.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, root } from "./support/cli.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { OFFICIAL_SERVER, waitFor } from "./support/index.js";
import { type RecordingProxy, recordingProxy } from "./support/recording-proxy.js";
import { closeHost, httpHost, textOf } from "./support/serve.js";

const TOKEN = "tok-5c1e9a7f3b2d4e60";
/** The config file's secret: only ever in the environment and on the wire. */
const SECRET = "cfg-secret-8d41b7e2a9";
const env = { SERVE_TARGET_TOKEN: TOKEN, SERVE_TARGET_SECRET: SECRET };

/** A long-running CLI process (serve, inspect) and everything it printed so far. */
interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

function start(args: string[]): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGINT");
      return exited;
    },
  };
}

/** serve --http's address, once it listens (fails with what it printed if it exits first). */
async function servedUrl(run: Running): Promise<string> {
  await waitFor(() => /listening on (\S+)/.test(run.stderr()) || run.child.exitCode !== null, 20_000);
  const m = /listening on (\S+)/.exec(run.stderr());
  if (!m) throw new Error(`serve did not start: ${run.stderr()}`);
  return m[1]!;
}

/** inspect's page address and its token cookie, once it printed them. */
async function inspectPage(run: Running): Promise<{ origin: string; cookie: string }> {
  await waitFor(() => /inspect: (\S+)/.test(run.stdout()) || run.child.exitCode !== null, 20_000);
  const m = /inspect: (\S+)/.exec(run.stdout());
  if (!m) throw new Error(`inspect did not start: ${run.stderr()}`);
  const u = new URL(m[1]!);
  return { origin: u.origin, cookie: `conduit_inspect=${u.searchParams.get("token")}` };
}

async function pageServers(page: { origin: string; cookie: string }) {
  const res = await fetch(`${page.origin}/api/servers`, { headers: { cookie: page.cookie } });
  return (await res.json()) as Array<{ id: string; state: string }>;
}

let dir: string;
let upstream: RunningServer;
let proxy: RecordingProxy;
/** Answers every request 400 with a JSON-RPC error that echoes the x-api-key it was sent. */
let refusing: RecordingProxy;
let config: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
  dir = mkdtempSync(join(tmpdir(), "serve-inspect-target-"));
  upstream = await startHttpFixture(`${root}test/fixtures/cli-watch-server.mjs`, []);
  proxy = await recordingProxy(upstream.url);
  refusing = await recordingProxy(upstream.url, {
    refuse: (headers) => ({
      status: 400,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32600, message: `key ${String(headers["x-api-key"])} is not valid here` },
      }),
    }),
  });
  config = join(dir, "mcp.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: {
        local: { command: process.execPath, args: [OFFICIAL_SERVER, "dual"] },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
        remote: { url: proxy.url, headers: { "X-Api-Key": "${SERVE_TARGET_SECRET}" } },
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
        refusing: { url: refusing.url, headers: { "X-Api-Key": "${env:SERVE_TARGET_SECRET}" } },
      },
    }),
  );
}, 30_000);

afterAll(async () => {
  await Promise.all([proxy?.close(), refusing?.close(), upstream?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const HEADER_ARGS = ["--header", "X-Tenant: acme", "--bearer-env", "SERVE_TARGET_TOKEN"];

/** What the proxy saw since `from`: every request carried the header and the token. */
function expectCredentials(from: number): void {
  const seen = proxy.seen.slice(from);
  expect(seen.length).toBeGreaterThan(0);
  for (const headers of seen) {
    expect(headers["x-tenant"]).toBe("acme");
    expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
  }
}

describe("serve reads its target as every command does", () => {
  it("--url with --header and --bearer-env: both reach the upstream; the token is never printed", async () => {
    const from = proxy.seen.length;
    const run = start(["serve", "--http", "127.0.0.1:0", "--url", proxy.url, ...HEADER_ARGS]);
    try {
      const host = await httpHost(await servedUrl(run), "modern");
      try {
        const names = (await host.listTools()).tools.map((t) => t.name);
        expect(names).toContain("echo_headers");
        const echoed = textOf(await host.callTool({ name: "echo_headers", arguments: {} }));
        expect(echoed).toContain("acme");
      } finally {
        await closeHost(host);
      }
      expectCredentials(from);
    } finally {
      expect(await run.stop()).toBe(0);
    }
    expect(run.stdout() + run.stderr()).not.toContain(TOKEN);
  }, 40_000);

  it("--server picks one entry of a config file, served with its names unchanged", async () => {
    const from = proxy.seen.length;
    const run = start(["serve", "--http", "127.0.0.1:0", "--config", config, "--server", "remote"]);
    try {
      const host = await httpHost(await servedUrl(run), "modern");
      try {
        const names = (await host.listTools()).tools.map((t) => t.name).sort();
        // cli-watch-server's tools only, not the official server's (add) nor prefixed names.
        expect(names).toEqual(["echo", "echo_headers"]);
      } finally {
        await closeHost(host);
      }
      expect(proxy.seen.slice(from).map((h) => h["x-api-key"])).toContain(SECRET);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  }, 40_000);

  it("a config file's secret never reaches the output when a server refuses it, echoing it", async () => {
    const from = refusing.seen.length;
    const run = start(["serve", "--http", "127.0.0.1:0", "--config", config]);
    try {
      const host = await httpHost(await servedUrl(run), "modern");
      try {
        const names = (await host.listTools()).tools.map((t) => t.name);
        expect(names).toContain("mcp__local__add");
        expect(names).not.toContain("mcp__refusing__echo");
      } finally {
        await closeHost(host);
      }
      // The refusing server was asked, with the secret, and its refusal was reported.
      expect(refusing.seen.slice(from).map((h) => h["x-api-key"])).toContain(SECRET);
      await waitFor(() => run.stderr().includes('server "refusing"'), 10_000);
    } finally {
      await run.stop();
    }
    expect(run.stdout() + run.stderr()).not.toContain(SECRET);
  }, 40_000);
});

describe("inspect reads its target as every command does", () => {
  it("--url with --header and --bearer-env: both reach the upstream; the token is never printed", async () => {
    const from = proxy.seen.length;
    const run = start(["inspect", "--url", proxy.url, ...HEADER_ARGS]);
    try {
      const page = await inspectPage(run);
      await expect
        .poll(async () => (await pageServers(page)).map((s) => s.state), { timeout: 15_000 })
        .toEqual(["ready"]);
      expectCredentials(from);
    } finally {
      expect(await run.stop()).toBe(0);
    }
    expect(run.stdout() + run.stderr()).not.toContain(TOKEN);
  }, 40_000);

  it("--server picks one entry of a config file, shown under its name", async () => {
    const run = start(["inspect", "--config", config, "--server", "remote"]);
    try {
      const page = await inspectPage(run);
      await expect
        .poll(async () => (await pageServers(page)).map((s) => `${s.id} ${s.state}`), { timeout: 15_000 })
        .toEqual(["remote ready"]);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  }, 40_000);

  it("a config file's secret never reaches the output when a server refuses it, echoing it", async () => {
    const from = refusing.seen.length;
    const run = start(["inspect", "--config", config]);
    try {
      await inspectPage(run);
      await waitFor(() => refusing.seen.length > from && run.stderr().includes('server "refusing"'), 15_000);
      expect(refusing.seen.slice(from).map((h) => h["x-api-key"])).toContain(SECRET);
    } finally {
      await run.stop();
    }
    expect(run.stdout() + run.stderr()).not.toContain(SECRET);
  }, 40_000);
});
