// The command-line tool over Streamable HTTP (`--url`), run as users run it: `node
// dist/cli/main.js ...` against real servers on 127.0.0.1 (the official package in both eras,
// server-everything, and test/fixtures/cli-watch-server.mjs), and a recording proxy
// (support/recording-proxy.ts) that checks what headers arrive and can refuse credentials.
// Needs `npm run build` first.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, parseJson, type Run, root, runCli } from "./support/cli.js";
import {
  type RunningServer,
  startEverything,
  startHttpFixture,
  startOfficialHttp,
} from "./support/http-servers.js";
import { recordingProxy } from "./support/recording-proxy.js";

const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> => runCli(args, { env });
const startWatchServer = () => startHttpFixture(WATCH_SERVER, []);
const WATCH_SERVER = `${root}test/fixtures/cli-watch-server.mjs`;
const TOKEN = "tok-7f3a9c1e5b2d4f60a8c1";

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
});

describe("conduit-mcp --url against the official server", () => {
  let dual: RunningServer;
  let legacy: RunningServer;
  beforeAll(async () => {
    [dual, legacy] = await Promise.all([startOfficialHttp("dual"), startOfficialHttp("legacy")]);
  });
  afterAll(async () => {
    await Promise.all([dual?.stop(), legacy?.stop()]);
  });

  it("info in both eras", async () => {
    const [modern, old] = await Promise.all([
      cli(["info", "--json", "--url", dual.url]),
      cli(["info", "--json", "--url", legacy.url]),
    ]);
    expect(modern.code).toBe(0);
    expect(parseJson(modern)).toMatchObject({
      era: "modern",
      version: "2026-07-28",
      serverInfo: { name: "official-http-dual" },
      instructions: "Use echo to repeat things.",
    });
    expect(old.code).toBe(0);
    expect(parseJson(old)).toMatchObject({ era: "legacy", version: "2025-11-25" });
  });

  it("every command works over HTTP, and prints as over stdio", async () => {
    const url = ["--url", dual.url];
    const [tools, call, resources, read, prompts, prompt, legacyCall] = await Promise.all([
      cli(["tools", ...url]),
      cli(["call", "add", '{"a":40,"b":2}', ...url]),
      cli(["resources", ...url]),
      cli(["read", "file:///readme.md", ...url]),
      cli(["prompts", ...url]),
      cli(["prompt", "greeting", '{"name":"Ada"}', ...url]),
      cli(["call", "add", '{"a":40,"b":2}', "--protocol", "legacy", "--url", legacy.url]),
    ]);
    for (const run of [tools, call, resources, read, prompts, prompt, legacyCall]) {
      expect(run.code, run.stderr).toBe(0);
    }
    expect(tools.stdout).toMatch(/^add +Adds two numbers$/m);
    expect(tools.stdout).toMatch(/^echo +Repeats the message$/m);
    expect(call.stdout).toBe('42\nstructured content: {"sum":42}\n');
    expect(legacyCall.stdout).toBe(call.stdout);
    expect(resources.stdout).toMatch(/^file:\/\/\/readme\.md +Read me \(text\/markdown\)$/m);
    expect(resources.stdout).toMatch(/^templates:\nnote:\/\/\{id\} +A note$/m);
    expect(read.stdout).toBe("# Hello\n");
    expect(prompts.stdout).toMatch(/^greeting <name> +Greets someone$/m);
    expect(prompt.stdout).toBe("user: Hello, Ada!\n");
  });

  it("a tool error exits 1 and an unknown resource exits 3, as over stdio", async () => {
    const [fail, missing] = await Promise.all([
      cli(["call", "fail", "--url", dual.url]),
      cli(["read", "file:///nope", "--json", "--url", dual.url]),
    ]);
    expect(fail.code).toBe(1);
    expect(fail.stdout).toBe("it broke\n");
    expect(missing.code).toBe(3);
    expect(parseJson(missing).error).toMatchObject({ kind: "not_found", reason: "unknown_resource" });
  });
});

