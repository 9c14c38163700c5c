// The command-line tool, run as users run it: `node dist/cli/main.js ...` against real servers
// (examples/server.mjs and the official package's fixture) and a hostile hand-written one.
// Needs `npm run build` first.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
  jsonDocument,
  renderContentBlock,
  renderReadResult,
  renderToolResult,
  renderTools,
} from "../src/cli/render.js";
import { CLI, parseJson, type Run, root, runCli } from "./support/cli.js";
import { SCRIPTED } from "./support/scripted.js";

const cli = (args: string[], interruptAfterMs?: number): Promise<Run> => runCli(args, { interruptAfterMs });
const EXAMPLE = ["--", process.execPath, `${root}examples/server.mjs`];
const official = (era: "dual" | "modern" | "legacy") => [
  "--",
  process.execPath,
  `${root}test/fixtures/official-server.mjs`,
  era,
];
const HOSTILE_SERVER = ["--", process.execPath, `${root}test/fixtures/cli-hostile-server.mjs`];

// Anything a terminal could act on, or that changes how text reads.
const UNSAFE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
});

describe("conduit-mcp against examples/server.mjs", () => {
  it("info prints the era, version, server and capabilities", async () => {
    const run = await cli(["info", ...EXAMPLE]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("server:        conduit-example 1.0.0\n");
    expect(run.stdout).toContain("era:           modern\n");
    expect(run.stdout).toContain("version:       2026-07-28\n");
    expect(run.stdout).toMatch(/^capabilities: {2}tools \(listChanged\), resources .*prompts/m);
    expect(run.stdout).toContain("instructions:  A demonstration server: arithmetic, echo and dice.\n");
  });

  it("info --json is the server description", async () => {
    const run = await cli(["info", "--json", ...EXAMPLE]);
    expect(run.code).toBe(0);
    const doc = parseJson(run);
    expect(doc).toMatchObject({
      era: "modern",
      version: "2026-07-28",
      serverInfo: { name: "conduit-example", version: "1.0.0" },
      instructions: "A demonstration server: arithmetic, echo and dice.",
    });
    expect(Object.keys(doc.capabilities).sort()).toEqual(["prompts", "resources", "tools"]);
  });

  it("tools prints one line per tool: name and description", async () => {
    const run = await cli(["tools", ...EXAMPLE]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n")).toEqual([
      "add        Adds two numbers and returns their sum.",
      "echo       Returns the message unchanged.",
      "roll_dice  Rolls `count` dice with `sides` faces each (default: one six-sided die).",
      "",
    ]);
  });

  it("tools --json lists the definitions without the client's serverId", async () => {
    const doc = parseJson(await cli(["tools", "--json", ...EXAMPLE]));
    expect(doc.tools.map((t: { name: string }) => t.name)).toEqual(["add", "echo", "roll_dice"]);
    expect(doc.tools[0].inputSchema.properties.a.type).toBe("number");
    expect(doc.tools[0]).not.toHaveProperty("serverId");
  });

  it("call prints text blocks and the structured content", async () => {
    const run = await cli(["call", "add", '{"a":2,"b":3}', ...EXAMPLE]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('5\nstructured content: {"sum":5}\n');
  });

  it("call keeps the lines of a text result, blank ones included", async () => {
    const run = await cli(["call", "echo", JSON.stringify({ message: "one\n\ntwo\r\nthree" }), ...EXAMPLE]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("one\n\ntwo\nthree\n");
  });

  it("call --json is the CallToolResult", async () => {
    const doc = parseJson(await cli(["call", "roll_dice", '{"count":4,"sides":6}', "--json", ...EXAMPLE]));
    expect(doc.isError).toBe(false);
    expect(doc.structuredContent.rolls).toHaveLength(4);
    for (const roll of doc.structuredContent.rolls) expect(roll).toBeGreaterThanOrEqual(1);
    expect(doc.structuredContent.total).toBe(
      doc.structuredContent.rolls.reduce((a: number, b: number) => a + b),
    );
    expect(doc.content[0].text).toMatch(/^rolled [\d, ]+ \(total \d+\)$/);
    expect(doc).not.toHaveProperty("resultType");
  });

  it("resources, read, prompts and prompt", async () => {
    const [resources, resourcesJson, read, readJson, prompts, promptsJson, prompt, promptJson] =
      await Promise.all([
        cli(["resources", ...EXAMPLE]),
        cli(["resources", "--json", ...EXAMPLE]),
        cli(["read", "example://about", ...EXAMPLE]),
        cli(["read", "example://about", "--json", ...EXAMPLE]),
        cli(["prompts", ...EXAMPLE]),
        cli(["prompts", "--json", ...EXAMPLE]),
        cli(["prompt", "summarize", '{"text":"hello","style":"a haiku"}', ...EXAMPLE]),
        cli(["prompt", "summarize", '{"text":"hello"}', "--json", ...EXAMPLE]),
      ]);
    for (const run of [resources, resourcesJson, read, readJson, prompts, promptsJson, prompt, promptJson]) {
      expect(run.code).toBe(0);
    }
    expect(resources.stdout).toBe("example://about  About this server (text/markdown)\n");
    expect(parseJson(resourcesJson)).toEqual({
      resources: [
        {
          uri: "example://about",
          name: "about",
          title: "About this server",
          description: "What the example server offers.",
          mimeType: "text/markdown",
        },
      ],
      resourceTemplates: [],
    });
    expect(read.stdout).toBe(
      "# conduit-mcp example server\n\nTools: add, echo, roll_dice. Resource: example://about. Prompt: summarize.\n",
    );
    expect(parseJson(readJson).contents[0]).toMatchObject({
      uri: "example://about",
      mimeType: "text/markdown",
    });
    expect(prompts.stdout).toBe("summarize <text> [style]  Asks the model for a short summary of a text.\n");
    expect(parseJson(promptsJson).prompts[0].arguments).toEqual([
      { name: "text", description: "the text to summarize", required: true },
      { name: "style", description: "for example: bullet points", required: false },
    ]);
    expect(prompt.stdout).toBe("user: Summarize the following text as a haiku:\n\nhello\n");
    expect(parseJson(promptJson).messages).toEqual([
      { role: "user", content: { type: "text", text: "Summarize the following text:\n\nhello" } },
    ]);
  });

  it("accepts a relative server path", async () => {
    const run = await cli(["info", "--json", "--", "./examples/server.mjs"]);
    expect(run.code).toBe(0);
    expect(parseJson(run).serverInfo.name).toBe("conduit-example");
  });
});

describe("conduit-mcp against the official server fixture", () => {
  it("auto lands in the modern era on a dual server and legacy on a legacy one", async () => {
    const [dual, legacy] = await Promise.all([
      cli(["info", "--json", ...official("dual")]),
      cli(["info", "--json", ...official("legacy")]),
    ]);
    expect(parseJson(dual)).toMatchObject({ era: "modern", version: "2026-07-28" });
    expect(parseJson(legacy)).toMatchObject({ era: "legacy", version: "2025-11-25" });
  });

  it("--protocol legacy and a pinned version are honoured", async () => {
    const [legacy, pinned] = await Promise.all([
      cli(["info", "--json", "--protocol", "legacy", ...official("dual")]),
      cli(["info", "--json", "--protocol", "2025-06-18", ...official("dual")]),
    ]);
    expect(legacy.code).toBe(0);
    expect(parseJson(legacy)).toMatchObject({ era: "legacy", version: "2025-11-25" });
    expect(parseJson(pinned)).toMatchObject({ era: "legacy", version: "2025-06-18" });
  });

  it("the same call prints the same way in both eras", async () => {
    const [modern, legacy] = await Promise.all([
      cli(["call", "add", '{"a":40,"b":2}', ...official("modern")]),
      cli(["call", "add", '{"a":40,"b":2}', "--protocol", "legacy", ...official("legacy")]),
    ]);
    expect(modern.stdout).toBe('42\nstructured content: {"sum":42}\n');
    expect(legacy.stdout).toBe(modern.stdout);
  });

  it("resources lists templates too", async () => {
    const run = await cli(["resources", ...official("dual")]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^file:\/\/\/readme\.md +Read me \(text\/markdown\)$/m);
    expect(run.stdout).toMatch(/^templates:\nnote:\/\/\{id\} +A note$/m);
  });

  it("exits 1 when the tool reports an error, and still prints its content", async () => {
    const [human, json] = await Promise.all([
      cli(["call", "fail", ...official("dual")]),
      cli(["call", "fail", "--json", ...official("dual")]),
    ]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe("it broke\n");
    expect(human.stderr).toContain("the tool reported an error");
    expect(json.code).toBe(1);
    expect(parseJson(json)).toMatchObject({ content: [{ type: "text", text: "it broke" }], isError: true });
  });

  it("exits 3 with kind timeout when a call outlives --timeout", async () => {
    // Room enough for the handshake on a busy machine; the call itself needs 6 s.
    // The tool reports progress, which renews --timeout: --max-time is what ends it.
    const args = ["call", "slow", '{"steps":30,"every":200}', "--timeout", "2000", "--max-time", "2500"];
    const [human, json] = await Promise.all([
      cli([...args, ...official("dual")]),
      cli([...args, "--json", ...official("dual")]),
    ]);
    expect(human.code).toBe(3);
    expect(human.stdout).toBe("");
    expect(human.stderr).toContain("timeout: deadline_exceeded");
    expect(json.code).toBe(3);
    expect(parseJson(json)).toEqual({
      error: {
        kind: "timeout",
        reason: "deadline_exceeded",
        message: "timeout: deadline_exceeded",
        hint: expect.stringContaining("--max-time"),
      },
    });
  });

  it("--max-time below --timeout ends a call that keeps reporting progress at --max-time", async () => {
    // 60 steps a second apart, under the default --timeout (30 s) renewed by each one: only
    // --max-time (3 s) can end it early. Counted in steps the server reported, not in time.
    const run = await cli([
      "call",
      "slow",
      '{"steps":60,"every":1000}',
      "--max-time",
      "3000",
      "--progress",
      ...official("dual"),
    ]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("timeout: deadline_exceeded");
    const steps = run.stderr.match(/^progress \d+\/60 /gm) ?? [];
    expect(steps.length).toBeLessThanOrEqual(10);
  });

  it("an interrupt closes the client and exits 130", async () => {
    // Interrupted once the call is under way: its first progress line says so.
    const run = await runCli(
      ["call", "slow", '{"steps":100,"every":100}', "--progress", ...official("dual")],
      {
        interruptOn: "progress ",
      },
    );
    expect(run.code).toBe(130);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("conduit-mcp: interrupted");
  });

  it("--timeout 1 fails the handshake with exit 3", async () => {
    const run = await cli([
      "call",
      "slow",
      '{"steps":1,"every":10}',
      "--timeout",
      "1",
      "--json",
      ...official("dual"),
    ]);
    expect(run.code).toBe(3);
    expect(parseJson(run).error.kind).toBe("timeout");
  });

  it("exits 3 when reading an unknown URI, showing what the server said", async () => {
    const [human, json] = await Promise.all([
      cli(["read", "file:///nope", ...official("dual")]),
      cli(["read", "file:///nope", "--json", ...official("dual")]),
    ]);
    expect(human.code).toBe(3);
    expect(human.stderr).toMatch(/not_found: unknown_resource .*server said: .*file:\/\/\/nope/);
    expect(json.code).toBe(3);
    // The server's own words ride along as serverMessage; message stays the library's safe one.
    expect(parseJson(json)).toEqual({
      error: {
        kind: "not_found",
        reason: "unknown_resource",
        message: "not_found: unknown_resource",
        hint: "the server has no resource at that URI (see `conduit-mcp resources`)",
        serverMessage: expect.stringContaining("file:///nope"),
      },
    });
  });

  it("exits 3 when a modern-only server is asked for the legacy era", async () => {
    const run = await cli(["info", "--protocol", "legacy", ...official("modern")]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      "closed: jsonrpc_error jsonrpc=-32022 (server said: Unsupported protocol version",
    );
  });
});

describe("conduit-mcp exit status 3: the server cannot be reached", () => {
  it("a server command that does not exist", async () => {
    const [human, json] = await Promise.all([
      cli(["tools", "--", "conduit-mcp-no-such-server"]),
      cli(["tools", "--json", "--", "conduit-mcp-no-such-server"]),
    ]);
    expect(human.code).toBe(3);
    expect(human.stdout).toBe("");
    expect(human.stderr).toContain("closed: command_not_found (the server command was not found)");
    expect(json.code).toBe(3);
    expect(parseJson(json)).toEqual({
      error: {
        kind: "closed",
        reason: "command_not_found",
        message: "closed: command_not_found",
        hint: "the server command was not found",
      },
    });
  });

  it("a server that exits at once", async () => {
    const run = await cli(["info", "--json", "--", process.execPath, "-e", "process.exit(4)"]);
    expect(run.code).toBe(3);
    expect(parseJson(run).error).toMatchObject({ kind: "closed", reason: "server_exited" });
  });

  it("npx that exits before the server starts: its stderr is shown, and the hint names env", async () => {
    const dir = mkdtempSync(join(tmpdir(), "conduit-cli-npx-"));
    try {
      const npx = join(dir, "npx");
      writeFileSync(npx, "#!/bin/sh\necho 'npm error code E404' >&2\nexit 1\n");
      chmodSync(npx, 0o755);
      const run = await cli(["info", "--", npx, "-y", "@example/misspelt"]);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain("npm error code E404");
      expect(run.stderr).toMatch(
        /closed: server_exited \(the server exited; .*minimal allowlist.*env option/,
      );
      const json = await cli(["info", "--json", "--", npx, "-y", "@example/misspelt"]);
      expect(parseJson(json).error).toMatchObject({ kind: "closed", reason: "server_exited" });
      expect(parseJson(json).error.hint).toContain("npm_config_registry");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a server that exits when it receives server/discover (rmcp-style) still lists its tools", async () => {
    const run = await cli([
      "tools",
      "--json",
      "--",
      process.execPath,
      SCRIPTED,
      JSON.stringify({ probe: "exit" }),
    ]);
    expect(run.code).toBe(0);
    expect(parseJson(run).tools.map((t: { name: string }) => t.name)).toContain("echo");
  });
});

describe("conduit-mcp exit status 2: usage errors", () => {
  const cases: Array<[string, string[], string, RegExp]> = [
    ["an unknown command", ["frobnicate", ...EXAMPLE], "unknown_command", /unknown command "frobnicate"/],
    ["an unknown option", ["tools", "--frob", ...EXAMPLE], "unknown_option", /unknown option "--frob"/],
    ["bad JSON arguments", ["call", "add", "{a:1}", ...EXAMPLE], "bad_json", /not valid JSON/],
    [
      "arguments that are not an object",
      ["call", "add", "[1,2]", ...EXAMPLE],
      "bad_json",
      /must be a JSON object/,
    ],
    ["a missing `--`", ["tools"], "missing_server", /missing `--`/],
    ["nothing after `--`", ["tools", "--"], "missing_server", /no server command/],
    ["a missing argument", ["read", ...EXAMPLE], "missing_argument", /read needs <uri>/],
    ["an extra argument", ["tools", "more", ...EXAMPLE], "extra_argument", /unexpected argument "more"/],
    [
      "a bad --protocol",
      ["tools", "--protocol", "2024-11-05", ...EXAMPLE],
      "bad_option",
      /--protocol must be/,
    ],
    ["a bad --timeout", ["tools", "--timeout", "soon", ...EXAMPLE], "bad_option", /--timeout must be/],
    ["no command", [...EXAMPLE], "missing_command", /no command given/],
    [
      "a server command the library refuses",
      ["tools", "--", "my server"],
      "bad_server",
      /bad server command line/,
    ],
  ];

  for (const [what, args, reason, message] of cases) {
    it(`${what}`, async () => {
      const [human, json] = await Promise.all([cli(args), cli(["--json", ...args])]);
      expect(human.code).toBe(2);
      expect(human.stdout).toBe("");
      expect(human.stderr).toMatch(message);
      expect(human.stderr).toContain("Run 'conduit-mcp --help' for usage.");
      expect(json.code).toBe(2);
      const doc = parseJson(json);
      expect(doc.error).toMatchObject({ kind: "usage", reason });
      expect(doc.error.message).toMatch(message);
    });
  }

  it("a bare `conduit-mcp` prints the usage on stderr", async () => {
    const run = await cli([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("Usage: conduit-mcp <command> [options] -- <server command> [args...]");
  });

  it("--help and --version exit 0", async () => {
    const [help, short, version, versionJson] = await Promise.all([
      cli(["--help"]),
      cli(["tools", "-h", "--bogus"]),
      cli(["--version"]),
      cli(["--version", "--json"]),
    ]);
    for (const run of [help, short, version, versionJson]) expect(run.code).toBe(0);
    expect(help.stdout).toContain("Usage: conduit-mcp <command>");
    for (const command of ["info", "tools", "call", "resources", "read", "prompts", "prompt", "watch"]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, "m"));
    }
    expect(short.stdout).toBe(help.stdout);
    expect(version.stdout).toMatch(/^conduit-mcp \d+\.\d+\.\d+\n$/);
    expect(parseJson(versionJson)).toEqual({
      name: "conduit-mcp",
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
  });
});

describe("conduit-mcp against a hostile server", () => {
  const commands = [
    ["info"],
    ["tools"],
    ["call", "peek"],
    ["resources"],
    ["read", "hostile://doc"],
    ["prompts"],
    ["prompt", "p"],
  ];

  it("sanitises every server string in human output", async () => {
    const runs = await Promise.all(commands.map((command) => cli([...command, ...HOSTILE_SERVER])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, commands[i]!.join(" ")).toBe(0);
      // Only the newline may remain of the control characters.
      expect(run.stdout.replace(/\n/g, ""), commands[i]!.join(" ")).not.toMatch(UNSAFE);
      expect(run.stdout, commands[i]!.join(" ")).toMatch(/link exe\.txt hidden/);
      expect(run.stdout).not.toContain("[2J");
    }
    const [info, tools, call] = runs;
    expect(info!.stdout).toContain("server:        hostile 1.0\n");
    expect(info!.stdout).toContain("era:           legacy\n");
    expect(tools!.stdout).toBe("peek  Shows link exe.txt hidden \n");
    expect(call!.stdout).toBe(
      'result link exe.txt hidden \n[image image/png, 5 bytes]\nstructured content: {"note":"structured link exe.txt hidden "}\n',
    );
  });

  it("warns on stderr about the tool it left out; --json stdout stays one document", async () => {
    const run = await cli(["tools", "--json", ...HOSTILE_SERVER]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /warning: server "node cli-hostile-server\.mjs" listed a tool that was left out \(invalid_name\): badname/,
    );
    expect(run.stderr.replace(/\n/g, "")).not.toMatch(UNSAFE);
    expect(parseJson(run).tools.map((t: { name: string }) => t.name)).toEqual(["peek"]);
  });

  it("--json keeps server text exact but escapes every terminal-unsafe character", async () => {
    const run = await cli(["call", "peek", "--json", ...HOSTILE_SERVER]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd()).not.toMatch(UNSAFE);
    expect(run.stdout).toContain("\\u001b[2J");
    expect(run.stdout).toContain("\\u202e");
    const doc = parseJson(run);
    expect(doc.content[0].text).toBe(
      "result \u001b[2J\u001b]0;pwned\u0007\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007 \u202Eexe.txt\u202C \u200Bhidden \u009B31m",
    );
  });
});

describe("rendering", () => {
  it("summarises blocks that are not text", () => {
    expect(
      renderContentBlock({
        type: "image",
        mimeType: "image/png",
        data: Buffer.alloc(1234).toString("base64"),
      }),
    ).toBe("[image image/png, 1234 bytes]");
    expect(renderContentBlock({ type: "audio", mimeType: "audio/wav", data: "AAAA" })).toBe(
      "[audio audio/wav, 3 bytes]",
    );
    expect(renderContentBlock({ type: "resource_link", uri: "file:///a.txt", name: "a" })).toBe(
      "[resource link file:///a.txt (a)]",
    );
    expect(
      renderContentBlock({
        type: "resource",
        resource: { uri: "file:///b", mimeType: "text/plain", text: "hello" },
      }),
    ).toBe("[resource file:///b text/plain, 5 characters]");
    expect(renderContentBlock({ type: "hologram\u001b[31m" })).toBe("[hologram block]");
    expect(renderContentBlock("nonsense")).toBe("[invalid content block]");
  });

  it("clamps long descriptions to one line", () => {
    const tool = { serverId: "s", name: "long", inputSchema: { type: "object" } };
    const text = renderTools([{ ...tool, description: `${"word ".repeat(40)}\nsecond line` }]);
    expect(text.split("\n")).toHaveLength(2);
    expect(text).toMatch(/^long {2}word word .*…\n$/);
    expect(text.length).toBeLessThanOrEqual("long  ".length + 80 + 1);
  });

  it("reads several contents under a header each, a blob as its size", () => {
    const text = renderReadResult({
      contents: [
        { uri: "file:///a.txt", mimeType: "text/plain", text: "alpha\n\nbeta" },
        {
          uri: "file:///b.bin",
          mimeType: "application/octet-stream",
          blob: Buffer.alloc(10).toString("base64"),
        },
      ],
    });
    expect(text).toBe(
      "--- file:///a.txt text/plain\nalpha\n\nbeta\n--- file:///b.bin application/octet-stream\n[blob application/octet-stream, 10 bytes]\n",
    );
  });

  it("prints an empty result as such", () => {
    expect(renderToolResult({ content: [], structured: null, isError: false, meta: null, extra: {} })).toBe(
      "(no content)\n",
    );
  });

  it("jsonDocument round-trips what it escapes", () => {
    const value = { s: "a\u202Eb\u0085c\u2028d\u200Be\u007Ff" };
    const text = jsonDocument(value);
    expect(text).toBe('{"s":"a\\u202eb\\u0085c\\u2028d\\u200be\\u007ff"}\n');
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe("conduit-mcp answering server input", () => {
  const inputServer = (era: "modern" | "legacy") => [
    "--",
    process.execPath,
    `${root}test/fixtures/input-official-server.mjs`,
    era,
  ];

  for (const era of ["modern", "legacy"] as const) {
    it(`${era}: without a terminal a form elicitation is declined, with a note on stderr`, async () => {
      const run = await cli(["call", "ask_form", "--json", ...inputServer(era)]);
      expect(run.code).toBe(0);
      expect(parseJson(run).structuredContent).toEqual({ action: "decline", content: null });
      expect(run.stderr).toContain("declined a form elicitation");
    });

    it(`${era}: --root (repeatable) answers roots/list with file URIs`, async () => {
      const run = await cli([
        "call",
        "ask_roots",
        "--json",
        "--root",
        "/srv/data",
        "--root",
        "test",
        ...inputServer(era),
      ]);
      expect(run.code).toBe(0);
      expect(parseJson(run).structuredContent.roots).toEqual([
        { uri: "file:///srv/data", name: "data" },
        { uri: `file://${root}test`, name: "test" },
      ]);
    });
  }

  it("without --root the CLI declares no roots", async () => {
    const run = await cli(["call", "ask_roots", "--json", ...inputServer("modern")]);
    expect(run.code).toBe(3);
    expect(parseJson(run).error).toMatchObject({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32021 },
    });
  });
});
