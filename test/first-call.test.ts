// The first call and the first listing (requests.md, "The first call and the first listing"): a
// client holding no listing sends its first call beside the listing instead of after it, and the
// listing judges the answer before it is handed out. Against the scripted server (a real process:
// test/fixtures/scripted-server.mjs), whose `listAfterCall` holds its first listing until a call
// arrives, so a client that waits for the listing before calling hears an empty one (and a
// not_found) instead.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { governance } from "../src/governance/index.js";
import { Client, subscribe } from "../src/index.js";
import { startOfficialHttp } from "./support/http-servers.js";
import { closeAll, scriptedClient } from "./support/scripted.js";
import { officialServer } from "./support/servers.js";
import { WireTap } from "./support/wire-tap.js";

afterEach(closeAll);

const dir = mkdtempSync(join(tmpdir(), "first-call-"));
let n = 0;
/** A fresh state file of the server's requests, and a reader of its lines. */
function state(): { file: string; lines: () => string[] } {
  const file = join(dir, `state-${n++}`);
  return {
    file,
    lines: () => {
      try {
        return readFileSync(file, "utf8").split("\n").filter(Boolean);
      } catch {
        return [];
      }
    },
  };
}

/** The scripted client, checking names against the listing (the test helper's default opts out). */
function client(config: Record<string, unknown>, options: Record<string, unknown> = {}) {
  return scriptedClient(config, { callUnlistedTools: false, ...options });
}

describe.each(["modern", "legacy"] as const)("the first call beside the first listing (%s)", (era) => {
  const protocol = era === "legacy" ? "legacy" : "auto";

  it("goes out before the listing is answered: one round trip, and the listing still judges it", async () => {
    const s = state();
    const c = client({ listAfterCall: 4000, stateFile: s.file }, { protocol });
    const result = await c.callTool("echo", { n: 1 });
    expect(result.isError).toBe(false);
    expect(result.structured).toMatchObject({ name: "echo", arguments: { n: 1 } });
    expect(s.lines().filter((l) => l.startsWith("tools/"))).toEqual(["tools/list", "tools/call echo"]);
    // The listing is held now: the next call goes out at once.
    expect((await c.callTool("echo", {})).isError).toBe(false);
    expect(s.lines().filter((l) => l === "tools/list")).toHaveLength(1);
  });

  it("a name the listing lacks: not_found with data.sent, cancelled on the wire; later ones are not sent", async () => {
    const s = state();
    const c = client(
      { tools: [{ name: "echo", inputSchema: { type: "object" } }], stateFile: s.file },
      { protocol },
    );
    // `hang` never answers: the listing's word ends the call, and the server hears it cancelled.
    await expect(c.callTool("hang", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "unknown_tool",
      data: { sent: true },
    });
    await expect.poll(() => s.lines()).toContain("notifications/cancelled");
    expect(s.lines()).toContain("tools/call hang");
    await expect(c.callTool("hang", {})).rejects.toMatchObject({ kind: "not_found", reason: "unknown_tool" });
    expect(s.lines().filter((l) => l === "tools/call hang")).toHaveLength(1);
  });

  it("a tool intake leaves out: not_found tool_rejected, its answer never handed out", async () => {
    const s = state();
    const tools = [
      { name: "echo", inputSchema: { type: "object", $ref: "https://example.com/schema.json" } },
    ];
    const c = client({ tools, stateFile: s.file, listAfterCall: 4000 }, { protocol });
    await expect(c.callTool("echo", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "tool_rejected",
      data: { sent: true },
    });
    await expect(c.callTool("echo", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "tool_rejected",
    });
    expect(s.lines().filter((l) => l === "tools/call echo")).toHaveLength(1);
  });

  it("an answer that came before the listing is checked against the listed output schema", async () => {
    const outputSchema = { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] };
    const tools = [{ name: "echo", inputSchema: { type: "object" }, outputSchema }];
    const c = client({ tools, listAfterCall: 4000 }, { protocol });
    await expect(c.callTool("echo", {})).rejects.toMatchObject({
      kind: "protocol",
      reason: "output_schema_mismatch",
    });
  });

  it("a name the caller's governance denies is never sent, and nothing waits on it", async () => {
    const s = state();
    const c = client(
      { stateFile: s.file },
      { protocol, interceptors: [governance({ policy: [{ tool: "echo", decision: "deny" }] })] },
    );
    await expect(c.callTool("echo", {})).rejects.toMatchObject({ kind: "denied" });
    expect(s.lines().filter((l) => l.startsWith("tools/call"))).toEqual([]);
  });

  it("a name intake could never admit waits for the listing and is never sent", async () => {
    const s = state();
    const c = client({ stateFile: s.file }, { protocol });
    await expect(c.callTool("has space", {})).rejects.toMatchObject({ kind: "not_found" });
    expect(s.lines().filter((l) => l.startsWith("tools/call"))).toEqual([]);
  });
});