describe("conduit-mcp --url against server-everything", () => {
  let everything: RunningServer;
  beforeAll(async () => {
    everything = await startEverything("streamableHttp");
  });
  afterAll(async () => {
    await everything?.stop();
  });

  it("lists its tools and calls echo", async () => {
    const [tools, echo] = await Promise.all([
      cli(["tools", "--json", "--url", everything.url]),
      cli(["call", "echo", '{"message":"over http"}', "--url", everything.url]),
    ]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(parseJson(tools).tools.map((t: { name: string }) => t.name)).toContain("echo");
    expect(echo.code, echo.stderr).toBe(0);
    expect(echo.stdout).toContain("over http");
  });
});

describe("conduit-mcp --header and --bearer-env", () => {
  let upstream: { url: string; stop(): Promise<void> };
  beforeAll(async () => {
    upstream = await startWatchServer();
  });
  afterAll(async () => {
    await upstream?.stop();
  });

  it("sends the headers and the bearer token on every request; the token is never printed", async () => {
    const proxy = await recordingProxy(upstream.url, { expectAuthorization: `Bearer ${TOKEN}` });
    try {
      const args = [
        "--url",
        proxy.url,
        "--bearer-env",
        "MY_TOKEN",
        "--header",
        "X-Tenant: acme",
        "--header",
        "x-request-source:cli",
      ];
      const env = { MY_TOKEN: TOKEN };
      const runs = await Promise.all([
        cli(["tools", ...args], env),
        cli(["tools", "--json", ...args], env),
        cli(["call", "echo", '{"message":"hi"}', "--protocol", "legacy", ...args], env),
      ]);
      for (const run of runs) {
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout + run.stderr).not.toContain(TOKEN);
      }
      expect(runs[0]!.stdout).toMatch(/^echo_headers +Answers with the request headers/m);
      expect(runs[2]!.stdout).toBe("hi\n");
      expect(proxy.seen.length).toBeGreaterThan(3);
      for (const headers of proxy.seen) {
        expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
        expect(headers["x-tenant"]).toBe("acme");
        expect(headers["x-request-source"]).toBe("cli");
      }
    } finally {
      await proxy.close();
    }
  });

  it("a server that echoes the token back does not get it printed", async () => {
    const env = { MY_TOKEN: TOKEN };
    const args = ["call", "echo_headers", "--url", upstream.url, "--bearer-env", "MY_TOKEN"];
    const [human, json] = await Promise.all([cli(args, env), cli([...args, "--json"], env)]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('"authorization":"Bearer [secret]"');
    expect(json.code).toBe(0);
    expect(parseJson(json).content[0].text).toContain('"authorization":"Bearer [secret]"');
    for (const run of [human, json]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
  });

  it("a refused token exits 3 with kind auth, and the token appears nowhere", async () => {
    const proxy = await recordingProxy(upstream.url, { expectAuthorization: "Bearer something-else" });
    try {
      const args = ["tools", "--url", proxy.url, "--bearer-env", "MY_TOKEN"];
      const env = { MY_TOKEN: TOKEN };
      const [human, json] = await Promise.all([cli(args, env), cli([...args, "--json"], env)]);
      expect(human.code).toBe(3);
      // The handshake is refused, which closes the client with the refusal itself: `auth`.
      expect(human.stderr).toMatch(/auth: unauthorized \(the server wants credentials, or refused these/);
      expect(json.code).toBe(3);
      expect(parseJson(json).error).toMatchObject({ kind: "auth", reason: "unauthorized" });
      for (const run of [human, json]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
      expect(proxy.seen[0]!.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      await proxy.close();
    }
  });

  it("a server that cannot be reached exits 3", async () => {
    const [human, json] = await Promise.all([
      cli(["tools", "--url", "http://127.0.0.1:1/mcp"]),
      cli(["tools", "--json", "--url", "http://127.0.0.1:1/mcp"]),
    ]);
    expect(human.code).toBe(3);
    expect(human.stderr).toContain("the server could not be reached at --url");
    expect(json.code).toBe(3);
    expect(parseJson(json).error).toMatchObject({ kind: "closed", reason: "network_error" });
  });
});

describe("conduit-mcp exit status 2: HTTP usage errors", () => {
  const URL = ["--url", "http://127.0.0.1:9/mcp"];
  const env = { MY_TOKEN: TOKEN, EMPTY_TOKEN: "", SPACED_TOKEN: `two ${TOKEN}` };
  const cases: Array<[string, string[], string, RegExp]> = [
    [
      "--url and `--` together",
      ["tools", ...URL, "--", "node", "server.mjs"],
      "conflicting_server",
      /either --url or `--`/,
    ],
    ["neither --url nor `--`", ["tools"], "missing_server", /or --url/],
    ["an empty --url", ["tools", "--url", ""], "bad_url", /--url needs/],
    [
      "a --url that is not http",
      ["tools", "--url", "ftp://example.com/"],
      "bad_url",
      /--url must be an http/,
    ],
    ["a --url that is not a URL", ["tools", "--url", "mcp"], "bad_url", /--url must be an absolute/],
    [
      "a --url with user info",
      ["tools", "--url", "http://me:pw@127.0.0.1/mcp"],
      "bad_url",
      /without user info/,
    ],
    [
      "--header without --url",
      ["tools", "--header", "a:b", "--", "node", "server.mjs"],
      "bad_option",
      /--header needs --url/,
    ],
    [
      "--bearer-env without --url",
      ["tools", "--bearer-env", "MY_TOKEN", "--", "node", "server.mjs"],
      "bad_option",
      /--bearer-env needs --url/,
    ],
    ["a --header without a colon", ["tools", ...URL, "--header", "X-Tenant"], "bad_header", /name:value/],
    ["a --header without a name", ["tools", ...URL, "--header", ": x"], "bad_header", /name:value/],
    [
      "an Authorization --header",
      ["tools", ...URL, "--header", "Authorization: Bearer x"],
      "bad_header",
      /--header "Authorization" is one the transport sets itself \(accept, authorization, mcp-\*\.\.\.\); for a bearer token use --bearer-env/,
    ],
    [
      "an mcp-* --header",
      ["tools", ...URL, "--header", "Mcp-Session-Id: abc"],
      "bad_header",
      /--header "Mcp-Session-Id" is one the transport sets itself/,
    ],
    [
      "a --header given twice",
      ["tools", ...URL, "--header", "X-A: 1", "--header", "x-a: 2"],
      "bad_header",
      /given once/,
    ],
    [
      "a --header with an invalid name",
      ["tools", ...URL, "--header", "bad name: 1"],
      "bad_header",
      /valid header names/,
    ],
    [
      "a --header value with a control character",
      ["tools", ...URL, "--header", "X-A: a\u0001b"],
      "bad_header",
      /visible ASCII/,
    ],
    [
      "--bearer-env naming an unset variable",
      ["tools", ...URL, "--bearer-env", "CONDUIT_NO_SUCH_VARIABLE"],
      "missing_token",
      /CONDUIT_NO_SUCH_VARIABLE is not set/,
    ],
    [
      "--bearer-env naming an empty variable",
      ["tools", ...URL, "--bearer-env", "EMPTY_TOKEN"],
      "missing_token",
      /EMPTY_TOKEN is empty/,
    ],
    [
      "a token a header cannot carry",
      ["tools", ...URL, "--bearer-env", "SPACED_TOKEN"],
      "bad_token",
      /the token in SPACED_TOKEN must be visible ASCII/,
    ],
    [
      "a token over plain http to a host that is not loopback",
      ["tools", "--url", "http://mcp.example.com/mcp", "--bearer-env", "MY_TOKEN"],
      "insecure_url",
      /never sent over plain http:\/\/ to a host that is not loopback; use https:\/\//,
    ],
    [
      "--log-level outside watch",
      ["tools", ...URL, "--log-level", "debug"],
      "bad_option",
      /--log-level is an option of watch only/,
    ],
    [
      "--subscribe outside watch",
      ["info", ...URL, "--subscribe", "file:///a"],
      "bad_option",
      /--subscribe is an option of watch only/,
    ],
    [
      "a bad --log-level",
      ["watch", ...URL, "--log-level", "loud"],
      "bad_option",
      /--log-level must be one of debug, info/,
    ],
    [
      "a bad --health-check",
      ["watch", ...URL, "--health-check", "soon"],
      "bad_option",
      /--health-check must/,
    ],
    ["an argument to watch", ["watch", "more", ...URL], "extra_argument", /unexpected argument "more"/],
  ];

  for (const [what, args, reason, message] of cases) {
    it(what, async () => {
      const [human, json] = await Promise.all([cli(args, env), cli(["--json", ...args], env)]);
      expect(human.code, human.stderr).toBe(2);
      expect(human.stdout).toBe("");
      expect(human.stderr).toMatch(message);
      expect(human.stderr).toContain("Run 'conduit-mcp --help' for usage.");
      expect(json.code).toBe(2);
      const doc = parseJson(json);
      expect(doc.error).toMatchObject({ kind: "usage", reason });
      expect(doc.error.message).toMatch(message);
      for (const run of [human, json]) expect(run.stdout + run.stderr).not.toContain(TOKEN);
    });
  }

  it("--help describes the HTTP options and watch", async () => {
    const run = await cli(["--help"]);
    expect(run.code).toBe(0);
    for (const option of [
      "--url <url>",
      "--header <name:value>",
      "--bearer-env <VAR>",
      "--log-level <level>",
    ]) {
      expect(run.stdout).toContain(option);
    }
    expect(run.stdout).toMatch(/^ {2}watch\b/m);
  });
});
