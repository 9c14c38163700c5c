/**
 * What a person meets first with the CLI (issue 10): errors that carry the server's own words,
 * one rule for an unknown tool, servers without resources or prompts, a watch that ends with its
 * reader, the hints, structured content shown once, and the usage text.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderPrompts } from "../src/cli/render.js";
import { USAGE } from "../src/cli/usage.js";
import { CLI, parseJson, root, runCli } from "./support/cli.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER, OFFICIAL_SERVER } from "./support/index.js";

const everything = ["--", process.execPath, EVERYTHING_SERVER, "stdio"];
const official = ["--", process.execPath, OFFICIAL_SERVER, "dual"];
const filesystem = ["--", process.execPath, FILESYSTEM_SERVER, root];

describe.concurrent("an unknown tool: one rule, whatever the server answers", () => {
  // The official server would answer with a JSON-RPC error, server-everything with an isError
  // result: the client refuses the name from the server's listing first, so neither is asked.
  it.each([
    ["a JSON-RPC error (official server)", official],
    ["an isError result (server-everything)", everything],
  ])("%s: not_found: unknown_tool, exit 3, refused from the listing", async (_, server) => {
    const [human, json] = await Promise.all([
      runCli(["call", "nope", ...server]),
      runCli(["call", "nope", "--json", ...server]),
    ]);
    expect(json.code).toBe(3);
    const { error } = parseJson(json);
    expect(error).toMatchObject({
      kind: "not_found",
      reason: "unknown_tool",
      message: "not_found: unknown_tool",
    });
    expect(error.serverMessage).toBeUndefined();
    expect(error.hint).toContain("no tool of that name");
    expect(human.code).toBe(3);
    expect(human.stdout).toBe("");
    expect(human.stderr).toMatch(
      /^conduit-mcp: not_found: unknown_tool \(the server has no tool of that name/m,
    );
  });

  it("a tool that exists and reports an error is still exit 1 (isError)", async () => {
    const run = await runCli(["call", "fail", "--json", ...official]);
    expect(run.code).toBe(1);
    expect(parseJson(run).isError).toBe(true);
  });
});

describe.concurrent("a server without resources or prompts", () => {
  it("resources against server-filesystem exits 0, saying it offers none", async () => {
    const [human, json] = await Promise.all([
      runCli(["resources", ...filesystem]),
      runCli(["resources", "--json", ...filesystem]),
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toBe("(no resources: the server offers none)\n");
    expect(json.code).toBe(0);
    expect(parseJson(json)).toEqual({ resources: [], resourceTemplates: [] });
  });

  it("prompts against server-filesystem exits 0, saying it offers none", async () => {
    const run = await runCli(["prompts", ...filesystem]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("(no prompts: the server offers none)\n");
  });
});

describe.concurrent("hints", () => {
  it("--protocol modern against a legacy-only server says to use legacy", async () => {
    const run = await runCli(["info", "--protocol", "modern", ...everything]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/legacy_server.*does not speak the modern era.*--protocol legacy/);
  });

  it("a server command that is not executable says how to run it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-cli-"));
    const script = join(dir, "server.mjs");
    writeFileSync(script, "process.exit(0)\n");
    chmodSync(script, 0o644);
    const run = await runCli(["tools", "--", script]);
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/command_not_executable.*chmod \+x.*-- node server\.mjs/);
  });

  it("an HTTP 404 at --url says to check the endpoint's path", async () => {
    const server = createServer((_req, res) => res.writeHead(404).end("not here"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const run = await runCli(["tools", "--url", `http://127.0.0.1:${port}/nope`]);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/http_404.*check the endpoint's path/);
    } finally {
      server.close();
    }
  });
});

describe.concurrent("errors that say what happened", () => {
  it("a -32042 error shows the link the server needs opened, and never opens it", async () => {
    const args = ["call", "trigger-url-elicitation", '{"url":"https://example.com/auth","errorPath":true}'];
    const [human, json] = await Promise.all([
      runCli([...args, ...everything]),
      runCli([...args, "--json", ...everything]),
    ]);
    expect(json.code).toBe(3);
    const { error } = parseJson(json);
    expect(error).toMatchObject({ kind: "protocol", reason: "jsonrpc_error", detail: { jsonrpc: -32042 } });
    expect(error.url).toMatch(/^https:\/\//);
    expect(error.serverMessage).toMatch(/authorization/);
    expect(human.stderr).toContain(
      `the server needs you to open this link first (never opened for you): ${error.url}\n`,
    );
  });

  it("a server that does not answer the era probe is named as such, not as --timeout", async () => {
    // Accepts the connection, never answers: the probe's own 5 s deadline over HTTP ends it.
    const server = createServer(() => {});
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const run = await runCli(["info", "--json", "--url", `http://127.0.0.1:${port}/mcp`]);
      expect(run.code).toBe(3);
      expect(parseJson(run).error.hint).toBe(
        "the server did not answer the era probe (server/discover) within the probe timeout (5 s); a server that takes longer may need --protocol modern or legacy",
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe.concurrent("progress when stderr is not a terminal", () => {
  const long = ["call", "trigger-long-running-operation", '{"duration":1,"steps":2}'];

  it("is not shown unless asked for", async () => {
    const run = await runCli([...long, ...everything]);
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/progress/);
  });

  it("with --progress, one plain line per update before the result", async () => {
    const run = await runCli([...long, "--progress", ...everything]);
    expect(run.code).toBe(0);
    expect(run.stderr.match(/^progress .*$/gm)?.map((l) => l.replace(/ \d+s$/, ""))).toEqual([
      "progress 1/2 50%",
      "progress 2/2 100%",
    ]);
  });
});

describe("output", () => {
  it("list columns align past 32 characters", () => {
    const long = "a-prompt-whose-name-is-longer-than-thirty-two";
    const text = renderPrompts([
      { serverId: "s", name: "short", description: "first" },
      { serverId: "s", name: long, description: "second" },
    ] as Parameters<typeof renderPrompts>[0]);
    const [first, second] = text.split("\n");
    expect(first!.indexOf("first")).toBe(second!.indexOf("second"));
  });

  it("structured content the text already holds as JSON is shown once", async () => {
    const run = await runCli(["call", "get-structured-content", '{"location":"Chicago"}', ...everything]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/"temperature"/);
    expect(run.stdout).not.toContain("structured content:");
  });
});

describe("watch and a reader that goes away", () => {
  it("`watch | head -1` on a quiet server ends once head has exited", async ({ onTestFinished }) => {
    // The shell waits for both ends of the pipe: it exits only when watch does.
    const line = `'${process.execPath}' '${CLI}' watch -- '${process.execPath}' '${OFFICIAL_SERVER}' dual | head -1`;
    const shell = spawn("sh", ["-c", line], { cwd: root, stdio: ["ignore", "pipe", "pipe"], detached: true });
    // Should it hang, the whole pipeline goes with the test.
    onTestFinished(() => {
      try {
        process.kill(-shell.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    });
    let stdout = "";
    shell.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    const code = await new Promise<number | null>((resolve) => shell.once("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} watching official-dual 1\.0\.0 .*\n$/);
  }, 15_000);
});

describe.concurrent("usage", () => {
  it("a bare conduit-mcp prints the usage once, exit 2", async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(USAGE);
    expect(run.stderr.match(/Usage:/g)).toHaveLength(1);
  });

  it("a server command without `--` gets a hint", async () => {
    const run = await runCli(["tools", "node", "server.mjs"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'unexpected argument "node"; the server command goes after `--`, as in: conduit-mcp tools -- node server.mjs',
    );
  });

  it("every help line fits in 100 columns", async () => {
    const run = await runCli(["--help"]);
    for (const line of run.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it("an option without its value is worded like the other messages", async () => {
    const run = await runCli(["tools", "--timeout"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^conduit-mcp: --timeout needs a value\n/);
  });
});