describe.each(["modern", "legacy"] as const)("against the official server (%s)", (era) => {
  const protocol = era === "legacy" ? "legacy" : "auto";
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  /** A client of the official server over stdio, and the count of calls sent when its listing came. */
  function tapped(): { c: Client; tap: WireTap; callsSentWhenListed: number[] } {
    const tap = new WireTap(officialServer("dual"));
    const callsSentWhenListed: number[] = [];
    const push = tap.received.push.bind(tap.received);
    tap.received.push = (...ms) => {
      for (const m of ms) {
        if (m.result && "tools" in m.result) callsSentWhenListed.push(tap.sentWith("tools/call").length);
      }
      return push(...ms);
    };
    const c = new Client({ name: "first-call", transport: tap, protocol });
    clients.push(c);
    return { c, tap, callsSentWhenListed };
  }

  it("the first call was on the wire before the listing's answer came back", async () => {
    const { c, callsSentWhenListed } = tapped();
    const result = await c.callTool("echo", { message: "hi" });
    expect(result.content).toEqual([{ type: "text", text: "hi" }]);
    expect(c.status().era).toBe(era);
    expect(callsSentWhenListed).toEqual([1]);
  });

  it("a first call of a name the server does not list: not_found, sent", async () => {
    const { c, tap } = tapped();
    await expect(c.callTool("nope", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "unknown_tool",
      data: { sent: true },
    });
    await expect(c.callTool("nope", {})).rejects.toMatchObject({ kind: "not_found", reason: "unknown_tool" });
    expect(tap.sentWith("tools/call")).toHaveLength(1);
  });
});

describe("over HTTP the first call goes right behind the listing, modern (official server)", () => {
  it.each(["modern", "legacy"] as const)(
    "%s: tools/call starts before tools/list ends (modern only)",
    async (era) => {
      const server = await startOfficialHttp("dual");
      const order: string[] = [];
      const offs = [
        subscribe("request:start", (e) => order.push(`start ${String(e.method)}`)),
        subscribe("request:stop", (e) => order.push(`stop ${String(e.method)}`)),
      ];
      const c = new Client({
        name: "first-call-http",
        transport: { type: "http", url: server.url },
        protocol: era === "legacy" ? "legacy" : "auto",
      });
      try {
        await c.ready();
        order.length = 0;
        expect((await c.callTool("echo", { message: "hi" })).content).toEqual([{ type: "text", text: "hi" }]);
        const tools = order.filter((o) => o.includes("tools/"));
        // Modern: pipelined on the listing's connection (test/first-call-http.test.ts: the same
        // socket). Legacy: after the listing (the GET stream must not be overtaken).
        expect(tools).toEqual(
          era === "modern"
            ? ["start tools/list", "start tools/call", "stop tools/list", "stop tools/call"]
            : ["start tools/list", "stop tools/list", "start tools/call", "stop tools/call"],
        );
      } finally {
        for (const off of offs) off();
        await c.close();
        await server.stop();
      }
    },
  );
});

describe("an input_required round of a first call waits for the listing (modern)", () => {
  const asked: string[] = [];
  const handler = {
    listRoots: async () => {
      asked.push("roots");
      return { roots: [{ uri: "file:///work", name: "work" }] };
    },
  };
  const listed = [
    { name: "echo", inputSchema: { type: "object" } },
    { name: "needs-roots", inputSchema: { type: "object" } },
  ];

  it("a tool the late listing has: the handler answers once the listing is in", async () => {
    asked.length = 0;
    const c = client({ tools: listed, listLate: 300 }, { handler });
    const result = await c.callTool("needs-roots", {});
    expect(result.content).toEqual([{ type: "text", text: "answered" }]);
    expect(asked).toEqual(["roots"]);
  });

  it("a tool the late listing lacks: not_found, and the handler never hears of it", async () => {
    asked.length = 0;
    const c = client({ tools: [listed[0]], listLate: 300 }, { handler });
    await expect(c.callTool("needs-roots", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "unknown_tool",
      data: { sent: true },
    });
    expect(asked).toEqual([]);
  });
});
