// `conduit-mcp inspect` as users run it (the built CLI): the address line, --json, a non-loopback
// --host refused, one target required, and Ctrl-C closing the page and the server it started.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { CLI, root, runCli } from "./support/cli.js";
import { OFFICIAL_SERVER } from "./support/index.js";

describe("conduit-mcp inspect", () => {
  it("prints the address (--json: as the first line), serves the page, and stops on SIGINT", async () => {
    const child = spawn(
      process.execPath,
      [CLI, "inspect", "--json", "--", process.execPath, OFFICIAL_SERVER, "dual"],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const first = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout! }).once("line", resolve),
    );
    const { url } = JSON.parse(first) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
    const u = new URL(url);
    const cookie = `conduit_inspect=${u.searchParams.get("token")}`;
    await expect
      .poll(
        async () => {
          const servers = (await (
            await fetch(`${u.origin}/api/servers`, { headers: { cookie } })
          ).json()) as Array<{ state: string }>;
          return servers.map((s) => s.state);
        },
        { timeout: 15_000 },
      )
      .toEqual(["ready"]);
    expect((await fetch(`${u.origin}/api/servers`)).status).toBe(401);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    await expect(fetch(`${u.origin}/api/servers`, { headers: { cookie } })).rejects.toThrow();
  }, 30_000);

  it("prints the human line without --json", async () => {
    const run = await runCli(["inspect", "--", process.execPath, OFFICIAL_SERVER, "dual"], {
      interruptAfterMs: 3_000,
    });
    expect(run.stdout).toMatch(/^inspect: http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}\n$/);
    expect(run.code).toBe(0);
  }, 20_000);

  it("refuses a host that is not loopback, and a missing or doubled target", async () => {
    const far = await runCli(["inspect", "--host", "0.0.0.0", "--", process.execPath, OFFICIAL_SERVER]);
    expect(far.code).toBe(2);
    expect(far.stderr).toContain("loopback only");
    expect(far.stdout).toBe("");
    expect((await runCli(["inspect"])).code).toBe(2);
    expect((await runCli(["inspect", "--url", "http://127.0.0.1:1/mcp", "--", "node"])).code).toBe(2);
  });
});
