// Tool search handed to models: Anthropic (deferred tools, conduit's search tool answered with
// tool_reference blocks), OpenAI Responses (deferred functions, tool_search answered with a
// tool_search_output), the portable search_tools/call_tool pair and the AI SDK's prepareStep,
// over a hub of real servers (@modelcontextprotocol/server-filesystem over stdio, the project's
// FakeServer in-process) with deny rules and governance. A found tool is then called through the
// hub; a hidden one is never found; the same hub gives the same bytes whatever the start order.
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aiSdkToolSearch } from "../src/adapters/ai-sdk.js";
import {
  anthropicTools,
  toAnthropicToolResult,
  toAnthropicToolSearchResult,
} from "../src/adapters/anthropic.js";
import {
  answerToolSearch,
  openaiResponsesTools,
  toOpenAIFunctionCallOutput,
} from "../src/adapters/openai.js";
import { portableToolSearch, toolManifestTokens } from "../src/adapters/tool-search.js";
import { Hub, type HubServerConfig } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { FILESYSTEM_SERVER, nodeServer, silentLogger } from "./support/index.js";

function notes(): FakeServer {
  return new FakeServer({ name: "notes" })
    .tool(
      "add_note",
      { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      () => "added",
      { description: "Save a short note to the notebook" },
    )
    .tool(
      "find_notes",
      { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      ({ query }) => `found 1 note about ${String(query)}`,
      { description: "Search the saved notes by keyword" },
    );
}

let dir: string;
const hubs: Hub[] = [];
const servers = new Map<string, FakeServer>();

function makeHub(order: "fs-first" | "notes-first"): Hub {
  const logger = silentLogger();
  const server = notes();
  servers.set(order, server);
  const fs: HubServerConfig = { transport: nodeServer(FILESYSTEM_SERVER, [dir]), deny: ["write_file"] };
  const nt: HubServerConfig = {
    transport: { type: "in-process", server },
    governance: { policy: [{ tool: "add_note", decision: "ask", reason: "read-only today" }] },
  };
  const hub = new Hub({
    logger,
    clientOptions: { logger, requestTimeout: 10_000 },
    listTimeout: 10_000,
    servers: order === "fs-first" ? { fs, notes: nt } : { notes: nt, fs },
  });
  hubs.push(hub);
  return hub;
}

let hub: Hub;
beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tool-search-")));
  hub = makeHub("fs-first");
  await hub.ready({ timeout: 20_000 });
}, 30_000);

