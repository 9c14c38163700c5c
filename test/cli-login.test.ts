/**
 * `conduit-mcp login` / `logout` against the scripted OAuth server: the URL is printed (nothing
 * is opened), the loopback redirect completes the flow, the tokens land in the file store with
 * mode 0600, a later `tools --url` uses them without a new authorization, and logout deletes them.
 */
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { runCli } from "../src/cli/run.js";
import { OAuthServer } from "./support/oauth-server.js";

let server: OAuthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function capture(onStderr?: (text: string) => void) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: (t: string) => {
        out.stdout += t;
      },
      stderr: (t: string) => {
        out.stderr += t;
        onStderr?.(t);
      },
    },
  };
}

describe("conduit-mcp login", () => {
  it("prints the authorization URL, takes the loopback redirect, stores tokens that later commands use", async () => {
    server = await new OAuthServer().start();
    const s = server;
    const env = { CONDUIT_MCP_TOKENS: join(mkdtempSync(join(tmpdir(), "conduit-login-")), "tokens.json") };
    // The "user": opens the printed URL in a "browser" that follows the AS's redirect to the loopback port.
    let browsed: Promise<void> | undefined;
    const login = capture((text) => {
      const m = /\n {2}(http\S+)\n/.exec(text);
      if (m && !browsed) {
        browsed = (async () => {
          const res = await fetch(`${m[1]}&login=alice`, { redirect: "manual" });
          await fetch(res.headers.get("location")!);
        })();
      }
    });
    const code = await runCli(
      ["login", "--url", s.url, "--timeout", "15000"],
      login.io,
      undefined,
      null,
      env,
    );
    await browsed;
    expect(login.out.stderr).toContain("open this URL in a browser");
    expect(code).toBe(0);
    expect(login.out.stdout).toContain(`logged in to ${s.url}`);
    expect(statSync(env.CONDUIT_MCP_TOKENS).mode & 0o777).toBe(0o600);
    const q = s.authorizeRequests[0]!;
    expect(q.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    // No token in anything printed.
    for (const t of s.issued.keys()) expect(login.out.stdout + login.out.stderr).not.toContain(t);

    // Later commands read the token file named by the process's environment.
    const saved = process.env.CONDUIT_MCP_TOKENS;
    process.env.CONDUIT_MCP_TOKENS = env.CONDUIT_MCP_TOKENS;
    onTestFinished(() => {
      if (saved === undefined) delete process.env.CONDUIT_MCP_TOKENS;
      else process.env.CONDUIT_MCP_TOKENS = saved;
    });
    const tools = capture();
    const toolsCode = await runCli(
      ["tools", "--json", "--url", s.url],
      tools.io,
      undefined,
      null,
      process.env,
    );
    expect(tools.out.stderr).toBe("");
    expect(toolsCode).toBe(0);
    expect(JSON.parse(tools.out.stdout)).toMatchObject({ tools: [{ name: "whoami_alice" }] });
    expect(s.counts.authorize).toBe(1);

    const logout = capture();
    expect(await runCli(["logout", "--url", s.url], logout.io, undefined, null, env)).toBe(0);
    expect(logout.out.stdout).toContain("1 token set(s) deleted");
  });

  it("login without --url is a usage error (exit 2)", async () => {
    const c = capture();
    expect(await runCli(["login"], c.io, undefined, null, {})).toBe(2);
    expect(c.out.stderr).toContain("--url <url> is required");
  });
});
