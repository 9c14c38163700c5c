/**
 * Responses and values a hostile stdio server sends that must be refused, not trusted (issue 9):
 * malformed responses, values nested too deep, hostile tool definitions, server-keyed objects,
 * a list that changes during a walk, invisible text and the inherited environment. Each in both
 * eras where the era matters, each with its typed error and a client that keeps working.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpClientError } from "../src/index.js";
import { closeAll, recordEvents, recordingLogger, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

const ERAS = ["modern", "legacy"] as const;

async function rejection(p: Promise<unknown>): Promise<McpClientError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e) => e,
  );
  expect(err).toBeInstanceOf(McpClientError);
  return err as McpClientError;
}

describe.each(ERAS)("malformed responses are protocol errors for their id, at once (%s)", (era) => {
  // The client's request timeout is 60 s: a response that left the request waiting would fail
  // the test by the test's own timeout, not by an assertion on time.
  const options = { requestTimeout: 60_000 };
  const cases: Array<[string, string]> = [
    [
      "both result and error",
      '{"jsonrpc":"2.0","id":"$ID","result":{"content":[]},"error":{"code":1,"message":"x"}}',
    ],
    ["error.code not an integer", '{"jsonrpc":"2.0","id":"$ID","error":{"code":"-32000","message":"x"}}'],
    ["error.code a fraction", '{"jsonrpc":"2.0","id":"$ID","error":{"code":1.5,"message":"x"}}'],
    ["result: null", '{"jsonrpc":"2.0","id":"$ID","result":null}'],
    ["result an array", '{"jsonrpc":"2.0","id":"$ID","result":[]}'],
    ["neither result nor error", '{"jsonrpc":"2.0","id":"$ID"}'],
  ];
  it.each(cases)("%s", async (_name, line) => {
    const c = scriptedClient({ era }, options);
    const err = await rejection(c.callTool("raw", { line }));
    expect(err).toMatchObject({ kind: "protocol", reason: "malformed_response" });
    // The connection stays up: the next request is answered.
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });
});

describe.each(ERAS)("a tool result's other keys (%s)", (era) => {
  it("reach extra as own data, a __proto__ key included; the named ones do not", async () => {
    const c = scriptedClient({ era });
    const line =
      '{"jsonrpc":"2.0","id":"$ID","result":{"content":[],"isError":false,"__proto__":{"polluted":1},"note":"n","resultType":"complete","_meta":{"m":1}}}';
    const r = await c.callTool("raw", { line });
    expect(Object.keys(r.extra)).toEqual(["__proto__", "note"]);
    expect(Object.getPrototypeOf(r.extra)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(r.extra, "__proto__")?.value).toEqual({ polluted: 1 });
    expect(r.meta).toEqual({ m: 1 });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe.each(ERAS)("nesting depth (%s)", (era) => {
  it.each(["structuredContent", "_meta", "content"])(
    "a result nested 100 000 levels deep in %s: protocol / max_depth_exceeded, no RangeError",
    async (where) => {
      const c = scriptedClient({ era });
      const err = await rejection(c.callTool("deep", { depth: 100_000, where }));
      expect(err).toMatchObject({ kind: "protocol", reason: "max_depth_exceeded", data: { limit: 64 } });
      expect(JSON.stringify(err.data)).toBe('{"limit":64}');
      expect((await c.callTool("echo", {})).isError).toBe(false);
    },
  );

  it("within the limit a nested result is handed on; maxDepth lowers the limit", async () => {
    const c = scriptedClient({ era });
    const ok = await c.callTool("deep", { depth: 60 });
    expect(JSON.stringify(ok.structured).length).toBeGreaterThan(60 * 5);
    const strict = scriptedClient({ era }, { maxDepth: 8 });
    await expect(strict.callTool("deep", { depth: 8 })).rejects.toMatchObject({
      reason: "max_depth_exceeded",
    });
    expect((await strict.callTool("deep", { depth: 6 })).isError).toBe(false);
  });

  it("a tool whose inputSchema is 10 000 levels deep is rejected at intake (tool:rejected too_deep), the rest listed", async () => {
    const events = recordEvents("tool:rejected");
    try {
      const c = scriptedClient({ era, deepToolDepth: 10_000 });
      const tools = await c.listAllTools();
      expect(tools.map((t) => t.name)).toEqual(["echo", "late", "hang"]);
      expect(JSON.stringify(tools).length).toBeGreaterThan(0);
      const page = await c.listTools();
      expect(page.tools.map((t) => t.name)).toEqual(["echo", "late", "hang"]);
      expect(events.of("tool:rejected")).toContainEqual(
        expect.objectContaining({ toolName: "deep", reason: "too_deep" }),
      );
    } finally {
      events.stop();
    }
  });

  it("the maxDepth option is checked: an integer from 2 to 1000", () => {
    expect(() => scriptedClient({ era }, { maxDepth: 1 })).toThrow(TypeError);
    expect(() => scriptedClient({ era }, { maxDepth: 5000 })).toThrow(/maxDepth/);
    expect(() => scriptedClient({ era }, { maxDepth: 2 })).not.toThrow();
  });
});

describe("nesting depth of server requests (legacy)", () => {
  it("a sampling request nested 100 000 levels deep is refused (-32602) before any handler sees it", async () => {
    const calls: unknown[] = [];
    const logger = recordingLogger();
    const c = scriptedClient(
      { era: "legacy" },
      {
        logger,
        handler: {
          sampling: (params) => {
            calls.push(params);
            return { role: "assistant", content: { type: "text", text: "x" }, model: "m" };
          },
        },
      },
    );
    const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    const request = `{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5,"x":${deep}}}`;
    const ok = '{"jsonrpc":"2.0","id":"$ID","result":{"content":[{"type":"text","text":"after"}]}}';
    const r = await c.callTool("raw", { before: [request], line: ok });
    expect(r.content[0]).toMatchObject({ text: "after" });
    expect(calls).toEqual([]);
    expect(logger.lines.some((l) => l.includes("nested deeper than maxDepth"))).toBe(true);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });
});

describe.each(ERAS)("intake of hostile definitions (%s)", (era) => {
  const schema = { type: "object" };
  it("schemas with required that is not an array, or properties that is not an object, are malformed", async () => {
    const events = recordEvents("tool:rejected");
    try {
      const c = scriptedClient({
        era,
        tools: [
          { name: "req-string", inputSchema: { type: "object", required: "a" } },
          { name: "req-numbers", inputSchema: { type: "object", required: [1] } },
          { name: "props-array", inputSchema: { type: "object", properties: [] } },
          { name: "props-string", inputSchema: { type: "object", properties: "x" } },
          { name: "out-props", inputSchema: schema, outputSchema: { type: "object", properties: 3 } },
          { name: "out-req", inputSchema: schema, outputSchema: { type: "object", required: {} } },
          { name: "fine", inputSchema: { type: "object", properties: { a: {} }, required: ["a"] } },
        ],
      });
      expect((await c.listAllTools()).map((t) => t.name)).toEqual(["fine"]);
      const reasons = events.of("tool:rejected").map((e) => [e.toolName, e.reason]);
      for (const name of [
        "req-string",
        "req-numbers",
        "props-array",
        "props-string",
        "out-props",
        "out-req",
      ]) {
        expect(reasons).toContainEqual([name, "malformed_definition"]);
      }
    } finally {
      events.stop();
    }
  });

  it("icons whose src is not https: (or a data: image) are stripped, from tools and resources", async () => {
    const icons = [
      { src: "javascript:alert(1)" },
      { src: "file:///etc/passwd" },
      { src: "http://example.com/i.png" },
      { src: "data:text/html,<script>alert(1)</script>" },
      { src: "https://example.com/icon.png", mimeType: "image/png" },
      { src: "data:image/png;base64,iVBORw0KGgo=" },
      { nosrc: true },
      "https://not-an-object.example",
    ];
    const c = scriptedClient({
      era,
      tools: [{ name: "iconic", inputSchema: schema, icons }],
      resources: [{ uri: "file:///a", name: "a", icons }],
    });
    const kept = ["https://example.com/icon.png", "data:image/png;base64,iVBORw0KGgo="];
    const sources = (item: object | undefined) =>
      (((item as { icons?: unknown } | undefined)?.icons ?? []) as Array<{ src: string }>).map((i) => i.src);
    expect(sources((await c.listAllTools())[0])).toEqual(kept);
    expect(sources((await c.listAllResources())[0])).toEqual(kept);
  });
});

describe.each(ERAS)("a list_changed during a paginated walk (%s)", (era) => {
  it("the walk is discarded, not cached, and a refresh runs after it", async () => {
    // Modern servers announce changes on a listen stream, which the first listing opens: the
    // change comes during the second walk there.
    const walk = era === "modern" ? 1 : 0;
    const c = scriptedClient({ era, pages: "two", changeDuringWalk: walk });
    const events = recordEvents("cache:refresh:stop");
    try {
      if (era === "modern") {
        await c.listAllTools();
        for (;;) {
          const seen = (await c.callTool("listens", {})).structured as {
            listens: Array<{ filter: { toolsListChanged?: boolean } }>;
          };
          if (seen.listens.some((l) => l.filter.toolsListChanged)) break;
        }
      }
      const tools = await c.listAllTools({ refresh: era === "modern" });
      const echo = tools.find((t) => t.name === "echo");
      expect(echo?.description).toBe("Now does something else entirely");
      expect(c.tool("echo").description).toBe("Now does something else entirely");
      // One refresh, which walked twice (two pages each): the stale walk was never served.
      const last = events.of("cache:refresh:stop").at(-1);
      expect(last).toMatchObject({ status: "ok", pages: 2 });
    } finally {
      events.stop();
    }
  });
});

describe.each(ERAS)("invisible text (%s)", (era) => {
  // The tag characters spelling "ignore" (U+E0069 U+E0067 ...), then CANCEL TAG (U+E007F).
  const tags = `${[..."ignore"].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join("")}\u{E007F}`;
  const TAG = /[\u{E0000}-\u{E007F}]/u;

  it("Unicode tag characters are stripped from instructionsForLlm() and logger lines", async () => {
    const logger = recordingLogger();
    const c = scriptedClient(
      {
        era,
        instructions: `Use the tools.${tags} Then stop.`,
        tools: [{ name: `bad name${tags}`, inputSchema: { type: "object" } }],
      },
      { logger, includeInstructions: true },
    );
    expect(await c.listAllTools()).toEqual([]);
    expect(c.instructionsForLlm()).toBe("Use the tools. Then stop.");
    expect(c.serverInfo().instructions).toBe("Use the tools. Then stop.");
    const line = logger.lines.find((l) => l.includes("left out"));
    expect(line).toContain("bad name");
    expect(line).not.toMatch(TAG);
  });

  it("Unicode tag characters are stripped from notifications and from a JSON-RPC error's data", async () => {
    const c = scriptedClient({ era });
    const seen: unknown[] = [];
    c.onNotification((n) => seen.push(n));
    await c.callTool("flood", { kind: "other", count: 1, text: `note${tags}` });
    // Written before the call's answer, so delivered before the call resolves.
    expect(seen.length).toBeGreaterThan(0);
    expect(JSON.stringify(seen)).toContain("note");
    expect(JSON.stringify(seen)).not.toMatch(TAG);
    // The server answers -32602 "Unknown tool: <name>": its message is kept in data, sanitised.
    const err = await rejection(c.callTool(`nothing${tags}`, {}));
    expect((err.data as { message: string }).message).toBe("Unknown tool: nothing");
  });
});

describe("the inherited environment", () => {
  it("a value that looks like a shell function definition is not passed on; env given by the operator is", async () => {
    const before = process.env.TERM;
    process.env.TERM = "() { :; }; echo pwned";
    try {
      const c = scriptedClient({}, {}, { env: { GIVEN: "() { given }" } });
      const env = (await c.callTool("env", {})).structured as Record<string, string>;
      expect(env.TERM).toBeUndefined();
      expect(env.GIVEN).toBe("() { given }");
      expect(env.PATH).toBe(process.env.PATH);
    } finally {
      if (before === undefined) delete process.env.TERM;
      else process.env.TERM = before;
    }
  });
});

describe.each(ERAS)("calling a tool the listing rejected or withdrew (%s)", (era) => {
  const schema = { type: "object" };
  it("a tool intake rejected is refused with not_found / tool_rejected, never sent", async () => {
    const c = scriptedClient({
      era,
      tools: [
        { name: "echo", inputSchema: { type: "object", required: "message" } },
        { name: "late", inputSchema: schema },
      ],
    });
    // Before any listing, the call goes out as asked (the server answers it).
    expect((await c.callTool("echo", {})).isError).toBe(false);
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["late"]);
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "not_found", reason: "tool_rejected" });
    // A listed tool, and a name no listing ever mentioned, still go out.
    expect((await c.callTool("late", { ms: 1 })).isError).toBe(false);
    expect((await c.callTool("cwd", {})).isError).toBe(false);
  });

  it("a tool the latest listing no longer has is refused (tool_withdrawn), after one refresh of a stale list", async () => {
    const c = scriptedClient({ era });
    expect((await c.listAllTools()).map((t) => t.name)).toContain("echo");
    await c.callTool("withdraw", { name: "echo" });
    expect((await c.listAllTools({ refresh: true })).map((t) => t.name)).not.toContain("echo");
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "not_found", reason: "tool_withdrawn" });
    // The server lists it again: the list (no ttlMs, so stale) is refreshed once, and the call goes out.
    await c.callTool("withdraw", { name: "echo", back: true });
    expect((await c.callTool("echo", {})).isError).toBe(false);
    expect(c.cachedTools().map((t) => t.name)).toContain("echo");
  });

  it("a fresh list (ttlMs) is not refreshed for it: refused at once", async () => {
    const events = recordEvents("cache:refresh:start");
    try {
      const c = scriptedClient({ era, hints: [{ ttlMs: 60_000, cacheScope: "public" }] });
      await c.listAllTools();
      await c.callTool("withdraw", { name: "echo" });
      await c.listAllTools({ refresh: true });
      await c.callTool("withdraw", { name: "echo", back: true });
      const before = events.of("cache:refresh:start").length;
      await expect(c.callTool("echo", {})).rejects.toMatchObject({
        kind: "not_found",
        reason: "tool_withdrawn",
      });
      expect(events.of("cache:refresh:start").length).toBe(before);
    } finally {
      events.stop();
    }
  });
});
