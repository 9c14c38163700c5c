// The client against real MCP servers over stdio, all in one run: the official
// `@modelcontextprotocol/server` package configured dual-era, modern-only and legacy-only (see
// test/fixtures/official-server.mjs), and `@modelcontextprotocol/server-everything` (built on the
// 1.x SDK, which lands in the legacy era). Each server gets the same battery through a profile
// that names its tools, resources and prompts; each also gets lifecycle tests on fresh clients.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Client,
  type ClientOptions,
  type CompletionRef,
  type ConnectionState,
  type Era,
  type LogLevel,
  McpClientError,
  type ProgressParams,
  type StdioTransportOptions,
  type Tool,
} from "../src/index.js";
import {
  ClientPool,
  everythingServer,
  officialServer,
  poolForTest,
  recordEvents,
  rejectionOf,
  silentLogger,
  unexpectedKeys,
  uniqueName,
  type WireMessage,
  WireTap,
  watch,
} from "./support/index.js";
import { expectEveryProgress } from "./support/progress.js";

// ---- profiles ----------------------------------------------------------------------------------

interface Profile {
  label: string;
  transport: (overrides?: Partial<StdioTransportOptions>) => StdioTransportOptions;
  era: Era;
  version: string;
  serverInfo: Record<string, string>;
  capabilities: string[];
  instructions: string | RegExp;
  /** The messages the client writes to shake hands in `protocol: "auto"`. */
  handshake: string[];
  /** Connection states after `connecting`, in order, up to `ready`. */
  transitions: ConnectionState[];
  /** The tools listed: exactly these (`exact`) or at least these. */
  tools: { names: string[]; exact: boolean };
  echo: {
    name: string;
    args: (message: string) => Record<string, unknown>;
    text: (message: string) => string;
  };
  sum: { name: string; args: Record<string, unknown>; text: string };
  structured: { name: string; args: Record<string, unknown>; value: unknown };
  /** Calls the tool runs and reports as failed (`isError: true`). */
  toolErrors: Array<{ name: string; args: Record<string, unknown>; text: RegExp }>;
  /** A tool that reports progress `steps` times, every `every` ms, and honours cancellation. */
  slow: (steps: number, every: number) => { name: string; args: Record<string, unknown> };
  resource: { uri: string; listed: Record<string, unknown>; mimeType: string; text: string };
  template: { uriTemplate: string; listed: Record<string, unknown>; uri: string; text: RegExp };
  /** A prompt with one string argument `key` that the rendered text shows. */
  prompt: {
    name: string;
    key: string;
    render: (value: string) => string;
    listedArguments: Array<Record<string, unknown>>;
    /** Extra arguments set to null or undefined, which must never reach the server. */
    nullish: Record<string, null | undefined>;
  };
  completion: {
    ref: CompletionRef;
    wireRef: CompletionRef;
    argument: { name: string; value: string };
    values: string[];
    context?: {
      arguments: Record<string, string>;
      argument: { name: string; value: string };
      values: string[];
    };
  };
  templateCompletion: { ref: CompletionRef; argument: { name: string; value: string }; values: string[] };
}

function official(config: "dual" | "modern" | "legacy"): Profile {
  const modern = config !== "legacy";
  return {
    label: `official server (${config})`,
    transport: (o) => officialServer(config, o),
    era: modern ? "modern" : "legacy",
    version: modern ? "2026-07-28" : "2025-11-25",
    serverInfo: { name: `official-${config}`, version: "1.0.0" },
    capabilities: ["tools", "resources", "prompts", "completions", "logging"],
    instructions: "Use echo to repeat things.",
    handshake: modern ? ["server/discover"] : ["server/discover", "initialize", "notifications/initialized"],
    transitions: modern ? ["discovering", "ready"] : ["discovering", "initializing", "ready"],
    tools: { names: ["echo", "add", "fail", "slow"], exact: true },
    echo: { name: "echo", args: (message) => ({ message }), text: (message) => message },
    sum: { name: "add", args: { a: 2, b: 3 }, text: "5" },
    structured: { name: "add", args: { a: 2, b: 3 }, value: { sum: 5 } },
    toolErrors: [
      { name: "fail", args: {}, text: /^it broke$/ },
      { name: "echo", args: { message: 5 }, text: /message/ },
    ],
    slow: (steps, every) => ({ name: "slow", args: { steps, every } }),
    resource: {
      uri: "file:///readme.md",
      listed: { name: "readme", title: "Read me", mimeType: "text/markdown" },
      mimeType: "text/markdown",
      text: "# Hello",
    },
    template: {
      uriTemplate: "note://{id}",
      listed: { name: "note", title: "A note" },
      uri: "note://42",
      text: /^note 42$/,
    },
    prompt: {
      name: "greeting",
      key: "name",
      render: (v) => `Hello, ${v}!`,
      listedArguments: [{ name: "name", required: true }],
      nullish: { nickname: null, alias: undefined },
    },
    completion: {
      ref: { prompt: "greeting" },
      wireRef: { type: "ref/prompt", name: "greeting" },
      argument: { name: "name", value: "A" },
      values: ["Ada", "Alan"],
    },
    templateCompletion: {
      ref: { resource: "note://{id}" },
      argument: { name: "id", value: "4" },
      values: [],
    },
  };
}

const EVERYTHING_DOCS = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/docs/", import.meta.url),
);

