// Governance visibility (docs/governance.md, "Hidden tools"): a tool whose policy refuses every
// call of it (a deny rule, a rule on its hints, or no rule allowing it under a deny default) is
// left out of the hub's list, of every search (hub, client, Anthropic's client search, OpenAI's
// tool_search, the portable search_tools) and of the model tool lists; a call of it by name is
// still refused by the policy, and nothing reaches the server. An `ask` tool and a tool a policy
// function denies only for some arguments stay listed and found. Over the project's scripted
// FakeServer (in-process) and @modelcontextprotocol/server-filesystem over stdio.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anthropicTools, toAnthropicToolSearchResult } from "../src/adapters/anthropic.js";
import { answerToolSearch, openaiResponsesTools } from "../src/adapters/openai.js";
import { portableToolSearch } from "../src/adapters/tool-search.js";
import { governance } from "../src/governance/index.js";
import { Client, Hub, type McpClientError } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { FILESYSTEM_SERVER, nodeServer, rejectionOf, silentLogger } from "./support/index.js";

const text = { type: "object", properties: { text: { type: "string" } } };
const id = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };

function notes(): FakeServer {
  return new FakeServer({ name: "notes" })
    .tool("add_note", text, () => "added", { description: "Save a short note to the notebook" })
    .tool("find_notes", text, () => "none", { description: "Search the saved notes by keyword" })
    .tool("erase_note", id, () => "erased", { description: "Erase one note from the notebook for good" })
    .tool("shred_notebook", {}, () => "shredded", {
      description: "Shred the whole notebook and every note in it",
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    });
}

/**
 * Erase is denied outright, shredding by its hints (tools without hints are destructive and not
 * idempotent by the spec's defaults, so the hint rule matches none of the others); adding asks.
 */
const RULES = [
  { tool: "erase_note", decision: "deny" as const, reason: "notes are kept" },
  { annotations: { destructiveHint: true, idempotentHint: true }, decision: "deny" as const },
  { tool: "add_note", decision: "ask" as const },
];
const HIDDEN = ["mcp__notes__erase_note", "mcp__notes__shred_notebook"];
const logger = silentLogger();
let dir: string;
let server: FakeServer;
let hub: Hub;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "search-visibility-")));
  server = notes();
  hub = new Hub({
    logger,
    clientOptions: { logger, requestTimeout: 10_000 },
    listTimeout: 10_000,
    servers: {
      fs: { transport: nodeServer(FILESYSTEM_SERVER, [dir]) },
      notes: { transport: { type: "in-process", server }, governance: { policy: RULES } },
    },
  });
  await hub.ready({ timeout: 20_000 });
}, 30_000);

afterAll(async () => {
  await hub?.close();
  rmSync(dir, { recursive: true, force: true });
});

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name);

