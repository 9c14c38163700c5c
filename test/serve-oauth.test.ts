/**
 * `conduit-mcp serve --url` in front of an OAuth-protected server (the scripted authorization and
 * MCP server of test/support/oauth-server.ts) with a token stored by `conduit-mcp login`: the
 * built CLI reaches the upstream with the stored token, no new authorization, and a host (the
 * official client, both eras) lists and calls the upstream's tool through it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { runCli } from "../src/cli/run.js";
import { CLI } from "./support/cli.js";
import { waitFor } from "./support/index.js";
import { OAuthServer } from "./support/oauth-server.js";
import { closeHost, httpHost, textOf } from "./support/serve.js";

let server: OAuthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("serve --url uses the stored OAuth token: no login, the upstream's tool listed and called", async () => {
  server = await new OAuthServer().start();
  const s = server;
  const env = { CONDUIT_MCP_TOKENS: join(mkdtempSync(join(tmpdir(), "serve-oauth-")), "tokens.json") };
  // `login` once, its "browser" following the authorization server's redirect to the loopback port.
  let browsed: Promise<void> | undefined;
  const io = {
    stdout: () => {},
    stderr: (text: string) => {
      const m = /\n {2}(http\S+)\n/.exec(text);
      if (m && !browsed) {
        browsed = (async () => {
          const res = await fetch(`${m[1]}&login=alice`, { redirect: "manual" });
          await fetch(res.headers.get("location")!);
        })();
      }
    },
  };
  expect(await runCli(["login", "--url", s.url, "--timeout", "15000"], io, undefined, null, env)).toBe(0);
  await browsed;
  expect(s.counts.authorize).toBe(1);

  const child = spawn(process.execPath, [CLI, "serve", "--http", "127.0.0.1:0", "--url", s.url], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((r) => child.on("close", (code) => r(code)));
  try {
    await waitFor(() => /listening on (\S+)/.test(stderr), 15_000);
    const url = /listening on (\S+)/.exec(stderr)![1]!;
    for (const era of ["modern", "legacy"] as const) {
      const host = await httpHost(url, era);
      try {
        const names = (await host.listTools()).tools.map((t) => t.name);
        // The upstream names the user its token was issued to: alice's stored token was used.
        expect(names).toEqual(["whoami_alice"]);
        const r = await host.callTool({ name: "whoami_alice", arguments: {} });
        expect(textOf(r)).toBe("alice");
      } finally {
        await closeHost(host);
      }
    }
    // No second authorization: the stored token sufficed.
    expect(s.counts.authorize).toBe(1);
    expect(s.counts.calls).toBe(2);
    expect(stderr).not.toMatch(/open this URL|login_required/);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  } finally {
    if (child.exitCode === null) child.kill("SIGTERM");
  }
}, 60_000);