const everything: Profile = {
  label: "server-everything",
  transport: (o) => everythingServer(o),
  // Built on the 1.x SDK: it answers `server/discover` with -32601, so the probe falls back.
  era: "legacy",
  version: "2025-11-25",
  serverInfo: { name: "mcp-servers/everything", title: "Everything Reference Server", version: "2.0.0" },
  capabilities: ["tools", "resources", "prompts", "completions", "logging"],
  instructions: /\S/,
  handshake: ["server/discover", "initialize", "notifications/initialized"],
  transitions: ["discovering", "initializing", "ready"],
  tools: {
    names: ["echo", "get-sum", "get-structured-content", "trigger-long-running-operation"],
    exact: false,
  },
  echo: { name: "echo", args: (message) => ({ message }), text: (message) => `Echo: ${message}` },
  sum: { name: "get-sum", args: { a: 2, b: 3 }, text: "The sum of 2 and 3 is 5." },
  structured: {
    name: "get-structured-content",
    args: { location: "Chicago" },
    value: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
  },
  toolErrors: [{ name: "echo", args: { message: 5 }, text: /Input validation error/ }],
  slow: (steps, every) => ({
    name: "trigger-long-running-operation",
    args: { duration: (steps * every) / 1000, steps },
  }),
  resource: {
    uri: "demo://resource/static/document/instructions.md",
    listed: { name: "instructions.md", mimeType: "text/markdown" },
    mimeType: "text/markdown",
    text: readFileSync(`${EVERYTHING_DOCS}instructions.md`, "utf8"),
  },
  template: {
    uriTemplate: "demo://resource/dynamic/text/{resourceId}",
    listed: { name: "Dynamic Text Resource", mimeType: "text/plain" },
    uri: "demo://resource/dynamic/text/7",
    text: /^Resource 7: This is a plaintext resource/,
  },
  prompt: {
    name: "args-prompt",
    key: "city",
    render: (v) => `What's weather in ${v}?`,
    listedArguments: [
      { name: "city", required: true },
      { name: "state", required: false },
    ],
    // `state` is a real optional argument: sent as "null" it would render as "<city>, null".
    nullish: { state: null, country: undefined },
  },
  completion: {
    ref: { prompt: "completable-prompt" },
    wireRef: { type: "ref/prompt", name: "completable-prompt" },
    argument: { name: "department", value: "E" },
    values: ["Engineering"],
    context: {
      arguments: { department: "Engineering" },
      argument: { name: "name", value: "" },
      values: ["Alice", "Bob", "Charlie"],
    },
  },
  templateCompletion: {
    ref: { resource: "demo://resource/dynamic/text/{resourceId}" },
    argument: { name: "resourceId", value: "7" },
    values: ["7"],
  },
};

const PROFILES: Profile[] = [official("dual"), official("modern"), official("legacy"), everything];

// ---- helpers -----------------------------------------------------------------------------------

/** The default request timeout in this suite: short, so nothing can hang a run. */
const REQUEST_TIMEOUT = 5_000;

async function expectClientError(p: Promise<unknown>, kind: McpClientError["kind"]): Promise<McpClientError> {
  const e = await rejectionOf(p);
  expect(e).toBeInstanceOf(McpClientError);
  expect((e as McpClientError).kind).toBe(kind);
  return e as McpClientError;
}

function textOf(block: unknown): unknown {
  return (block as { text?: unknown }).text;
}

/** The sent request that carried `progressToken` in its `_meta`. */
function requestWithToken(tap: WireTap, token: string | number): WireMessage | undefined {
  return tap.sent.find(
    (m) =>
      m.id !== undefined &&
      (m.params?._meta as { progressToken?: unknown } | undefined)?.progressToken === token,
  );
}

/** What `fn` threw (undefined if it did not). */
function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function baseOptions(serverId: string): Omit<ClientOptions, "transport"> {
  return { name: uniqueName("real"), serverId, requestTimeout: REQUEST_TIMEOUT };
}

// ---- the battery, per server -------------------------------------------------------------------

/** A ready client's status; a legacy server was probed first, and the status says why it is legacy. */
const readyStatus = (profile: Profile) => ({
  state: "ready",
  era: profile.era,
  version: profile.version,
  reason: null,
  ...(profile.era === "legacy"
    ? { fallbackReason: "server/discover got JSON-RPC error -32601 (method not found)" }
    : {}),
});