describe("a tool the policy always denies is hidden", () => {
  it("the hub's list and search leave it out; an ask tool stays", async () => {
    const listed = names(await hub.listTools());
    for (const h of HIDDEN) expect(listed).not.toContain(h);
    expect(listed).toEqual(expect.arrayContaining(["mcp__notes__add_note", "mcp__notes__find_notes"]));
    expect(listed).toContain("mcp__fs__write_file");
    for (const q of ["erase a note from the notebook", "shred the whole notebook", "note"]) {
      const found = names((await hub.searchTools(q, { limit: 50 })).map((r) => r.tool));
      for (const h of HIDDEN) expect(found).not.toContain(h);
      expect(found.length).toBeGreaterThan(0);
    }
    const [add] = await hub.searchTools("save a note", { limit: 1 });
    expect(add!.tool.name).toBe("mcp__notes__add_note");
  });

  it("calling it by name is still refused by the policy; the server never sees it", async () => {
    const err = (await rejectionOf(hub.callTool("mcp__notes__erase_note", { id: "1" }))) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(err.detail).toMatchObject({ reason: "notes are kept" });
    expect(server.callsOf("tools/call", "erase_note")).toEqual([]);
  });

  it("Anthropic: not in the deferred list, never referenced by conduit's search", async () => {
    const tools = (await anthropicTools(hub, { defer: true, search: "client" })) as Array<{ name: string }>;
    for (const h of HIDDEN) expect(names(tools)).not.toContain(h);
    expect(names(tools)).toContain("mcp__notes__add_note");
    const answer = await toAnthropicToolSearchResult(hub, {
      id: "s1",
      input: { query: "erase a note from the notebook", limit: 20 },
    });
    const refs = answer.content.map((c) => (c as { tool_name?: string }).tool_name);
    for (const h of HIDDEN) expect(refs).not.toContain(h);
    const add = await toAnthropicToolSearchResult(hub, { id: "s2", input: { query: "save a note" } });
    expect(add.content[0]).toEqual({ type: "tool_reference", tool_name: "mcp__notes__add_note" });
  });

  it("OpenAI: not in the deferred functions, never in a tool_search_output", async () => {
    const fns = (await openaiResponsesTools(hub, { defer: true })) as Array<{ name?: string }>;
    for (const h of HIDDEN) expect(fns.map((f) => f.name)).not.toContain(h);
    const output = await answerToolSearch(hub, {
      call_id: "c1",
      arguments: JSON.stringify({ query: "shred the notebook and erase every note" }),
    });
    expect(output.tools.length).toBeGreaterThan(0);
    for (const h of HIDDEN) expect(output.tools.map((t) => t.name)).not.toContain(h);
    const add = await answerToolSearch(hub, { call_id: "c2", arguments: '{"query":"save a note"}' });
    expect(add.tools[0]!.name).toBe("mcp__notes__add_note");
  });

  it("portable: search_tools never returns it, call_tool refuses it", async () => {
    const { search_tools, call_tool } = portableToolSearch(hub);
    const found = await search_tools.execute({ query: "erase a note from the notebook", limit: 20 });
    if (!("tools" in found)) throw new Error("expected tools");
    for (const h of HIDDEN) expect(found.tools.map((t) => t.name)).not.toContain(h);
    expect(found.tools.map((t) => t.name)).toContain("mcp__notes__add_note");
    const refused = await call_tool.execute({ name: "mcp__notes__erase_note", arguments: { id: "1" } });
    expect(refused.isError).toBe(true);
    expect(server.callsOf("tools/call", "erase_note")).toEqual([]);
  });

  it("a deny default hides every tool no rule allows", async () => {
    await using only = new Hub({
      logger,
      clientOptions: { logger },
      servers: { notes: { transport: { type: "in-process", server: notes() } } },
      governance: { policy: [{ tool: "find_*", decision: "allow" }], defaultDecision: "deny" },
    });
    expect(names(await only.listTools())).toEqual(["mcp__notes__find_notes"]);
    const found = names((await only.searchTools("save a note to the notebook")).map((r) => r.tool));
    expect(found).toEqual(["mcp__notes__find_notes"]);
  });

  it("client.searchTools and listCallableTools under a governance interceptor", async () => {
    const own = notes();
    await using client = new Client({
      transport: { type: "in-process", server: own },
      name: "visibility-test",
      serverId: "notes",
      logger,
      interceptors: [governance({ policy: RULES })],
    });
    const callable = names(await client.listCallableTools());
    expect(callable.sort()).toEqual(["add_note", "find_notes"]);
    const found = names(
      (await client.searchTools("erase a note from the notebook", { limit: 20 })).map((r) => r.tool),
    );
    expect(found).not.toContain("erase_note");
    expect(found).toContain("add_note");
    const err = (await rejectionOf(client.callTool("erase_note", { id: "1" }))) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(own.callsOf("tools/call", "erase_note")).toEqual([]);
  });
});

describe("a tool denied only for some arguments stays visible", () => {
  it("a policy function's deny hides nothing: listed, found, refused only when it says so", async () => {
    const own = notes();
    await using conditional = new Hub({
      logger,
      clientOptions: { logger },
      servers: {
        notes: {
          transport: { type: "in-process", server: own },
          governance: {
            policy: (call) =>
              call.tool.name === "erase_note" && call.arguments.id === "all" ? "deny" : "allow",
          },
        },
      },
    });
    expect(names(await conditional.listTools())).toContain("mcp__notes__erase_note");
    const [top] = await conditional.searchTools("erase a note from the notebook", { limit: 1 });
    expect(top!.tool.name).toBe("mcp__notes__erase_note");
    const err = (await rejectionOf(
      conditional.callTool("mcp__notes__erase_note", { id: "all" }),
    )) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(own.callsOf("tools/call", "erase_note")).toEqual([]);
    const ok = await conditional.callTool("mcp__notes__erase_note", { id: "7" });
    expect(ok.isError).toBe(false);
    expect(own.callsOf("tools/call", "erase_note")).toHaveLength(1);
  });
});
