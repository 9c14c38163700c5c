// loadServersConfig over real-world samples of each format (test/fixtures/configs, modelled on
// the hosts' public documentation), variables, and hostile files. Every mistake is a TypeError
// naming the file, the entry and the key, never a value.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_LIMITS } from "../src/hub/config/load-servers-config.js";
import { Hub, loadServersConfig, Secret } from "../src/index.js";
import { OFFICIAL_SERVER, silentLogger } from "./support/index.js";
import { SCRIPTED } from "./support/scripted.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/configs/", import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
const tmp = mkdtempSync(join(tmpdir(), "hub-config-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
function file(text: string): string {
  const p = join(tmp, `c${++n}.json`);
  writeFileSync(p, text);
  return p;
}

const ENV = {
  GITHUB_TOKEN: "ghp_secretvalue123",
  HOME: "/home/ada",
  LOCAL_API_KEY: "local-key-999",
  LINEAR_TOKEN: "lin_tok_abc",
  FIGMA_TOKEN: "figd_xyz",
  OLD_SSE_KEY: "old-key-1",
};

/** A TypeError's message, asserting it never shows a value of the environment. */
function refusal(fn: () => unknown): string {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(TypeError);
  const message = (err as Error).message;
  for (const value of Object.values(ENV)) expect(message).not.toContain(value);
  return message;
}

describe("the formats people already have", () => {
  it("Claude Desktop: stdio entries; env values built from variables are Secrets", () => {
    const logger = silentLogger();
    const servers = loadServersConfig(fixture("claude_desktop_config.json"), { env: ENV, logger });
    expect(Object.keys(servers)).toEqual(["filesystem", "github"]);
    expect(servers.filesystem!.transport).toEqual({
      type: "stdio",
      command: "npx",
      args: [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/username/Desktop",
        "/Users/username/Downloads",
      ],
    });
    const env = new Map((servers.github!.transport as unknown as { env: Array<[string, unknown]> }).env);
    expect(env.get("GITHUB_PERSONAL_ACCESS_TOKEN")).toBeInstanceOf(Secret);
    expect((env.get("GITHUB_PERSONAL_ACCESS_TOKEN") as Secret).reveal()).toBe(ENV.GITHUB_TOKEN);
    expect(env.get("GITHUB_TOOLSETS")).toBe("repos,issues");
    expect(JSON.stringify(servers)).not.toContain(ENV.GITHUB_TOKEN);
    // Top-level keys of the host's own are not entries and draw no warning.
    expect(logger.warnings).toEqual([]);
  });

  it("Cursor: cwd relative to the file, ${env:VAR}, remote url with a bearer header, sse", () => {
    const servers = loadServersConfig(fixture("cursor-mcp.json"), { env: ENV });
    const local = servers["local-tools"]!.transport as unknown as Record<string, unknown>;
    expect(local).toMatchObject({
      type: "stdio",
      command: "node",
      args: ["/home/ada/mcp/server.js", "--verbose"],
      cd: join(FIXTURES, "servers/local"),
    });
    const env = new Map(local.env as Array<[string, unknown]>);
    expect((env.get("API_KEY") as Secret).reveal()).toBe(ENV.LOCAL_API_KEY);
    expect(env.get("LOG_LEVEL")).toBe("debug");
    const linear = servers.linear!.transport as unknown as Record<string, unknown>;
    expect(linear.type).toBe("http");
    expect(linear.url).toBe("https://mcp.linear.app/mcp");
    // Authorization is the transport's own header: a bearer token becomes its auth.
    expect(((linear.auth as { bearer: Secret }).bearer as Secret).reveal()).toBe(ENV.LINEAR_TOKEN);
    const headers = new Map(linear.headers as Array<[string, unknown]>);
    expect(headers.has("Authorization")).toBe(false);
    expect((headers.get("X-Workspace") as Secret).reveal()).toBe("acme"); // the default
    expect(servers["legacy-events"]!.transport).toEqual({
      type: "http",
      url: "http://localhost:8931/sse",
      legacySse: "only",
    });
  });

  it("Windsurf: serverUrl, disabled entries skipped, one warning per unknown key", () => {
    const logger = silentLogger();
    const servers = loadServersConfig(fixture("windsurf-mcp_config.json"), { env: ENV, logger });
    expect(Object.keys(servers)).toEqual(["github", "figma"]);
    expect((servers.figma!.transport as unknown as { url: string }).url).toBe(
      "https://mcp.figma.example/mcp",
    );
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toMatch(/server "github": unknown key "disabledTools" ignored/);
  });

  it("VS Code: comments and trailing commas, types, inputs present but unused (a warning)", () => {
    const logger = silentLogger();
    const servers = loadServersConfig(fixture("vscode-mcp.json"), { env: ENV, logger });
    expect(Object.keys(servers)).toEqual(["memory", "github", "old-sse"]);
    const env = new Map((servers.memory!.transport as unknown as { env: Array<[string, unknown]> }).env);
    expect((env.get("MEMORY_FILE_PATH") as Secret).reveal()).toBe("/tmp/memory.json");
    expect(servers.github!.transport).toEqual({ type: "http", url: "https://api.githubcopilot.com/mcp/" });
    expect(servers["old-sse"]!.transport).toMatchObject({ type: "http", legacySse: "only" });
    expect(logger.warnings).toEqual([expect.stringMatching(/"inputs" is ignored/)]);
  });

  it("VS Code inputs used by an entry: a clear error", () => {
    const message = refusal(() => loadServersConfig(fixture("vscode-inputs.json"), { env: ENV }));
    expect(message).toContain("vscode-inputs.json");
    expect(message).toContain('server "Perplexity"');
    expect(message).toContain('"env.PERPLEXITY_API_KEY"');
    expect(message).toMatch(/"inputs" prompts are not supported/);
  });

  it("VS Code settings: servers under mcp", () => {
    const servers = loadServersConfig({ mcp: { servers: { a: { type: "stdio", command: "node" } } } });
    expect(servers.a!.transport).toEqual({ type: "stdio", command: "node" });
  });

  it("a loaded file runs: a hub over the official server from a config object", async () => {
    const servers = loadServersConfig(
      { mcpServers: { official: { command: process.execPath, args: [OFFICIAL_SERVER, "${ERA:-dual}"] } } },
      { env: {} },
    );
    const logger = silentLogger();
    const hub = new Hub({ servers, logger, clientOptions: { logger } });
    try {
      expect((await hub.listTools()).map((t) => t.name)).toContain("mcp__official__echo");
    } finally {
      await hub.close();
    }
  });
});

describe("every stdio key a host file may hold reaches the server", () => {
  it("command, args, env and cwd (relative to the file), in the mcpServers and the VS Code form", async () => {
    const work = join(tmp, "work dir");
    mkdirSync(join(work, "sub"), { recursive: true });
    // The scripted server's cwd and env tools answer with its working directory and environment.
    const tools = ["cwd", "env"].map((name) => ({ name, inputSchema: { type: "object" } }));
    const entry = (extra: Record<string, unknown>) => ({
      command: process.execPath,
      args: [SCRIPTED, JSON.stringify({ tools })],
      env: { FROM_FILE: "${WHERE:-file}" },
      ...extra,
    });
    const path = join(work, "mcp.json");
    writeFileSync(
      path,
      JSON.stringify({
        mcpServers: { desktop: entry({ cwd: "sub" }), absolute: entry({ cwd: work }) },
      }),
    );
    const vscode = join(work, "vscode.json");
    writeFileSync(vscode, JSON.stringify({ servers: { editor: entry({ type: "stdio", cwd: "./sub" }) } }));
    const logger = silentLogger();
    const servers = {
      ...loadServersConfig(path, { env: {}, logger }),
      ...loadServersConfig(vscode, { env: {}, logger }),
    };
    expect(logger.warnings).toEqual([]);
    const hub = new Hub({ servers, logger, clientOptions: { logger } });
    try {
      await hub.ready({ timeout: 20_000 });
      expect((await hub.listTools()).map((t) => t.name)).toContain("mcp__editor__cwd");
      const text = (r: { content: Array<Record<string, unknown>> }) => String(r.content[0]?.text);
      const sub = realpathSync(join(work, "sub"));
      expect(text(await hub.callTool("mcp__desktop__cwd", {}))).toBe(sub);
      expect(text(await hub.callTool("mcp__editor__cwd", {}))).toBe(sub);
      expect(text(await hub.callTool("mcp__absolute__cwd", {}))).toBe(realpathSync(work));
      const env = (await hub.callTool("mcp__desktop__env", {})).structured as Record<string, string>;
      expect(env.FROM_FILE).toBe("file");
    } finally {
      await hub.close();
    }
  });

  it("a cwd that is not a directory is the stdio transport's refusal, naming the server", async () => {
    const servers = loadServersConfig(
      {
        mcpServers: {
          gone: { command: process.execPath, args: [SCRIPTED, "{}"], cwd: join(tmp, "missing") },
        },
      },
      { env: {} },
    );
    const logger = silentLogger();
    const hub = new Hub({ servers, logger, clientOptions: { logger } });
    try {
      const status = await hub.ready({ timeout: 20_000 });
      expect(status.servers.gone?.state).not.toBe("ready");
    } finally {
      await hub.close();
    }
  });
});

describe("variables", () => {
  const load = (value: unknown, env: Record<string, string | undefined>) =>
    loadServersConfig({ mcpServers: { s: { command: "node", args: [value] } } }, { env });
  const arg = (value: string, env: Record<string, string | undefined>) =>
    (load(value, env).s!.transport as unknown as { args: string[] }).args[0];

  it("${VAR}, ${env:VAR}, ${VAR:-default}, several in one value, expanded once", () => {
    expect(arg("${A}", { A: "1" })).toBe("1");
    expect(arg("${env:A}-${B}", { A: "1", B: "2" })).toBe("1-2");
    expect(arg("${A:-fallback}", {})).toBe("fallback");
    expect(arg("${A:-}", {})).toBe("");
    expect(arg("${A:-x}", { A: "set" })).toBe("set");
    // A value holding ${...} is not expanded again.
    expect(arg("${A}", { A: "${B}", B: "no" })).toBe("${B}");
    expect(arg("plain $HOME and $", { HOME: "x" })).toBe("plain $HOME and $");
  });

  it("an unset (or empty) variable without a default is an error naming it", () => {
    expect(refusal(() => load("${MISSING_ONE}", {}))).toMatch(
      /"args\[0\]" uses the variable MISSING_ONE, which is not set/,
    );
    expect(refusal(() => load("${EMPTY}", { EMPTY: "" }))).toMatch(/EMPTY, which is empty/);
  });

  it("malformed references are errors; variables in odd places are never expanded", () => {
    expect(refusal(() => load("${A", { A: "1" }))).toMatch(/without its closing/);
    expect(refusal(() => load("${}", {}))).toMatch(/not a variable/);
    expect(refusal(() => load("${A B}", {}))).toMatch(/not a variable/);
    expect(refusal(() => load("${workspace\u202eFolder}", {}))).not.toMatch(/\u202e/);
    // In a server name or a key: literal text, not a variable.
    const servers = loadServersConfig(
      { mcpServers: { "${NAME}": { command: "node", env: { "${KEY}": "v" } } } },
      { env: { NAME: "evil", KEY: "PATH" } },
    );
    expect(Object.keys(servers)).toEqual(["${NAME}"]);
    expect((servers["${NAME}"]!.transport as unknown as { env: unknown[] }).env).toEqual([["${KEY}", "v"]]);
    // In type: not expanded, so not a type.
    expect(
      refusal(() =>
        loadServersConfig({ mcpServers: { s: { type: "${T}", command: "x" } } }, { env: { T: "stdio" } }),
      ),
    ).toMatch(/"type" must be one of/);
  });

  it("url and headers are interpolated; a non-bearer Authorization is refused without its value", () => {
    const servers = loadServersConfig(
      { mcpServers: { r: { url: "https://${HOST}/mcp", headers: { "X-Key": "k-${KEY}" } } } },
      { env: { HOST: "mcp.example.com", KEY: "sekrit" } },
    );
    expect((servers.r!.transport as unknown as { url: string }).url).toBe("https://mcp.example.com/mcp");
    const message = refusal(() =>
      loadServersConfig(
        { mcpServers: { r: { url: "https://x", headers: { Authorization: "Basic ${GITHUB_TOKEN}" } } } },
        { env: ENV },
      ),
    );
    expect(message).toMatch(/"headers.Authorization" must be "Bearer <token>"/);
  });
});

describe("malformed and hostile files", () => {
  it("each mistake names the file, the entry and the key", () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ mcpServers: { a: { command: 1 } } }, /server "a": "command" must be a string/],
      [{ mcpServers: { a: { command: "" } } }, /server "a": "command" must be a non-empty string/],
      [{ mcpServers: { a: { command: "x", args: "y" } } }, /"args" must be an array/],
      [{ mcpServers: { a: { command: "x", args: ["ok", 3000] } } }, /"args\[1\]" must be a string/],
      [{ mcpServers: { a: { command: "x", env: { A: true } } } }, /"env.A" must be a string/],
      [{ mcpServers: { a: { command: "x", url: "https://y" } } }, /local or remote, not both/],
      [{ mcpServers: { a: {} } }, /server "a": needs "command"/],
      [{ mcpServers: { a: { type: "websocket", url: "ws://x" } } }, /"type" must be one of/],
      [{ mcpServers: { a: "npx x" } }, /server "a": must be an object/],
      [{ mcpServers: { a: { command: "x", disabled: "yes" } } }, /"disabled" must be true or false/],
      [{ mcpServers: { a: { command: "x", cwd: "rel" } } }, /"cwd" must be an absolute path/],
      [{ mcpServers: [] }, /"mcpServers" must be an object/],
      [{ servers: { a: { type: "http" } } }, /"url" must be a non-empty string/],
      [{ other: 1 }, /has no "mcpServers"/],
      [{ mcpServers: { "": { command: "x" } } }, /non-empty/],
      [{ mcpServers: { "my.fs": { command: "x" }, my_fs: { command: "y" } } }, /collide/],
    ];
    for (const [doc, pattern] of cases) {
      const message = refusal(() => loadServersConfig(doc as Record<string, unknown>, { env: {} }));
      expect(message).toMatch(pattern);
      expect(message).toMatch(/^conduit-mcp: "<object>"/);
    }
    expect(refusal(() => loadServersConfig(file('{"mcpServers": {"a": {"command": 1}}}')))).toMatch(
      /c\d+\.json": server "a": "command" must be a string/,
    );
  });

  it("not JSON, missing, too big, too deep, too many servers", () => {
    expect(refusal(() => loadServersConfig(file('{"mcpServers": {"a": ')))).toMatch(
      /not valid JSON \(.* at line 1/,
    );
    expect(refusal(() => loadServersConfig(join(tmp, "nope.json")))).toMatch(/cannot be read \(ENOENT\)/);
    const big = file(`{"mcpServers": {}, "pad": "${"x".repeat(CONFIG_LIMITS.maxBytes)}"}`);
    expect(refusal(() => loadServersConfig(big))).toMatch(/larger than/);
    expect(refusal(() => loadServersConfig(file("[1]")))).toMatch(/must be a JSON object/);
    // Deep nesting, as strict JSON and as JSON with comments (the other parser).
    const deep = `{"mcpServers": {}, "x": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    expect(refusal(() => loadServersConfig(file(deep)))).toMatch(/nested/);
    expect(refusal(() => loadServersConfig(file(`// c\n${deep}`)))).toMatch(/nested/);
    const many = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`s${i}`, { command: "x" }]));
    expect(refusal(() => loadServersConfig({ mcpServers: many }))).toMatch(/more than 1000 servers/);
    expect(refusal(() => loadServersConfig(42 as unknown as string))).toMatch(
      /file path or a configuration object/,
    );
  });

  it("__proto__ keys are refused, in strict JSON and in JSON with comments", () => {
    for (const text of [
      '{"mcpServers": {"__proto__": {"command": "x"}}}',
      '{"mcpServers": {"a": {"__proto__": {"command": "evil"}}}}',
      '// comment\n{"mcpServers": {"a": {"__proto__": {"command": "evil"}},}}',
    ]) {
      expect(refusal(() => loadServersConfig(file(text)))).toMatch(/__proto__/);
    }
    // Other prototype names are plain names, and no entry inherits keys.
    const servers = loadServersConfig(
      file('{"mcpServers": {"constructor": {"command": "x", "toString": 1}}}'),
      {
        logger: silentLogger(),
      },
    );
    expect(servers["constructor"]!.transport).toEqual({ type: "stdio", command: "x" });
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it("a BOM is skipped", () => {
    const servers = loadServersConfig(file('\ufeff{"mcpServers": {"a": {"command": "x"}}}'));
    expect(Object.keys(servers)).toEqual(["a"]);
  });

  it("bad options are TypeErrors", () => {
    expect(() => loadServersConfig({ mcpServers: {} }, { maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => loadServersConfig({ mcpServers: {} }, { logger: {} as never })).toThrow(/logger/);
    expect(() => loadServersConfig({ mcpServers: {} }, null as never)).toThrow(TypeError);
  });
});
