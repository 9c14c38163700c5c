// The hub under concurrent first use: calls and listings made while a listing is being built
// (right after `new Hub`, before `ready()`, or during a re-list) wait for that one listing, within
// their own deadline and signal; nothing is asked twice and no name is wrongly unknown.

import { afterEach, describe, expect, it } from "vitest";
import { Hub, type HubOptions, type JsonRpcMessage } from "../src/index.js";
import { rejectionOf, silentLogger, waitFor } from "./support/index.js";
import { MemoryServer, type MemoryTool } from "./support/memory-server.js";

const hubs: Hub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
});

function hub(options: Partial<HubOptions> & Pick<HubOptions, "servers">): Hub {
  const logger = silentLogger();
  const h = new Hub({ logger, clientOptions: { logger, requestTimeout: 10_000 }, ...options });
  hubs.push(h);
  return h;
}

const tools = (...names: string[]): MemoryTool[] => names.map((name) => ({ name }));

/** A MemoryServer whose `tools/list` answers wait until `release()` (the listing is "being built"). */
class GatedServer extends MemoryServer {
  readonly #held: JsonRpcMessage[] = [];
  #open = false;

  override send(message: JsonRpcMessage): void {
    if (!this.#open && (message as { method?: string }).method === "tools/list") {
      this.#held.push(message);
      return;
    }
    super.send(message);
  }

  get held(): number {
    return this.#held.length;
  }

  /** Holds the `tools/list` requests that come from now on. */
  hold(): void {
    this.#open = false;
  }

