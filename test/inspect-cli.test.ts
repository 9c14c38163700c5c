// `conduit-mcp inspect` as users run it (the built CLI): the address line, --json, a non-loopback
// --host refused, one target required, and Ctrl-C closing the page and the server it started.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

  it("--policy: an ask rule's call waits for the page's answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "inspect-policy-"));
    const rules = join(dir, "rules.json");
    writeFileSync(
      rules,
      JSON.stringify({ policy: [{ tool: "echo", decision: "ask", reason: "echo needs a person" }] }),
    );
    const child = spawn(
      process.execPath,
      [CLI, "inspect", "--json", "--policy", rules, "--", process.execPath, OFFICIAL_SERVER, "dual"],
      { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const first = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout! }).once("line", resolve),
      );
      const u = new URL((JSON.parse(first) as { url: string }).url);
      const headers = {
        cookie: `conduit_inspect=${u.searchParams.get("token")}`,
        "content-type": "application/json",
      };
      const post = (path: string, body: unknown) =>
        fetch(u.origin + path, { method: "POST", headers, body: JSON.stringify(body) }).then((r) => r.json());
      const call = post("/api/call", {
        id: "c1",
        name: "mcp__server__echo",
        arguments: { message: "approved" },
      });
      let pending: Array<{ id: string; kind: string; reason: string }> = [];
      await expect
        .poll(
          async () => {
            pending = (await (await fetch(`${u.origin}/api/pending`, { headers })).json()) as typeof pending;
            return pending.map((p) => p.kind);
          },
          { timeout: 15_000 },
        )
        .toEqual(["approval"]);
      expect(pending[0]!.reason).toBe("echo needs a person");
      expect(await post("/api/answer", { id: pending[0]!.id, answer: { allow: true } })).toEqual({
        answered: true,
      });
      expect(await call).toEqual({
        result: expect.objectContaining({ content: [{ type: "text", text: "approved" }] }),
      });
      // Denied on the page: the call is refused, never sent.
      const denied = post("/api/call", { id: "c2", name: "mcp__server__echo", arguments: { message: "no" } });
      await expect
        .poll(
          async () =>
            ((await (await fetch(`${u.origin}/api/pending`, { headers })).json()) as typeof pending).length,
          { timeout: 15_000 },
        )
        .toBe(1);
      const [second] = (await (await fetch(`${u.origin}/api/pending`, { headers })).json()) as typeof pending;
      await post("/api/answer", { id: second!.id, answer: { allow: false } });
      expect(((await denied) as { error: { kind: string } }).error.kind).toBe("denied");
    } finally {
      child.kill("SIGINT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  it("--open hands the printed address to xdg-open as one argument, with no shell between", async () => {
    // A recording xdg-open first on PATH: it must get exactly the printed URL, one argument.
    const dir = mkdtempSync(join(tmpdir(), "inspect-open-"));
    const record = join(dir, "argv.json");
    const opener = join(dir, "xdg-open");
    writeFileSync(
      opener,
      `#!${process.execPath}\nrequire("node:fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.argv.slice(2)));\n`,
      { mode: 0o755 },
    );
    const child = spawn(
      process.execPath,
      [CLI, "inspect", "--json", "--open", "--", process.execPath, OFFICIAL_SERVER, "dual"],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, PATH: `${dir}:${process.env.PATH}` },
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const first = await new Promise<string>((resolve) =>
        createInterface({ input: child.stdout! }).once("line", resolve),
      );
      const { url } = JSON.parse(first) as { url: string };
      let argv: unknown = null;
      await expect
        .poll(
          () => {
            try {
              argv = JSON.parse(readFileSync(record, "utf8"));
            } catch {
              argv = null;
            }
            return argv;
          },
          { timeout: 15_000 },
        )
        .toEqual([url]);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    } finally {
      child.kill("SIGINT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
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