describe.each(PROFILES)("$label", (profile) => {
  const serverId = `sid-${profile.label.replace(/\W+/g, "-")}`;
  const logger = silentLogger();
  let tap: WireTap;
  let client: Client;
  const pool = new ClientPool();

  beforeAll(async () => {
    tap = new WireTap(profile.transport());
    client = pool.create({ ...baseOptions(serverId), transport: tap, logger });
    await client.ready();
  });

  afterAll(() => pool.closeAll());

  it(`lands in the ${profile.era} era (${profile.version})`, () => {
    expect(client.status()).toEqual(readyStatus(profile));
    expect(client.era()).toBe(profile.era);
    const info = client.serverInfo();
    expect(info.era).toBe(profile.era);
    expect(info.version).toBe(profile.version);
    expect(info.serverInfo).toEqual(profile.serverInfo);
    for (const cap of profile.capabilities) expect(info.capabilities[cap]).toEqual(expect.any(Object));
    if (typeof profile.instructions === "string") expect(info.instructions).toBe(profile.instructions);
    else expect(info.instructions).toMatch(profile.instructions);
    // Not for a model unless asked for.
    expect(client.instructionsForLlm()).toBeNull();
    expect(client.serverId).toBe(serverId);
    expect(client.serverId).not.toBe(client.name);

    // One process, one handshake: the probe (and, for legacy, initialize) on the same pipe.
    expect(tap.starts).toBe(1);
    expect(tap.sent.slice(0, profile.handshake.length).map((m) => m.method)).toEqual(profile.handshake);
    const probe = tap.sent[0]!;
    expect(probe.params?._meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": "2026-07-28" });
    if (profile.era === "legacy") {
      expect(tap.sent[1]!.params).toMatchObject({
        protocolVersion: "2025-11-25",
        clientInfo: { name: "conduit-mcp" },
      });
    }
  });

  it("lists tools, each stamped with the serverId", async () => {
    const [page, all] = await Promise.all([client.listTools(), client.listAllTools()]);
    expect(page.nextCursor).toBeNull();
    const names = page.tools.map((t) => t.name);
    if (profile.tools.exact) expect(names).toEqual(profile.tools.names);
    else expect(names).toEqual(expect.arrayContaining(profile.tools.names));
    expect(new Set(names).size).toBe(names.length);
    for (const tool of page.tools) {
      expect(tool.serverId).toBe(serverId);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool).not.toHaveProperty("_meta");
    }
    const byName = new Map(page.tools.map((t) => [t.name, t]));
    const echo = byName.get(profile.echo.name) as Tool;
    expect(echo.inputSchema.properties).toHaveProperty("message");
    expect(byName.get(profile.structured.name)?.outputSchema?.type).toBe("object");
    expect(all).toEqual(page.tools);
  });

  it("lists resources and resource templates, each stamped with the serverId", async () => {
    const [page, all, templates, allTemplates] = await Promise.all([
      client.listResources(),
      client.listAllResources(),
      client.listResourceTemplates(),
      client.listAllResourceTemplates(),
    ]);
    expect(page.nextCursor).toBeNull();
    expect(page.resources.length).toBeGreaterThan(0);
    for (const r of page.resources) expect(r.serverId).toBe(serverId);
    expect(page.resources).toContainEqual(
      expect.objectContaining({ serverId, uri: profile.resource.uri, ...profile.resource.listed }),
    );
    expect(all).toEqual(page.resources);

    expect(templates.nextCursor).toBeNull();
    for (const t of templates.resourceTemplates) expect(t.serverId).toBe(serverId);
    expect(templates.resourceTemplates).toContainEqual(
      expect.objectContaining({
        serverId,
        uriTemplate: profile.template.uriTemplate,
        ...profile.template.listed,
      }),
    );
    expect(allTemplates).toEqual(templates.resourceTemplates);
  });

  it("lists prompts, each stamped with the serverId", async () => {
    const [page, all] = await Promise.all([client.listPrompts(), client.listAllPrompts()]);
    expect(page.nextCursor).toBeNull();
    for (const p of page.prompts) expect(p.serverId).toBe(serverId);
    const prompt = page.prompts.find((p) => p.name === profile.prompt.name);
    expect(prompt?.arguments?.map(({ name, required }) => ({ name, required }))).toEqual(
      profile.prompt.listedArguments,
    );
    expect(all).toEqual(page.prompts);
  });

  it("calls tools: content, structured, isError, meta and extra", async () => {
    const message = `hello ${randomUUID()}`;
    const [echo, sum, structured] = await Promise.all([
      client.callTool(profile.echo.name, profile.echo.args(message)),
      client.callTool(profile.sum.name, profile.sum.args),
      client.callTool(profile.structured.name, profile.structured.args),
    ]);
    expect(echo.content).toEqual([{ type: "text", text: profile.echo.text(message) }]);
    expect(echo.structured).toBeNull();
    expect(echo.isError).toBe(false);
    expect(echo.extra).toEqual({});
    expect(textOf(sum.content[0])).toBe(profile.sum.text);
    expect(structured.structured).toEqual(profile.structured.value);
    expect(structured.isError).toBe(false);
    for (const r of [echo, sum, structured]) {
      // `_meta` surfaces as `meta` (modern servers put their serverInfo there), never in `extra`.
      if (profile.era === "modern")
        expect(r.meta).toMatchObject({ "io.modelcontextprotocol/serverInfo": {} });
      else expect(r.meta).toBeNull();
      expect(r.extra).not.toHaveProperty("_meta");
      expect(r.extra).not.toHaveProperty("resultType");
      expect(r.extra).not.toHaveProperty("structuredContent");
    }
  });

  it("a tool that ran and failed is a result with isError: true, never a rejection", async () => {
    const results = await Promise.all(profile.toolErrors.map((t) => client.callTool(t.name, t.args)));
    results.forEach((r, i) => {
      expect(r.isError).toBe(true);
      expect(r.structured).toBeNull();
      expect(textOf(r.content[0])).toMatch(profile.toolErrors[i]!.text);
    });
    // A tool the server does not list: refused by the client, nothing sent (requests.md).
    const sentBefore = tap.sent.length;
    const unknown = await expectClientError(client.callTool("no-such-tool", {}), "not_found");
    expect(unknown.reason).toBe("unknown_tool");
    expect(tap.sent.slice(sentBefore).some((m) => m.method === "tools/call")).toBe(false);
    // And the client goes on.
    expect((await client.callTool(profile.echo.name, profile.echo.args("after"))).isError).toBe(false);
  });

  it("reports progress through onProgress, with increasing values", async () => {
    const progress: ProgressParams[] = [];
    const mark = tap.sent.length;
    const slow = profile.slow(3, 20);
    const result = await client.callTool(slow.name, slow.args, { onProgress: (p) => progress.push(p) });
    expect(result.isError).toBe(false);
    expectEveryProgress(
      progress.map((p) => p.progress),
      3,
    );
    for (const p of progress) expect(p.total).toBe(3);
    const tokens = new Set(progress.map((p) => p.progressToken));
    expect(tokens.size).toBe(1);
    // The token went out in the request's `_meta`, and only on that request.
    const [token] = tokens;
    const request = requestWithToken(tap, token!);
    expect(request?.method).toBe("tools/call");
    expect(tap.sent.indexOf(request!)).toBeGreaterThanOrEqual(mark);

    // Without onProgress no token is asked for.
    const before = tap.sent.length;
    await client.callTool(slow.name, profile.slow(1, 1).args);
    const plain = tap.sent.slice(before).find((m) => m.method === "tools/call");
    expect(plain?.params?._meta ?? {}).not.toHaveProperty("progressToken");
  });

  it("resetTimeoutOnProgress keeps a call longer than its timeout alive, up to maxTotalTimeout", async () => {
    // 8 steps of 40 ms: 320 ms in all, with progress far more often than the 200 ms timeout.
    const slow = profile.slow(8, 40);
    const seen = { plain: 0, capped: 0 };
    const resetValues: number[] = [];
    const [reset, plain, capped] = await Promise.allSettled([
      client.callTool(slow.name, slow.args, {
        timeout: 200,
        resetTimeoutOnProgress: true,
        onProgress: (p) => void resetValues.push(p.progress),
      }),
      // The same call without the reset times out...
      client.callTool(slow.name, slow.args, { timeout: 200, onProgress: () => void seen.plain++ }),
      // ...and so does the reset one when maxTotalTimeout is shorter than the call.
      client.callTool(slow.name, slow.args, {
        timeout: 200,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 260,
        onProgress: () => void seen.capped++,
      }),
    ]);
    expect(reset.status).toBe("fulfilled");
    expectEveryProgress(resetValues, 8);
    expect(plain.status === "rejected" && McpClientError.is(plain.reason, "timeout")).toBe(true);
    expect(capped.status === "rejected" && McpClientError.is(capped.reason, "timeout")).toBe(true);
    expect(seen.plain).toBeGreaterThan(0);
    expect(seen.capped).toBeGreaterThan(0);
    expect((await client.callTool(profile.echo.name, profile.echo.args("x"))).isError).toBe(false);
  });

  it("reads resources and templated resources", async () => {
    const [direct, templated] = await Promise.all([
      client.readResource(profile.resource.uri),
      client.readResource(profile.template.uri),
    ]);
    expect(direct.contents).toEqual([
      { uri: profile.resource.uri, mimeType: profile.resource.mimeType, text: profile.resource.text },
    ]);
    const [content] = templated.contents as Array<{ uri: string; text: string }>;
    expect(content?.uri).toBe(profile.template.uri);
    expect(content?.text).toMatch(profile.template.text);

    const e = await expectClientError(client.readResource("nope://missing"), "protocol");
    expect(e.reason).toBe("jsonrpc_error");
    expect(e.detail).toEqual({ jsonrpc: expect.any(Number) });
  });

  it("gets prompts with arguments turned into strings, null and undefined dropped", async () => {
    const { name, key, render, nullish } = profile.prompt;
    const cases: Array<[unknown, string]> = [
      ["Ada", "Ada"],
      [7, "7"],
      [true, "true"],
      [{ first: "Ada" }, '{"first":"Ada"}'],
    ];
    const mark = tap.sent.length;
    const results = await Promise.all(
      cases.map(([value]) => client.getPrompt(name, { [key]: value, ...nullish })),
    );
    results.forEach((r, i) => {
      const [message] = r.messages as Array<{ role: string; content: { type: string; text: string } }>;
      expect(message?.role).toBe("user");
      expect(message?.content).toEqual({ type: "text", text: render(cases[i]![1]) });
    });
    const sent = tap.sent.slice(mark).filter((m) => m.method === "prompts/get");
    expect(sent.map((m) => m.params?.arguments)).toEqual(cases.map(([, text]) => ({ [key]: text })));
    for (const m of sent) expect(m.params?.name).toBe(name);

    const e = await expectClientError(client.getPrompt("no-such-prompt"), "protocol");
    expect(e.reason).toBe("jsonrpc_error");
    expect(e.detail).toEqual({ jsonrpc: expect.any(Number) });
  });

  it("completes prompt arguments and resource template variables", async () => {
    const { completion, templateCompletion } = profile;
    const [short, wire, template] = await Promise.all([
      client.complete(completion.ref, completion.argument),
      client.complete(completion.wireRef, completion.argument),
      client.complete(templateCompletion.ref, templateCompletion.argument),
    ]);
    expect((short.completion as { values: string[] }).values).toEqual(completion.values);
    expect((wire.completion as { values: string[] }).values).toEqual(completion.values);
    expect((template.completion as { values: string[] }).values).toEqual(templateCompletion.values);
    if (completion.context) {
      const { arguments: args, argument, values } = completion.context;
      const mark = tap.sent.length;
      const r = await client.complete(completion.ref, argument, { context: { arguments: args } });
      expect((r.completion as { values: string[] }).values).toEqual(values);
      expect(tap.sent.slice(mark).find((m) => m.method === "completion/complete")?.params?.context).toEqual({
        arguments: args,
      });
    }
  });

  it(`pings (${profile.era === "modern" ? "server/discover" : "ping"} on the wire)`, async () => {
    const mark = tap.sent.length;
    await expect(client.ping({ timeout: 2_000 })).resolves.toBeUndefined();
    const methods = tap.sent.slice(mark).map((m) => m.method);
    expect(methods).toEqual([profile.era === "modern" ? "server/discover" : "ping"]);
  });

  it(`sets the log level (${profile.era === "modern" ? "in later requests' _meta" : "logging/setLevel"})`, async () => {
    const mark = tap.sent.length;
    await expect(client.setLogLevel("warning")).resolves.toBeUndefined();
    await client.listTools();
    const sent = tap.sent.slice(mark);
    if (profile.era === "modern") {
      expect(sent.map((m) => m.method)).toEqual(["tools/list"]);
      expect(sent[0]!.params?._meta).toMatchObject({ "io.modelcontextprotocol/logLevel": "warning" });
    } else {
      expect(sent.map((m) => m.method)).toEqual(["logging/setLevel", "tools/list"]);
      expect(sent[0]!.params).toEqual({ level: "warning" });
    }
    await expect(client.setLogLevel("loud" as LogLevel)).rejects.toThrow(TypeError);
  });

  it("cancels by AbortSignal: rejects with the signal's reason, tells the server, keeps working", async () => {
    const events = recordEvents({ client: client.name, names: ["request:cancel", "response:dropped"] });
    try {
      const controller = new AbortController();
      const reason = new Error("the caller gave up");
      const progress: ProgressParams[] = [];
      const slow = profile.slow(3, 40);
      const call = client.callTool(slow.name, slow.args, {
        signal: controller.signal,
        onProgress: (p) => {
          progress.push(p);
          controller.abort(reason);
        },
      });
      expect(await rejectionOf(call)).toBe(reason);
      const request = requestWithToken(tap, progress[0]!.progressToken)!;
      expect(request.method).toBe("tools/call");

      // The server is told, on the wire and in telemetry.
      const cancelled = tap
        .sentWith("notifications/cancelled")
        .filter((m) => m.params?.requestId === request.id);
      expect(cancelled).toHaveLength(1);
      expect(events.of("request:cancel")).toEqual([
        expect.objectContaining({ method: "tools/call", requestId: request.id, reason: "aborted" }),
      ]);

      // Past the time the call would have taken: the same call again, not cancelled, answered
      // after the first would have (it started later and lasts as long). No answer came back
      // for the first, and no more progress.
      expect((await client.callTool(slow.name, slow.args)).isError).toBeFalsy();
      expect(tap.responsesTo(request.id!)).toEqual([]);
      expect(events.of("response:dropped")).toEqual([]);
      expect(progress).toHaveLength(1);

      const after = await client.callTool(profile.echo.name, profile.echo.args("still here"));
      expect(textOf(after.content[0])).toBe(profile.echo.text("still here"));
    } finally {
      events.stop();
    }
  });

  it("an already-aborted signal rejects at once with its reason and sends nothing", async () => {
    const reason = new Error("never mind");
    const mark = tap.sent.length;
    const results = await Promise.allSettled([
      client.callTool(profile.echo.name, profile.echo.args("x"), { signal: AbortSignal.abort(reason) }),
      client.listTools({ signal: AbortSignal.abort(reason) }),
      client.readResource(profile.resource.uri, { signal: AbortSignal.abort(reason) }),
    ]);
    for (const r of results) expect(r).toEqual({ status: "rejected", reason });
    expect(tap.sent.slice(mark)).toEqual([]);
  });

  it("a timeout rejects with kind timeout, cancels on the wire, and the client keeps working", async () => {
    const events = recordEvents({ client: client.name, names: ["request:cancel"] });
    try {
      const mark = tap.sent.length;
      const slow = profile.slow(3, 100);
      const e = await expectClientError(client.callTool(slow.name, slow.args, { timeout: 60 }), "timeout");
      expect(e.reason).toBe("deadline_exceeded");
      const request = tap.sent.slice(mark).find((m) => m.method === "tools/call")!;
      expect(
        tap.sentWith("notifications/cancelled").filter((m) => m.params?.requestId === request.id),
      ).toHaveLength(1);
      expect(events.of("request:cancel")).toEqual([
        expect.objectContaining({ method: "tools/call", requestId: request.id, reason: "timeout" }),
      ]);
      expect(client.status().state).toBe("ready");
      const [echo] = await Promise.all([
        client.callTool(profile.echo.name, profile.echo.args("ok")),
        client.ping(),
      ]);
      expect(echo.isError).toBe(false);
    } finally {
      events.stop();
    }
  });

  it("telemetry: request and tool_call spans carry allowlisted metadata, never arguments or results", async () => {
    const events = recordEvents({ client: client.name });
    const secret = `sentinel-${randomUUID()}`;
    try {
      const echo = await client.callTool(profile.echo.name, profile.echo.args(secret));
      expect(JSON.stringify(echo.content)).toContain(secret);
      const failed = profile.toolErrors[0]!;
      await client.callTool(failed.name, { ...failed.args });
      const slow = profile.slow(3, 100);
      await expectClientError(client.callTool(slow.name, slow.args, { timeout: 40 }), "timeout");
      await client.listTools();
      await client.readResource(profile.resource.uri);
    } finally {
      events.stop();
    }

    expect(events.events.length).toBeGreaterThan(0);
    for (const e of events.events) {
      expect(unexpectedKeys(e)).toEqual([]);
      expect(e).toMatchObject({ client: client.name, serverId, transport: "stdio", era: profile.era });
    }
    expect(JSON.stringify(events.events)).not.toContain(secret);

    const starts = events.of("request:start").map((e) => e.method);
    expect(starts).toEqual(["tools/call", "tools/call", "tools/call", "tools/list", "resources/read"]);
    const stops = events.of("request:stop");
    expect(stops.map((e) => e.method)).toEqual(starts);
    expect(stops.map((e) => [e.status, e.errorKind])).toEqual([
      ["ok", null],
      ["ok", null],
      ["error", "timeout"],
      ["ok", null],
      ["ok", null],
    ]);
    for (const s of stops) {
      expect(s.requestId).toEqual(expect.any(Number));
      expect(s.duration).toEqual(expect.any(Number));
    }

    expect(events.of("tool_call:start").map((e) => e.toolName)).toEqual([
      profile.echo.name,
      profile.toolErrors[0]!.name,
      profile.slow(1, 1).name,
    ]);
    expect(events.of("tool_call:stop")).toEqual([
      expect.objectContaining({ toolName: profile.echo.name, status: "ok", errorKind: null, isError: false }),
      expect.objectContaining({
        toolName: profile.toolErrors[0]!.name,
        status: "ok",
        errorKind: null,
        isError: true,
      }),
      expect.objectContaining({ toolName: profile.slow(1, 1).name, status: "error", errorKind: "timeout" }),
    ]);
    for (const s of events.of("tool_call:stop")) {
      expect(s.rounds).toBe(1);
      expect(s.duration).toEqual(expect.any(Number));
      expect(s).not.toHaveProperty("arguments");
      expect(s).not.toHaveProperty("result");
    }
    expect(events.of("request:cancel")).toEqual([
      expect.objectContaining({ method: "tools/call", reason: "timeout" }),
    ]);
  });

  it("logged no warnings against a well-behaved server", () => {
    expect(logger.warnings).toEqual([]);
    expect(logger.errors).toEqual([]);
  });

  // ---- lifecycle, on fresh clients (concurrent: each test has its own server) ---------------------

  describe.concurrent("lifecycle", () => {
    function create(pool: ClientPool, extra: Partial<ClientOptions> = {}): Client {
      return pool.create({ ...baseOptions(serverId), transport: profile.transport(), ...extra });
    }

    it("requests made before ready wait for it; status, era and serverInfo read state without I/O", async (ctx) => {
      const name = uniqueName("early");
      const events = recordEvents({ client: name, names: ["connection:transition"] });
      ctx.onTestFinished(async () => events.stop());
      const c = create(poolForTest(ctx), { name, includeInstructions: true, logger: silentLogger() });
      expect(c.status()).toEqual({ state: "connecting", era: null, version: null, reason: null });
      const eraError = errorOf(() => c.era());
      expect(McpClientError.is(eraError, "unavailable")).toBe(true);
      const infoError = errorOf(() => c.serverInfo());
      expect(McpClientError.is(infoError, "unavailable")).toBe(true);
      expect((infoError as McpClientError).reason).toBe("not_ready");

      const early = Promise.all([
        c.listTools(),
        c.callTool(profile.echo.name, profile.echo.args("early")),
        c.readResource(profile.resource.uri),
        c.ping(),
      ]);
      // A short ready() times out; the connection carries on.
      await expectClientError(c.ready({ timeout: 1 }), "timeout");
      const [tools, echo, read] = await early;
      expect(tools.tools.length).toBeGreaterThan(0);
      expect(textOf(echo.content[0])).toBe(profile.echo.text("early"));
      expect(read.contents).toHaveLength(1);
      await c.ready({ timeout: 1 });
      expect(c.status()).toEqual(readyStatus(profile));
      expect(c.era()).toBe(profile.era);
      const instructions = c.instructionsForLlm();
      if (typeof profile.instructions === "string") expect(instructions).toBe(profile.instructions);
      else expect(instructions).toMatch(profile.instructions);

      const transitions = events.of("connection:transition");
      expect(transitions.map((e) => e.to)).toEqual(profile.transitions);
      expect(transitions[0]).toMatchObject({ from: "connecting", attempt: 0, reason: null, era: null });
      expect(transitions.at(-1)).toMatchObject({ to: "ready", era: profile.era, reason: null });
      for (const e of transitions) {
        expect(unexpectedKeys(e)).toEqual([]);
        expect(e).toMatchObject({ client: name, serverId, transport: "stdio" });
      }
    });

    it("close() fails pending requests with kind closed; later requests and ready() too", async (ctx) => {
      const name = uniqueName("close");
      const events = recordEvents({ client: name, names: ["connection:transition"] });
      ctx.onTestFinished(async () => events.stop());
      const c = create(poolForTest(ctx), { name });
      await c.ready();
      const slow = profile.slow(5, 50);
      const pending = expectClientError(c.callTool(slow.name, slow.args), "closed");
      await c.close();
      expect((await pending).reason).toBe("client_closed");
      expect(c.status()).toMatchObject({ state: "closed" });
      expect(c.status().reason).toEqual(expect.any(String));
      await expectClientError(c.listTools(), "closed");
      await expectClientError(c.callTool(profile.echo.name, profile.echo.args("x")), "closed");
      await expectClientError(c.ready(), "closed");
      await expect(c.close()).resolves.toBeUndefined();
      expect(events.of("connection:transition").at(-1)).toMatchObject({ from: "ready", to: "closed" });
    });

    it("close() while connecting fails the queued requests and ready() with kind closed", async (ctx) => {
      const c = create(poolForTest(ctx));
      const queued = expectClientError(c.listTools(), "closed");
      const waiting = expectClientError(c.ready(), "closed");
      await c.close();
      await Promise.all([queued, waiting]);
      expect(c.status().state).toBe("closed");
    });

    it("reconnect() drops requests in flight with kind transport and connects again; era() answers meanwhile", async (ctx) => {
      const c = create(poolForTest(ctx));
      await c.ready();
      const slow = profile.slow(5, 50);
      const inflight = expectClientError(c.callTool(slow.name, slow.args), "transport");
      const reconnecting = c.reconnect();
      expect(c.era()).toBe(profile.era);
      await inflight;
      await reconnecting;
      expect(c.era()).toBe(profile.era);
      await c.ready();
      expect(c.status()).toEqual(readyStatus(profile));
      const echo = await c.callTool(profile.echo.name, profile.echo.args("again"));
      expect(textOf(echo.content[0])).toBe(profile.echo.text("again"));
    });

    it("reconnect() revives a closed client", async (ctx) => {
      const c = create(poolForTest(ctx));
      await c.ready();
      await c.close();
      expect(c.status().state).toBe("closed");
      await c.reconnect();
      await c.ready();
      expect(c.status()).toEqual(readyStatus(profile));
      expect((await c.listTools()).tools.length).toBeGreaterThan(0);
    });

    it("Symbol.asyncDispose closes the client, fails pending requests and stops the server", async (ctx) => {
      const wire = new WireTap(profile.transport());
      const c = poolForTest(ctx).create({ ...baseOptions(serverId), transport: wire });
      await c.ready();
      const pid = wire.pid!;
      expect(isAlive(pid)).toBe(true);
      const slow = profile.slow(5, 50);
      const pending = expectClientError(c.callTool(slow.name, slow.args), "closed");
      await c[Symbol.asyncDispose]();
      await pending;
      expect(c.status().state).toBe("closed");
      expect(wire.pid).toBeUndefined();
      expect(isAlive(pid)).toBe(false);
    });
  });
});

