// `conduit-mcp --config FILE`: every server of an mcpServers file behind one hub (tools, call,
// info), one entry with --server, and the mistakes. Runs the built CLI (`npm run build` first).
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, parseJson, root, runCli } from "./support/cli.js";

const UNSAFE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/;
const dir = mkdtempSync(join(tmpdir(), "cli-hub-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function config(name: string, servers: Record<string, unknown>): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify({ mcpServers: servers }, null, 2));
  return p;
}

const official = { command: process.execPath, args: [`${root}test/fixtures/official-server.mjs`, "dual"] };
const hostile = { command: process.execPath, args: [`${root}test/fixtures/cli-hostile-server.mjs`] };
const broken = { command: "/nonexistent/mcp-server" };
let file: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
  file = config("mcp.json", {
    official: { ...official, env: { ECHO_TOKEN: "${CLI_HUB_TOKEN}" } },
    hostile,
    broken,
    off: { ...official, disabled: true },
  });
});

const env = { CLI_HUB_TOKEN: "tok-7f3a9c1e55" };
const cli = (args: string[]) => runCli(args, { env });

describe("conduit-mcp --config", () => {
  it("tools: every server's tools under qualified names, a status line per server, a down one shown", async () => {
    const run = await cli(["tools", "--config", file]);
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^official: ok, \d+ tools$/);
    expect(lines[1]).toMatch(/^hostile: ok, \d+ tools?$/);
    expect(lines[2]).toMatch(/^broken: server down \(.+\)$/);
    expect(run.stdout).toMatch(/^mcp__official__echo +Repeats the message$/m);
    expect(run.stdout).not.toMatch(/^off:/m);
    expect(run.stdout).not.toMatch(UNSAFE);
    expect(run.stdout.split("\n").some((l) => l.startsWith("mcp__hostile__"))).toBe(true);
  }, 30_000);

  it("tools --json: servers and tools in one document", async () => {
    const doc = parseJson(await cli(["tools", "-c", file, "--json"]));
    expect(doc.servers.official).toMatchObject({ status: "ok" });
    expect(doc.servers.broken.status).not.toBe("ok");
    expect(doc.servers.broken.error.kind).toEqual(expect.any(String));
    const echo = doc.tools.find((t: { name: string }) => t.name === "mcp__official__echo");
    expect(echo).toMatchObject({ serverId: "official", tool: { name: "echo" } });
    expect(echo.tool.serverId).toBeUndefined();
  }, 30_000);

  it("call routes by qualified name; the file's secrets never reach the output", async () => {
    const run = await cli([
      "call",
      "mcp__official__echo",
      `{"message":"hi ${env.CLI_HUB_TOKEN}"}`,
      "-c",
      file,
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("hi [secret]\n");
    const missing = await cli(["call", "echo", "{}", "-c", file, "--json"]);
    expect(missing.code).toBe(3);
    expect(parseJson(missing).error.kind).toBe("not_found");
    const human = await cli(["call", "echo", "{}", "-c", file]);
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/not_found.*run 'tools' for the qualified names/);
  }, 30_000);

  it("info: every server's state, era and version", async () => {
    const run = await cli(["info", "-c", file]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^official: ready, (modern|legacy) \S+, /m);
    expect(run.stdout).toMatch(/^broken: closed/m);
    expect(run.stdout).not.toMatch(UNSAFE);
    const doc = parseJson(await cli(["info", "-c", file, "--json"]));
    expect(doc.servers.official).toMatchObject({ state: "ready", server: { name: expect.any(String) } });
  }, 30_000);

  it("--server picks one entry for any command", async () => {
    const tools = await cli(["tools", "-c", file, "--server", "official"]);
    expect(tools.code).toBe(0);
    expect(tools.stdout).toMatch(/^echo +Repeats the message$/m);
    const prompts = await cli(["prompts", "-c", file, "--server", "official"]);
    expect(prompts.code).toBe(0);
    expect(prompts.stdout).toMatch(/greeting/);
  }, 30_000);

  it("exits 3 when no server answered", async () => {
    const only = config("broken.json", { broken });
    const run = await cli(["tools", "-c", only]);
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/^broken: /);
  }, 30_000);

  it("usage errors: single-server commands, unknown entries, bad files, conflicting targets", async () => {
    const cases: Array<[string[], RegExp, string]> = [
      [["resources", "-c", file], /add --server <name>/, "needs_server"],
      [["tools", "-c", file, "--server", "nope"], /not an enabled entry/, "unknown_server"],
      [["tools", "-c", file, "--server", "off"], /not an enabled entry/, "unknown_server"],
      [["tools", "-c", join(dir, "missing.json")], /cannot be read/, "bad_config"],
      [
        ["tools", "-c", config("bad.json", { a: { command: 1 } })],
        /server "a": "command" must be a string/,
        "bad_config",
      ],
      [
        ["tools", "-c", config("unset.json", { a: { command: "x", args: ["${NOT_SET_ANYWHERE}"] } })],
        /NOT_SET_ANYWHERE/,
        "bad_config",
      ],
      [["tools", "-c", file, "--url", "http://127.0.0.1:1/mcp"], /not more than one/, "conflicting_server"],
      [["tools", "--server", "official"], /--server needs --config/, "bad_option"],
      [["tools", "-c", config("ws.json", { a: { command: "two words" } })], /server "a"/, "bad_config"],
    ];
    for (const [args, pattern, reason] of cases) {
      const run = await cli([...args, "--json"]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(pattern);
      expect(parseJson(run).error.reason).toBe(reason);
    }
  }, 30_000);
});

