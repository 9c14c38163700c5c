// hub.searchTools and client.searchTools over real servers: @modelcontextprotocol/server-filesystem
// over stdio and the project's FakeServer in-process (whose list changes on cue). The search sees
// exactly what the listing shows: a denied tool is never found, a changed list is searched at
// once, and a found tool called through the hub goes through its governance.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Client, Hub, type McpClientError } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { FILESYSTEM_SERVER, nodeServer, rejectionOf, silentLogger, waitFor } from "./support/index.js";

const obj = { type: "object", properties: {} };

function notes(): FakeServer {
  return new FakeServer({ name: "notes" })
    .tool("add_note", { type: "object", properties: { text: { type: "string" } } }, () => "added", {
      description: "Save a short note to the notebook",
    })
    .tool("find_notes", { type: "object", properties: { query: { type: "string" } } }, () => "none", {
      description: "Search the saved notes by keyword",
    })
    .tool("wipe_notebook", obj, () => "wiped", { description: "Delete every note in the notebook" });
}

describe("hub.searchTools", () => {
  let dir: string;
  let hub: Hub;
  const server = notes();
  const logger = silentLogger();

  beforeAll(async () => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "hub-search-")));
    hub = new Hub({
      logger,
      clientOptions: { logger, requestTimeout: 10_000 },
      listTimeout: 10_000,
      servers: {
        fs: { transport: nodeServer(FILESYSTEM_SERVER, [dir]), deny: ["write_file"] },
        notes: {
          transport: { type: "in-process", server },
          deny: ["wipe_*"],
          governance: { policy: [{ tool: "add_note", decision: "ask", reason: "read-only today" }] },
        },
      },
    });
    await hub.ready({ timeout: 20_000 });
  }, 30_000);

  afterAll(async () => {
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("ranks the tools for a task-style query; limit and servers narrow it", async () => {
    const found = await hub.searchTools("make a folder for the reports", { limit: 5 });
    expect(found[0]!.tool.name).toBe("mcp__fs__create_directory");
    expect(found[0]!.tool.serverId).toBe("fs");
    expect(found.length).toBeLessThanOrEqual(5);
    expect(found.every((r, i) => i === 0 || r.score <= found[i - 1]!.score)).toBe(true);
    const mine = await hub.searchTools("find my notes about the meeting", { limit: 3, servers: ["notes"] });
    expect(mine.map((r) => r.tool.name)).toEqual(["mcp__notes__find_notes", "mcp__notes__add_note"]);
    expect(await hub.searchTools("xylophone quasar")).toEqual([]);
  });

  it("never finds a tool the hub hides (deny rules, a call's filters)", async () => {
    const all = async (q: string) => (await hub.searchTools(q, { limit: 50 })).map((r) => r.tool.name);
    expect(await all("write a file with new content")).not.toContain("mcp__fs__write_file");
    expect(await all("delete every note in the notebook")).not.toContain("mcp__notes__wipe_notebook");
    const filtered = await hub.searchTools("folder", { limit: 50, deny: ["*create*"] });
    expect(filtered.map((r) => r.tool.name)).not.toContain("mcp__fs__create_directory");
    expect(filtered.length).toBeGreaterThan(0);
  });

  it("a found tool is called through the hub, with its governance", async () => {
    const [add] = await hub.searchTools("save a note", { limit: 1 });
    expect(add!.tool.name).toBe("mcp__notes__add_note");
    const err = (await rejectionOf(hub.callTool(add!.tool.name, { text: "hi" }))) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(server.callsOf("tools/call", "add_note")).toEqual([]);
    const [find] = await hub.searchTools("look through my notes", { limit: 1 });
    expect(find!.tool.name).toBe("mcp__notes__find_notes");
    const result = await hub.callTool(find!.tool.name, { query: "x" });
    expect(result.isError).toBe(false);
  });

  it("follows a server's changed list (list_changed reaches the index)", async () => {
    const names = async () => (await hub.searchTools("translate this to french")).map((r) => r.tool.name);
    expect(await names()).not.toContain("mcp__notes__translate_text");
    server.tool("translate_text", obj, () => "bonjour", {
      description: "Translate text into another language",
    });
    await waitFor(async () => (await names())[0] === "mcp__notes__translate_text", 10_000);
    server.remove("translate_text");
    await waitFor(async () => !(await names()).includes("mcp__notes__translate_text"), 10_000);
  });

  it("refuses bad options before any I/O", async () => {
    await expect(hub.searchTools("x", { limit: 0 })).rejects.toThrow(/limit/);
    await expect(hub.searchTools("x", { servers: "fs" as never })).rejects.toThrow(/servers/);
    await expect(hub.searchTools("x", { bogus: 1 } as never)).rejects.toThrow(/bogus/);
    await expect(hub.searchTools(42 as never)).rejects.toThrow(/query/);
  });
});

describe("client.searchTools", () => {
  it("takes the same arguments over one server's tools, its filters applied", async () => {
    const logger = silentLogger();
    await using client = new Client({
      transport: { type: "in-process", server: notes() },
      name: "search-test",
      serverId: "notes",
      logger,
    });
    const found = await client.searchTools("look through my notes", { limit: 2 });
    expect(found[0]!.tool).toMatchObject({ name: "find_notes", serverId: "notes" });
    expect(found[0]!.score).toBeGreaterThan(0);
    const narrowed = await client.searchTools("notes", { limit: 10, deny: ["find_*"], servers: ["notes"] });
    expect(narrowed.map((r) => r.tool.name)).not.toContain("find_notes");
    expect(await client.searchTools("notes", { servers: ["other"] })).toEqual([]);
  });
});

describe("the search's listing", () => {
  it("past the 1 s reuse, takes the hub's own list state: no listing while nothing changed", async () => {
    // server-filesystem over stdio speaks the legacy era and declares tools.listChanged: its
    // changes are announced, so its last listing stands until one is heard.
    const logger = silentLogger();
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "hub-search-state-")));
    await using hub = new Hub({
      logger,
      clientOptions: { logger, requestTimeout: 10_000 },
      listTimeout: 10_000,
      servers: { fs: { transport: nodeServer(FILESYSTEM_SERVER, [dir]) } },
    });
    await hub.ready({ timeout: 20_000 });
    expect(hub.status().servers.fs!.era).toBe("legacy");
    const found = async (q: string) => (await hub.searchTools(q)).map((r) => r.tool.name);
    expect(await found("make a folder for the reports")).toContain("mcp__fs__create_directory");
    await new Promise((r) => setTimeout(r, 1_100));
    const listings = vi.spyOn(hub, "listTools");
    expect(await found("move old.csv to archive.csv")).toContain("mcp__fs__move_file");
    expect(listings).not.toHaveBeenCalled();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("a server that does not announce its changes is listed again after 1 s", async () => {
    const logger = silentLogger();
    await using hub = new Hub({
      logger,
      clientOptions: { logger },
      servers: { notes: { transport: { type: "in-process", server: notes() } } },
    });
    await hub.ready({ timeout: 10_000 });
    await hub.searchTools("look through my notes");
    await new Promise((r) => setTimeout(r, 1_100));
    const listings = vi.spyOn(hub, "listTools");
    await hub.searchTools("save a note");
    expect(listings).toHaveBeenCalledTimes(1);
  });
});