// ---- negotiation: pinned versions and prior eras -------------------------------------------------

const SERVERS = {
  dual: () => officialServer("dual"),
  modern: () => officialServer("modern"),
  legacy: () => officialServer("legacy"),
  everything: () => everythingServer(),
} as const;
type ServerKey = keyof typeof SERVERS;

async function withTappedClient(
  server: ServerKey,
  options: Partial<ClientOptions>,
  fn: (c: Client, tap: WireTap) => Promise<void>,
): Promise<void> {
  const tap = new WireTap(SERVERS[server]());
  const pool = new ClientPool();
  const c = pool.create({
    name: uniqueName(`pin-${server}`),
    serverId: `sid-${server}`,
    transport: tap,
    requestTimeout: REQUEST_TIMEOUT,
    // What era is chosen is under test, not the probe's patience: a server that starts slowly on a
    // loaded machine must not be taken for one that ignores server/discover (3 s by default).
    probeTimeout: 20_000,
    logger: silentLogger(),
    ...options,
  });
  try {
    await fn(c, tap);
  } finally {
    await pool.closeAll();
  }
}

describe.concurrent("negotiation against real servers", () => {
  it.each<[ServerKey, Partial<ClientOptions>, Era, string, string]>([
    ["dual", { protocol: "2026-07-28" }, "modern", "2026-07-28", "server/discover"],
    ["dual", { protocol: "modern" }, "modern", "2026-07-28", "server/discover"],
    ["dual", { protocol: "2025-11-25" }, "legacy", "2025-11-25", "initialize"],
    ["dual", { protocol: "2025-06-18" }, "legacy", "2025-06-18", "initialize"],
    ["dual", { protocol: "legacy" }, "legacy", "2025-11-25", "initialize"],
    ["dual", { prior: "legacy" }, "legacy", "2025-11-25", "initialize"],
    ["dual", { prior: "modern" }, "modern", "2026-07-28", "server/discover"],
    // A cached legacy era that is refused: the same connection probes and lands modern.
    ["modern", { prior: "legacy" }, "modern", "2026-07-28", "initialize"],
    ["legacy", { protocol: "2025-06-18" }, "legacy", "2025-06-18", "initialize"],
    ["everything", { protocol: "2025-06-18" }, "legacy", "2025-06-18", "initialize"],
  ])("%s server with %j lands %s %s", async (server, options, era, version, first) => {
    await withTappedClient(server, options, async (c, tap) => {
      await c.ready();
      expect(c.status()).toEqual({ state: "ready", era, version, reason: null });
      expect(c.era()).toBe(era);
      expect(c.serverInfo().version).toBe(version);
      expect(tap.starts).toBe(1);
      expect(tap.sent[0]?.method).toBe(first);
      // What initialize asked for: the pinned version, else the newest legacy one.
      if (first === "initialize") {
        expect(tap.sent[0]?.params?.protocolVersion).toBe(era === "legacy" ? version : "2025-11-25");
      }
      // Requests carry the negotiated version.
      const mark = tap.sent.length;
      const echo = await c.callTool("echo", { message: "pinned" });
      expect(echo.isError).toBe(false);
      const call = tap.sent.slice(mark).find((m) => m.method === "tools/call")!;
      if (era === "modern") {
        expect(call.params?._meta).toMatchObject({ "io.modelcontextprotocol/protocolVersion": version });
      } else {
        // Pinned or prior legacy: straight to initialize, no probe.
        expect(tap.sentWith("server/discover")).toEqual([]);
      }
    });
  });

  it.each<[ServerKey, Partial<ClientOptions>, string | null]>([
    // Legacy evidence under `protocol: "modern"` closes the connection; it never falls back.
    ["legacy", { protocol: "modern" }, "initialize"],
    ["legacy", { protocol: "2026-07-28" }, "initialize"],
    ["everything", { protocol: "modern" }, "initialize"],
    ["modern", { protocol: "legacy" }, "server/discover"],
    ["modern", { protocol: "2025-06-18" }, "server/discover"],
  ])("%s server with %j fails with a typed error and closes", async (server, options, never) => {
    await withTappedClient(server, options, async (c, tap) => {
      const e = await expectClientError(c.ready(), "closed");
      expect(e).toBeInstanceOf(McpClientError);
      expect(c.status()).toMatchObject({ state: "closed", era: null, version: null });
      expect(c.status().reason).toEqual(expect.any(String));
      expect(() => c.era()).toThrow(McpClientError);
      await expectClientError(c.listTools(), "closed");
      // No fallback to the other era, and no second process.
      expect(tap.sentWith(never!)).toEqual([]);
      expect(tap.starts).toBe(1);
      expect(tap.pid).toBeUndefined();
    });
  });
});