  release(): void {
    this.#open = true;
    for (const m of this.#held.splice(0)) super.send(m);
  }
}

describe("calls made while the hub's listing is being built", () => {
  it("20 concurrent calls right after new Hub all route; one tools/list per server, each call once", async () => {
    const servers = ["a", "b", "c", "d"].map(
      () => new MemoryServer({ tools: tools("t0", "t1", "t2", "t3", "t4") }),
    );
    const h = hub({ servers: Object.fromEntries(servers.map((s, i) => [`s${i}`, { transport: s }])) });
    const names = servers.flatMap((_, i) => [0, 1, 2, 3, 4].map((j) => `mcp__s${i}__t${j}`));
    expect(names).toHaveLength(20);
    const results = await Promise.all(names.map((n) => h.callTool(n, { n }, { timeout: 30_000 })));
    for (const [k, r] of results.entries()) {
      expect(r.isError).toBe(false);
      expect(r.content).toEqual([
        { type: "text", text: `${names[k]!.split("__")[2]}:${JSON.stringify({ n: names[k] })}` },
      ]);
    }
    for (const s of servers) {
      expect(s.count("tools/list")).toBe(1);
      for (let j = 0; j < 5; j++) expect(s.count(`tools/call t${j}`)).toBe(1);
    }
  });

  it("calls made while the first listing is held wait for it (one listing), an unknown name stays not_found", async () => {
    const a = new GatedServer({ tools: tools("x", "y") });
    const b = new MemoryServer({ tools: tools("z") });
    const h = hub({ servers: { a: { transport: a }, b: { transport: b } } });
    const calls = [
      h.callTool("mcp__a__x", {}, { timeout: 30_000 }),
      h.callTool("mcp__a__y", {}, { timeout: 30_000 }),
      h.callTool("mcp__b__z", {}, { timeout: 30_000 }),
    ];
    const unknown = rejectionOf(h.callTool("mcp__a__nope", {}, { timeout: 30_000 }));
    await waitFor(() => a.held === 1, 10_000);
    a.release();
    for (const r of await Promise.all(calls)) expect(r.isError).toBe(false);
    expect(await unknown).toMatchObject({ kind: "not_found", reason: "unknown_tool" });
    expect(a.count("tools/list")).toBe(1);
    expect(b.count("tools/list")).toBe(1);
    expect(a.requests.filter((m) => m.startsWith("tools/call"))).toEqual(["tools/call x", "tools/call y"]);
  });

  it("a call whose signal aborts while it waits for the listing is aborted, and nothing is sent", async () => {
    const a = new GatedServer({ tools: tools("x") });
    const h = hub({ servers: { a: { transport: a } } });
    const first = h.callTool("mcp__a__x", {}, { timeout: 30_000 });
    const controller = new AbortController();
    const aborted = rejectionOf(h.callTool("mcp__a__x", { second: true }, { signal: controller.signal }));
    await waitFor(() => a.held === 1, 10_000);
    const reason = new Error("caller gave up");
    controller.abort(reason);
    expect(await aborted).toBe(reason);
    a.release();
    expect((await first).isError).toBe(false);
    expect(a.count("tools/list")).toBe(1);
    expect(a.requests.filter((m) => m.startsWith("tools/call"))).toEqual(["tools/call x"]);
  });

  it("calls made during a re-list after list_changed wait for it and see the new tool (one listing)", async () => {
    const a = new GatedServer({ tools: tools("x") });
    const h = hub({ servers: { a: { transport: a } } });
    const first = h.callTool("mcp__a__x", {}, { timeout: 30_000 });
    await waitFor(() => a.held === 1, 10_000);
    a.release();
    await first;
    a.hold();
    a.tools = tools("x", "w");
    const changed = new Promise<void>((resolve) => h.onToolsChanged(() => resolve()));
    a.listChanged();
    await changed;
    const calls = [
      h.callTool("mcp__a__w", { k: 1 }, { timeout: 30_000 }),
      h.callTool("mcp__a__w", { k: 2 }, { timeout: 30_000 }),
      h.callTool("mcp__a__x", {}, { timeout: 30_000 }),
    ];
    await waitFor(() => a.held === 1, 10_000);
    a.release();
    for (const r of await Promise.all(calls)) expect(r.isError).toBe(false);
    expect(a.count("tools/list")).toBe(2);
    expect(a.count("tools/call w")).toBe(2);
  });

  it("concurrent listTools calls before ready make one listing at each server", async () => {
    const servers = [new GatedServer({ tools: tools("x") }), new GatedServer({ tools: tools("y") })];
    const h = hub({ servers: { a: { transport: servers[0]! }, b: { transport: servers[1]! } } });
    const listings = Array.from({ length: 10 }, () => h.listTools({ timeout: 30_000 }));
    await waitFor(() => servers.every((s) => s.held === 1), 10_000);
    for (const s of servers) s.release();
    for (const listed of await Promise.all(listings)) {
      expect(listed.map((t) => t.name)).toEqual(["mcp__a__x", "mcp__b__y"]);
    }
    for (const s of servers) expect(s.count("tools/list")).toBe(1);
  });
});

describe("resources and prompts right after new Hub", () => {
  it("concurrent listings make one list per server, and reads and gets by server id all answer", async () => {
    const resources = [{ uri: "mem://a", name: "a", text: "A" }];
    const prompts = [{ name: "p" }];
    const servers = [new MemoryServer({ resources, prompts }), new MemoryServer({ resources, prompts })];
    const h = hub({ servers: { a: { transport: servers[0]! }, b: { transport: servers[1]! } } });
    const [lists, promptLists, reads, gets] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => h.listResources({ timeout: 30_000 }))),
      Promise.all(Array.from({ length: 5 }, () => h.listPrompts({ timeout: 30_000 }))),
      Promise.all(["a", "b"].map((id) => h.readResource(id, "mem://a", { timeout: 30_000 }))),
      Promise.all(["a", "b"].map((id) => h.getPrompt(id, "p", {}, { timeout: 30_000 }))),
    ]);
    for (const l of lists)
      expect(l.map((r) => [r.serverId, r.uri])).toEqual([
        ["a", "mem://a"],
        ["b", "mem://a"],
      ]);
    for (const l of promptLists)
      expect(l.map((p) => [p.serverId, p.name])).toEqual([
        ["a", "p"],
        ["b", "p"],
      ]);
    for (const r of reads) expect(r.contents).toEqual([{ uri: "mem://a", text: "A" }]);
    for (const g of gets) expect(g.messages).toHaveLength(1);
    for (const s of servers) {
      expect(s.count("resources/list")).toBe(1);
      expect(s.count("prompts/list")).toBe(1);
      expect(s.count("resources/read")).toBe(1);
      expect(s.count("prompts/get")).toBe(1);
    }
  });
});