afterAll(async () => {
  await Promise.all(hubs.map((h) => h.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe("Anthropic", () => {
  it("a deferred list with conduit's search tool; its call answered with tool_reference blocks", async () => {
    const tools = await anthropicTools(hub, {
      defer: true,
      alwaysLoaded: ["mcp__fs__read_file"],
      search: "client",
    });
    const last = tools.at(-1)!;
    expect(last).toMatchObject({ name: "search_tools", input_schema: { required: ["query"] } });
    const named = tools.slice(0, -1) as Array<{ name: string; defer_loading?: true }>;
    expect(named.map((t) => t.name)).toEqual([...named.map((t) => t.name)].sort());
    expect(named.find((t) => t.name === "mcp__fs__read_file")!.defer_loading).toBeUndefined();
    expect(named.filter((t) => t.name !== "mcp__fs__read_file").every((t) => t.defer_loading === true)).toBe(
      true,
    );
    expect(named.map((t) => t.name)).not.toContain("mcp__fs__write_file");

    const answer = await toAnthropicToolSearchResult(hub, {
      id: "s1",
      name: "search_tools",
      input: { query: "make a folder for the reports" },
    });
    expect(answer).toMatchObject({ type: "tool_result", tool_use_id: "s1", is_error: false });
    expect(answer.content[0]).toEqual({ type: "tool_reference", tool_name: "mcp__fs__create_directory" });
    const run = await toAnthropicToolResult(hub, {
      id: "u1",
      name: "mcp__fs__create_directory",
      input: { path: join(dir, "reports") },
    });
    expect(run.is_error).toBe(false);
    expect(existsSync(join(dir, "reports"))).toBe(true);
  });

  it("server-side search by default; a bad query is an error the model sees", async () => {
    const tools = await anthropicTools(hub, { defer: true });
    expect(tools.at(-1)).toEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect((await anthropicTools(hub, { defer: true, search: "regex" })).at(-1)).toMatchObject({
      type: "tool_search_tool_regex_20251119",
    });
    const bad = await toAnthropicToolSearchResult(hub, { id: "s2", name: "search_tools", input: {} });
    expect(bad.is_error).toBe(true);
  });

  it("a hidden tool is never referenced; governance applies to a found tool's call", async () => {
    const answer = await toAnthropicToolSearchResult(hub, {
      id: "s3",
      input: { query: "write a new file with content", limit: 20 },
    });
    expect(answer.content).not.toContainEqual({ type: "tool_reference", tool_name: "mcp__fs__write_file" });
    const found = await toAnthropicToolSearchResult(hub, { id: "s4", input: { query: "save a note" } });
    expect(found.content[0]).toEqual({ type: "tool_reference", tool_name: "mcp__notes__add_note" });
    const denied = await toAnthropicToolResult(hub, {
      id: "u2",
      name: "mcp__notes__add_note",
      input: { text: "x" },
    });
    expect(denied.is_error).toBe(true);
    expect(denied.result.errorKind).toBe("denied");
    expect(servers.get("fs-first")!.callsOf("tools/call", "add_note")).toEqual([]);
  });
});

describe("OpenAI Responses", () => {
  it("deferred functions and a client tool_search; the call answered, the found tool run", async () => {
    const tools = await openaiResponsesTools(hub, { defer: true });
    expect(tools.at(-1)).toMatchObject({ type: "tool_search", execution: "client" });
    const fns = tools.slice(0, -1) as Array<{ type: string; name: string; defer_loading?: true }>;
    expect(fns.every((t) => t.type === "function" && t.defer_loading === true)).toBe(true);
    const output = await answerToolSearch(hub, {
      type: "tool_search_call",
      id: "ts_1",
      call_id: "call_1",
      arguments: JSON.stringify({ query: "look through my notes" }),
      execution: "client",
    });
    expect(output).toMatchObject({ type: "tool_search_output", call_id: "call_1", execution: "client" });
    const first = output.tools[0]!;
    expect(first).toMatchObject({ type: "function", name: "mcp__notes__find_notes", strict: true });
    expect(first.parameters).toMatchObject({ additionalProperties: false, required: ["query"] });
    const result = await toOpenAIFunctionCallOutput(hub, {
      call_id: "call_2",
      name: first.name,
      arguments: '{"query":"meeting"}',
    });
    expect(result.output[0]).toMatchObject({ type: "input_text" });
    expect(result.result.isError).toBe(false);
    const none = await answerToolSearch(hub, { call_id: "call_3", arguments: "not json" });
    expect(none.tools).toEqual([]);
  });
});

describe("portable search_tools / call_tool", () => {
  it("finds tools with their schemas and calls them with validation and governance", async () => {
    const { search_tools, call_tool } = portableToolSearch(hub);
    const found = await search_tools.execute({ query: "what files are in this folder listing" });
    if (!("tools" in found)) throw new Error("expected tools");
    expect(found.tools.map((t) => t.name)).toContain("mcp__fs__list_directory");
    expect(found.tools[0]!.parameters).toMatchObject({ type: "object" });
    const server = servers.get("fs-first")!;
    const before = server.callsOf("tools/call").length;
    const invalid = await call_tool.execute({ name: "mcp__notes__find_notes", arguments: { query: 5 } });
    expect(invalid.isError).toBe(true);
    expect(invalid.errorKind).toBe("invalid_arguments");
    expect(server.callsOf("tools/call").length).toBe(before);
    const denied = await call_tool.execute({ name: "mcp__notes__add_note", arguments: { text: "x" } });
    expect(denied.errorKind).toBe("denied");
    const hidden = await call_tool.execute({ name: "mcp__fs__write_file", arguments: {} });
    expect(hidden.isError).toBe(true);
    const ok = await call_tool.execute({ name: "mcp__notes__find_notes", arguments: { query: "tea" } });
    expect(ok.isError).toBe(false);
  });

  it("the full manifest costs more tokens than the deferred start", async () => {
    const full = await toolManifestTokens(await openaiResponsesTools(hub));
    const { search_tools, call_tool } = portableToolSearch(hub);
    const pair = [search_tools, call_tool].map(({ name, description, parameters }) => ({
      type: "function",
      name,
      description,
      parameters,
    }));
    const start = await toolManifestTokens(pair);
    expect(start).toBeGreaterThan(50);
    expect(full).toBeGreaterThan(start * 3);
    expect(await toolManifestTokens(await anthropicTools(hub), { provider: "anthropic" })).toBeGreaterThan(
      start,
    );
  });
});

describe("AI SDK", () => {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };

  it("prepareStep adds the tools a search found to the next step's active tools", async () => {
    const { tools, activeTools, prepareStep } = await aiSdkToolSearch(hub);
    expect(activeTools).toEqual(["search_tools"]);
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step++;
        const call = (toolName: string, input: string) => ({
          content: [{ type: "tool-call" as const, toolCallId: `c${step}`, toolName, input }],
          finishReason: { unified: "tool-calls" as const, raw: undefined },
          usage,
          warnings: [],
        });
        if (step === 1) return call("search_tools", '{"query":"look through my notes"}');
        if (step === 2) return call("mcp__notes__find_notes", '{"query":"meeting"}');
        return {
          content: [{ type: "text", text: "done" }],
          finishReason: { unified: "stop", raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      tools,
      activeTools,
      prepareStep,
      prompt: "notes?",
      stopWhen: isStepCount(4),
    });
    expect(result.text).toBe("done");
    const sent = model.doGenerateCalls.map((c) => (c.tools ?? []).map((t) => t.name));
    expect(sent[0]).toEqual(["search_tools"]);
    expect(sent[1]).toContain("mcp__notes__find_notes");
    expect(sent[1]).not.toContain("mcp__fs__read_file");
    expect(result.steps[1]!.toolResults[0]!.output).toMatchObject({ isError: false });
  });
});

describe("stable order", () => {
  it("the same servers started in another order give byte-identical model tool lists", async () => {
    const other = makeHub("notes-first");
    await other.ready({ timeout: 20_000 });
    const lists = async (h: Hub) =>
      JSON.stringify([
        await anthropicTools(h),
        await openaiResponsesTools(h),
        await anthropicTools(h, { defer: true, search: "client" }),
        await openaiResponsesTools(h, { defer: true }),
        await answerToolSearch(h, { call_id: "c", arguments: { query: "file" } }),
        await toAnthropicToolSearchResult(h, { id: "s", input: { query: "notes" } }),
      ]);
    expect(await lists(other)).toBe(await lists(hub));
  });
});