describe("conduit-mcp --config: each failure says what happened", () => {
  const DOWN = "transport: command_not_found";

  it("a server that is down: the warning and the tools status line name the same failure", async () => {
    const run = await cli(["tools", "-c", file]);
    expect(run.stderr).toContain(`warning: server "broken" is down (${DOWN})`);
    expect(run.stdout).toMatch(/^broken: server down \(transport: command_not_found\)$/m);
    const doc = parseJson(await cli(["tools", "-c", file, "--json"]));
    expect(doc.servers.broken.error).toMatchObject({
      kind: "unavailable",
      reason: "server_down",
      detail: { server: "broken", failure: DOWN },
    });
  }, 30_000);

  it("info: the down server's state and failure, with no stray comma", async () => {
    const run = await cli(["info", "-c", file]);
    expect(run.stdout).toMatch(/^broken: closed \(transport: command_not_found\)$/m);
    expect(run.stdout).not.toMatch(/, \(/);
  }, 30_000);

  it("call of a down server's tool says that server is down, not unknown_tool", async () => {
    const run = await cli(["call", "mcp__broken__anything", "{}", "-c", file]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`unavailable: server_down server=broken failure="${DOWN}"`);
    expect(run.stderr).not.toContain("unknown_tool");
    const doc = parseJson(await cli(["call", "mcp__broken__anything", "{}", "-c", file, "--json"]));
    expect(doc.error).toMatchObject({
      kind: "unavailable",
      reason: "server_down",
      detail: { server: "broken", failure: DOWN },
    });
    // A name of no server at all is still unknown.
    const none = parseJson(await cli(["call", "mcp__nobody__x", "{}", "-c", file, "--json"]));
    expect(none.error).toMatchObject({ kind: "not_found", reason: "unknown_tool" });
  }, 30_000);

  it("an ask rule without --approve is approval_required, with how to approve", async () => {
    const policy = join(dir, "ask.json");
    writeFileSync(policy, JSON.stringify([{ server: "official", tool: "echo", decision: "ask" }]));
    const run = await cli(["call", "mcp__official__echo", '{"message":"x"}', "-c", file, "--policy", policy]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/denied: approval_required by=policy rule=0 \(.*add --approve to be asked/);
    const doc = parseJson(
      await cli(["call", "mcp__official__echo", '{"message":"x"}', "-c", file, "--policy", policy, "--json"]),
    );
    expect(doc.error).toMatchObject({
      kind: "denied",
      reason: "approval_required",
      detail: { by: "policy", rule: 0 },
      hint: expect.stringContaining("--approve"),
    });
  }, 30_000);

  it("an unknown resource or prompt is not_found with a hint, as an unknown tool is", async () => {
    const read = await cli(["read", "nope://missing", "-c", file, "--server", "official", "--json"]);
    expect(read.code).toBe(3);
    expect(parseJson(read).error).toMatchObject({
      kind: "not_found",
      reason: "unknown_resource",
      hint: expect.stringContaining("conduit-mcp resources"),
      serverMessage: expect.stringContaining("nope://missing"),
    });
    const prompt = await cli(["prompt", "nope", "-c", file, "--server", "official"]);
    expect(prompt.code).toBe(3);
    expect(prompt.stderr).toMatch(/not_found: unknown_prompt \(the server has no prompt of that name/);
    // A prompt that exists but lacks an argument keeps the server's own error.
    const missingArg = parseJson(
      await cli(["prompt", "greeting", "-c", file, "--server", "official", "--json"]),
    );
    expect(missingArg.error).toMatchObject({ kind: "protocol", reason: "jsonrpc_error" });
  }, 30_000);
});