// ---- requests around the handshake ---------------------------------------------------------------

describe.concurrent("requests around the handshake (official dual server)", () => {
  function connecting(pool: ClientPool): { c: Client; tap: WireTap } {
    const tap = new WireTap(officialServer("dual"));
    const c = pool.create({ name: uniqueName("waiting"), transport: tap, requestTimeout: REQUEST_TIMEOUT });
    expect(c.status().state).toBe("connecting");
    return { c, tap };
  }

  it("callTool, list, read, getPrompt and complete reject as soon as their signal aborts, and are never sent", async (ctx) => {
    const { c, tap } = connecting(poolForTest(ctx));
    const controller = new AbortController();
    const reason = new Error("changed my mind");
    const signal = controller.signal;
    const calls = [
      watch(c.callTool("echo", { message: "x" }, { signal })),
      watch(c.listTools({ signal })),
      watch(c.listAllPrompts({ signal })),
      watch(c.readResource("file:///readme.md", { signal })),
      watch(c.getPrompt("greeting", { name: "Ada" }, { signal })),
      watch(c.complete({ prompt: "greeting" }, { name: "name", value: "A" }, { signal })),
    ];
    controller.abort(reason);
    // One turn of the event loop, no clock: the rejections need nothing from the server.
    await new Promise((resolve) => setImmediate(resolve));
    expect(c.status().state).not.toBe("ready");
    expect(calls.map((w) => w.settled)).toEqual(calls.map(() => true));
    for (const w of calls) expect(await rejectionOf(w.promise)).toBe(reason);
    await c.ready();
    // listAllPrompts' refresh is shared and completes for the cache whoever stops waiting
    // (prompts/list, then the listen stream its interest opens), and so is the tools listing
    // callTool asked for first (it held none); the others are never sent.
    const sent = tap.sent.filter((m) => m.id !== undefined).map((m) => m.method);
    expect(sent[0]).toBe("server/discover");
    for (const m of ["tools/call", "resources/read", "prompts/get", "completion/complete"]) {
      expect(sent).not.toContain(m);
    }
    expect((await c.listTools()).tools.length).toBe(4);
  });

  it("ping and setLogLevel reject as soon as their signal aborts, before the handshake ends", async (ctx) => {
    const { c, tap } = connecting(poolForTest(ctx));
    const controller = new AbortController();
    const reason = new Error("changed my mind");
    const ping = watch(c.ping({ signal: controller.signal }));
    const setLevel = watch(c.setLogLevel("error", { signal: controller.signal }));
    controller.abort(reason);
    // One turn of the event loop, no clock: the rejections need nothing from the server.
    await new Promise((resolve) => setImmediate(resolve));
    expect(c.status().state).not.toBe("ready");
    expect({ ping: ping.settled, setLogLevel: setLevel.settled }).toEqual({ ping: true, setLogLevel: true });
    expect(await rejectionOf(ping.promise)).toBe(reason);
    expect(await rejectionOf(setLevel.promise)).toBe(reason);
    await c.ready();
    expect(tap.sent.filter((m) => m.id !== undefined).map((m) => m.method)).toEqual(["server/discover"]);
  });

  it("a request waiting for the handshake times out within its own timeout; the client still gets ready", async (ctx) => {
    const { c } = connecting(poolForTest(ctx));
    const e = await expectClientError(c.listTools({ timeout: 20 }), "timeout");
    expect(e).toBeInstanceOf(McpClientError);
    expect(c.status().state).not.toBe("ready");
    await c.ready();
    expect((await c.listTools()).tools.length).toBe(4);
  });

  it("more requests than maxQueued while connecting fail at once with kind overloaded", async (ctx) => {
    const c = poolForTest(ctx).create({
      name: uniqueName("queue"),
      transport: officialServer("dual"),
      requestTimeout: REQUEST_TIMEOUT,
      maxQueued: 1,
    });
    const first = c.listTools();
    await expectClientError(c.listPrompts(), "overloaded");
    expect(c.status().state).not.toBe("ready");
    expect((await first).tools.length).toBe(4);
  });

  it("more requests than maxInFlight fail at once with kind overloaded", async (ctx) => {
    const c = poolForTest(ctx).create({
      name: uniqueName("inflight"),
      transport: officialServer("dual"),
      requestTimeout: REQUEST_TIMEOUT,
      maxInFlight: 1,
    });
    await c.ready();
    const slow = c.callTool("slow", { steps: 2, every: 30 });
    await expectClientError(c.listTools(), "overloaded");
    expect((await slow).isError).toBe(false);
    expect((await c.listTools()).tools.length).toBe(4);
  });

  it("a request made while reconnect() drops the old connection waits for the new one", async (ctx) => {
    const c = poolForTest(ctx).create({
      name: uniqueName("reconnect-wait"),
      transport: officialServer("dual"),
      requestTimeout: REQUEST_TIMEOUT,
    });
    await c.ready();
    const reconnecting = c.reconnect();
    const stateWhileDropping = c.status().state;
    const tools = await Promise.allSettled([c.listTools()]);
    await reconnecting;
    // The request waited for the new connection instead of failing on the old one.
    expect(tools[0].status === "fulfilled" ? tools[0].value.tools.length : tools[0].reason).toBe(4);
    expect(c.status().state).toBe("ready");
    // And status() did not claim "ready" while the old connection was being dropped.
    expect(stateWhileDropping).not.toBe("ready");
  });

  it("status() reason is null while connecting again after close() and reconnect()", async (ctx) => {
    const c = poolForTest(ctx).create({ name: uniqueName("revive"), transport: officialServer("dual") });
    await c.ready();
    await c.close();
    await c.reconnect();
    const status = c.status();
    expect(status.state).not.toBe("ready");
    expect(status.state).not.toBe("closed");
    // ClientStatus.reason: "Why the client is closed or reconnecting (a safe, short message), else null".
    if (status.state !== "reconnecting") expect(status.reason).toBeNull();
    await c.ready();
  });
});
