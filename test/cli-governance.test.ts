// `conduit-mcp call --policy FILE [--approve]` against server-filesystem: in process with a
// terminal made of two streams (what the person types, what the CLI shows), and once as users
// run the built program.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCli as runBuilt } from "./support/cli.js";
import { runCliWithTerminal } from "./support/cli-in-process.js";
import { FILESYSTEM_SERVER } from "./support/servers.js";

let root: string;
let policy: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "conduit-cli-gov-")));
  policy = join(root, "policy.json");
  writeFileSync(
    policy,
    JSON.stringify({
      policy: [
        { tool: "read_*", decision: "allow" },
        { tool: "write_file", decision: "ask", reason: "writes a file" },
        { tool: "move_file", decision: "deny", reason: "never from an agent" },
      ],
      defaultDecision: "deny",
    }),
  );
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const server = () => ["--", process.execPath, FILESYSTEM_SERVER, root];

const run = runCliWithTerminal;

describe("call --policy --approve", () => {
  it("asks on the terminal for an ask decision; yes runs the call", async () => {
    const path = join(root, "yes.txt");
    const args = JSON.stringify({ path, content: "approved" });
    const r = await run(
      ["call", "write_file", args, "--policy", policy, "--approve", "--json", ...server()],
      ["y"],
    );
    expect(r.code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe("approved");
    expect(r.shown).toContain("wants to run the tool write_file");
    expect(r.shown).toContain("policy:      writes a file");
    expect(r.shown).toContain("Allow this call? [y/N] ");
  });

  it("no at the terminal is a denial (exit 3); nothing is written", async () => {
    const path = join(root, "no.txt");
    const args = JSON.stringify({ path, content: "x" });
    const r = await run(
      ["call", "write_file", args, "--policy", policy, "--approve", "--json", ...server()],
      ["n"],
    );
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stdout).error).toMatchObject({ kind: "denied" });
    expect(existsSync(path)).toBe(false);
  });

  it("without a terminal an ask is refused, and says so", async () => {
    const path = join(root, "no-terminal.txt");
    const args = JSON.stringify({ path, content: "x" });
    const r = await run(["call", "write_file", args, "--policy", policy, "--approve", ...server()], null);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("there is no terminal to ask on");
    expect(existsSync(path)).toBe(false);
  });

  it("without --approve an ask fails closed; allowed calls run unasked", async () => {
    const path = join(root, "unasked.txt");
    const r = await run(
      ["call", "write_file", JSON.stringify({ path, content: "x" }), "--policy", policy, ...server()],
      ["y"],
    );
    expect(r.code).toBe(3);
    expect(r.shown).toBe("");
    expect(existsSync(path)).toBe(false);
    writeFileSync(join(root, "read-me.txt"), "hello");
    const read = await run(
      [
        "call",
        "read_text_file",
        JSON.stringify({ path: join(root, "read-me.txt") }),
        "--policy",
        policy,
        ...server(),
      ],
      null,
    );
    expect(read.code).toBe(0);
    expect(read.stdout).toContain("hello");
  });

  it("bad policy files and misplaced options are usage errors (exit 2)", async () => {
    const bad = join(root, "bad.json");
    const cases: Array<[string, string[]]> = [
      ["{ not json", ["--policy", bad]],
      [JSON.stringify([{ tool: "x", decision: "maybe" }]), ["--policy", bad]],
      [JSON.stringify([{ annotations: { readOnlyHint: true }, decision: "allow" }]), ["--policy", bad]],
      [JSON.stringify({ rules: [] }), ["--policy", bad]],
    ];
    for (const [text, opts] of cases) {
      writeFileSync(bad, text);
      const r = await run(["call", "read_text_file", "{}", ...opts, "--json", ...server()], null);
      expect(r.code, text).toBe(2);
      expect(JSON.parse(r.stdout).error).toMatchObject({ kind: "usage", reason: "bad_policy" });
    }
    const missing = await run(
      ["call", "x", "--policy", join(root, "absent.json"), "--json", ...server()],
      null,
    );
    expect(JSON.parse(missing.stdout).error.reason).toBe("bad_policy");
    const misplaced = await run(["tools", "--approve", "--json", ...server()], null);
    expect(misplaced.code).toBe(2);
    expect(JSON.parse(misplaced.stdout).error.reason).toBe("bad_option");
  });

  it("the built program: a denied call exits 3 with kind denied and the rule's reason", async () => {
    const from = join(root, "stay.txt");
    writeFileSync(from, "stay");
    const r = await runBuilt([
      "call",
      "move_file",
      JSON.stringify({ source: from, destination: join(root, "moved.txt") }),
      "--policy",
      policy,
      "--json",
      ...server(),
    ]);
    expect(r.code).toBe(3);
    expect(parseJson(r).error).toMatchObject({
      kind: "denied",
      reason: "denied_by_policy",
      detail: { by: "policy", rule: 2, reason: "never from an agent" },
    });
    expect(existsSync(from)).toBe(true);
  });

  it("examples/governance.mjs runs as the guide says", async () => {
    const { execFile } = await import("node:child_process");
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        [fileURLToPath(new URL("../examples/governance.mjs", import.meta.url))],
        (err, stdout) => (err ? reject(err) : resolve(stdout)),
      ),
    );
    expect(out).toContain("approve write_file for user-42?");
    expect(out).toContain("read: hello again");
    expect(out).toContain(
      "move_file: denied denied_by_policy { by: 'policy', rule: 1, reason: 'never from an agent' }",
    );
    expect(out).toContain(
      "write_file: denied denied_by_hook { by: 'hook', reason: 'outside the workspace' }",
    );
    expect(out.match(/approve write_file/g)).toHaveLength(1);
  });

  it("with --config the policy governs the hub's routed calls (rules name the server)", async () => {
    const file = join(root, "mcp.json");
    writeFileSync(
      file,
      JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [FILESYSTEM_SERVER, root] } } }),
    );
    const hubPolicy = join(root, "hub-policy.json");
    writeFileSync(
      hubPolicy,
      JSON.stringify([{ server: "fs", tool: "write_file", decision: "deny", reason: "hub says no" }]),
    );
    const path = join(root, "hub.txt");
    const r = await runBuilt([
      "call",
      "mcp__fs__write_file",
      JSON.stringify({ path, content: "x" }),
      "--config",
      file,
      "--policy",
      hubPolicy,
      "--json",
    ]);
    expect(r.code).toBe(3);
    expect(parseJson(r).error).toMatchObject({
      kind: "denied",
      reason: "denied_by_policy",
      detail: { by: "policy", rule: 0, reason: "hub says no" },
    });
    expect(existsSync(path)).toBe(false);
  });
});
