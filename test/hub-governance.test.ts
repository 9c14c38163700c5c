// Governance on a hub: one policy for all servers (rules may name them), a server's own
// governance in its place, principals through routed calls, a rug pull behind a qualified name.
// The servers are the in-process MemoryServers of the hub tests (they record every request).
import { afterEach, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../src/governance/index.js";
import { Hub, type HubOptions, type McpClientError } from "../src/index.js";
import { recordEvents } from "./support/events.js";
import { rejectionOf, silentLogger } from "./support/index.js";
import { MemoryServer } from "./support/memory-server.js";

const hubs: Hub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.close()));
});

function hub(options: Partial<HubOptions> & Pick<HubOptions, "servers">): Hub {
  const logger = silentLogger();
  const h = new Hub({ logger, clientOptions: { logger, requestTimeout: 5_000 }, ...options });
  hubs.push(h);
  return h;
}

const fileTools = () => [
  { name: "read_file", description: "Reads a file", inputSchema: { type: "object" } },
  { name: "write_file", description: "Writes a file", inputSchema: { type: "object" } },
];

describe("a governed hub", () => {
  it("one policy for every server; a rule naming a server applies to that server only", async () => {
    const fs = new MemoryServer({ tools: fileTools() });
    const docs = new MemoryServer({ tools: fileTools() });
    const asked: ApprovalRequest[] = [];
    const h = hub({
      name: "gov-hub",
      servers: { fs: { transport: fs }, docs: { transport: docs } },
      governance: {
        policy: [
          { server: "docs", tool: "write_*", decision: "deny", reason: "docs are read-only" },
          { tool: "read_*", decision: "allow" },
          { tool: "write_file", decision: "ask" },
        ],
        approve: (r) => {
          asked.push(r);
          return true;
        },
      },
    });
    const rec = recordEvents({ client: "gov-hub", names: ["policy:decision"] });
    try {
      await h.listTools();
      const err = (await rejectionOf(h.callTool("mcp__docs__write_file", { path: "x" }))) as McpClientError;
      expect(err.kind).toBe("denied");
      expect(err.reason).toBe("denied_by_policy");
      expect(err.detail).toEqual({ by: "policy", rule: 0, reason: "docs are read-only" });
      expect(docs.requests.filter((m) => m.startsWith("tools/call"))).toEqual([]);

      await h.callTool("mcp__docs__read_file", {});
      await h.callTool("mcp__fs__write_file", { path: "y" }, { principal: "user-1", context: { ticket: 3 } });
      expect(asked.map((r) => [r.serverId, r.tool.name, r.principal, r.context])).toEqual([
        ["fs", "write_file", "user-1", { ticket: 3 }],
      ]);
      expect(fs.requests).toContain("tools/call write_file");
      expect(rec.events.map((e) => [e.serverId, e.toolName, e.decision])).toEqual([
        ["docs", "write_file", "deny"],
        ["docs", "read_file", "allow"],
        ["fs", "write_file", "ask"],
      ]);
    } finally {
      rec.stop();
    }
  });

  it("a server's own governance replaces the hub's for that server", async () => {
    const fs = new MemoryServer({ tools: fileTools() });
    const scratch = new MemoryServer({ tools: fileTools() });
    const h = hub({
      servers: {
        fs: { transport: fs },
        scratch: { transport: scratch, governance: { policy: [{ tool: "*", decision: "allow" }] } },
      },
      governance: { policy: [{ tool: "write_file", decision: "ask" }] },
    });
    await h.listTools();
    await h.callTool("mcp__scratch__write_file", {});
    expect(scratch.requests).toContain("tools/call write_file");
    // No approver on the hub's governance: the ask fails closed.
    expect(((await rejectionOf(h.callTool("mcp__fs__write_file", {}))) as McpClientError).kind).toBe(
      "denied",
    );
    expect(fs.requests).not.toContain("tools/call write_file");
  });

  it("grants are per principal (the clients' principal by default) and pinned to the definition", async () => {
    const fs = new MemoryServer({ tools: fileTools() });
    const asked: ApprovalRequest[] = [];
    const logger = silentLogger();
    const h = hub({
      servers: { fs: { transport: fs } },
      clientOptions: { logger, requestTimeout: 5_000, principal: "alice" },
      governance: {
        policy: [{ tool: "write_file", decision: "ask" }],
        approve: (r) => {
          asked.push(r);
          return { allow: true, remember: "session" };
        },
      },
    });
    await h.listTools();
    await h.callTool("mcp__fs__write_file", {});
    await h.callTool("mcp__fs__write_file", {});
    await h.callTool("mcp__fs__write_file", { principal: "alice" }, { principal: "bob" });
    expect(asked.map((r) => r.principal)).toEqual(["alice", "bob"]);

    // The server swaps the tool's description: the hub lists it again and asks again.
    fs.tools = fs.tools.map((t) =>
      t.name === "write_file" ? { ...t, description: "Deletes everything" } : t,
    );
    await h.listTools({ refresh: true });
    await h.callTool("mcp__fs__write_file", {});
    expect(asked).toHaveLength(3);
    const last = asked[2]!;
    expect(last.principal).toBe("alice");
    expect(last.definition.description).toBe("Deletes everything");
    expect(last.previous?.definition.description).toBe("Writes a file");
    expect(last.previous?.digest).toBe(asked[0]!.digest);
  });

  it("bad governance options are TypeErrors naming the hub's key, before any server starts", () => {
    const fs = new MemoryServer({ tools: fileTools() });
    expect(() =>
      hub({ servers: { fs: { transport: fs } }, governance: { policy: [{ decision: "nope" }] } as never }),
    ).toThrow(/governance\.policy\[0\]\.decision/);
    expect(() => hub({ servers: { fs: { transport: fs, governance: { hookTimeout: -1 } } } })).toThrow(
      /servers\.fs\.governance\.hookTimeout/,
    );
  });
});
