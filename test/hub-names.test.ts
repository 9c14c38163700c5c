// qualifyToolName as the Codex seed defines it, and the allow/deny/filter options of
// Client.listAllTools (with qualify: true), against the scripted server.
import { createHash, randomInt } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { Hub, loadServersConfig, qualifyToolName } from "../src/index.js";
import { closeAll, recordingLogger, scriptedClient } from "./support/scripted.js";

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A random string of 0..n code points from all of Unicode (surrogates and controls included). */
function randomText(n: number): string {
  const length = randomInt(0, n + 1);
  let s = "";
  for (let i = 0; i < length; i++) {
    const pick = randomInt(0, 4);
    // Mix ASCII (the allowed set and its neighbours) with anything else, lone surrogates too.
    const cp =
      pick === 0 ? randomInt(0x20, 0x7f) : pick === 1 ? randomInt(0, 0x20) : randomInt(0x80, 0x110000);
    s += cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp);
  }
  return s;
}

describe("qualifyToolName", () => {
  it("holds the seed's two examples", () => {
    expect(qualifyToolName("server1", "tool_a")).toBe("mcp__server1__tool_a");
    const long = qualifyToolName("srv", "a".repeat(80));
    expect(long).toHaveLength(64);
  });

  it("replaces every character outside [A-Za-z0-9_-] with _, one per code point", () => {
    expect(qualifyToolName("my server", "read.file")).toBe("mcp__my_server__read_file");
    expect(qualifyToolName("ünï", "t😀")).toBe("mcp___n___t_");
  });

  it("truncates to 24 characters plus the SHA-1 (hex) of the raw, unsanitised name", () => {
    const tool = "é".repeat(70);
    const raw = `mcp__srv__${tool}`;
    const sha1 = createHash("sha1").update(raw).digest("hex");
    expect(qualifyToolName("srv", tool)).toBe(`mcp__srv__${"_".repeat(14)}${sha1}`);
    // Names that sanitise alike but differ raw still differ once truncated.
    expect(qualifyToolName("srv", "à".repeat(70))).not.toBe(qualifyToolName("srv", tool));
  });

  it("keeps a name of exactly 64 characters as is", () => {
    const tool = "t".repeat(64 - "mcp__s__".length);
    expect(qualifyToolName("s", tool)).toBe(`mcp__s__${tool}`);
    expect(qualifyToolName("s", `${tool}x`)).toHaveLength(64);
  });

  it("always gives ^[A-Za-z0-9_-]{1,64}$, deterministically, distinct for distinct inputs (random unicode)", () => {
    const seen = new Map<string, string>();
    for (let i = 0; i < 3_000; i++) {
      const server = randomText(i % 3 === 0 ? 80 : 12);
      const tool = randomText(i % 2 === 0 ? 100 : 20);
      const q = qualifyToolName(server, tool);
      expect(q).toMatch(NAME);
      expect(qualifyToolName(server, tool)).toBe(q);
      const raw = `mcp__${server}__${tool}`;
      if (q.length === 64 && raw.length > 64) {
        const before = seen.get(q);
        if (before !== undefined) expect(before).toBe(raw);
        seen.set(q, raw);
      }
    }
  });

  it("refuses what is not a string (a TypeError)", () => {
    expect(() => qualifyToolName(1 as unknown as string, "x")).toThrow(TypeError);
    expect(() => qualifyToolName("x", null as unknown as string)).toThrow(TypeError);
  });
});

describe("Client.listAllTools filters", () => {
  afterAll(closeAll);
  const tools = ["read_file", "write_file", "delete_file", "delete_dir", "list"].map((name) => ({
    name,
    description: `${name} things`,
    inputSchema: { type: "object" },
    ...(name.startsWith("delete") ? { annotations: { destructiveHint: true } } : {}),
  }));

  it("allow, deny (deny wins), filter, and qualify", async () => {
    const c = scriptedClient({ tools }, { serverId: "fs" });
    const names = async (o: Parameters<typeof c.listAllTools>[0]) =>
      (await c.listAllTools(o)).map((t) => t.name);
    expect(await names({ allow: ["*_file"] })).toEqual(["read_file", "write_file", "delete_file"]);
    expect(await names({ allow: ["*_file"], deny: ["delete_*"] })).toEqual(["read_file", "write_file"]);
    expect(await names({ allow: ["list"], deny: ["list"] })).toEqual([]);
    expect(await names({ deny: ["*"] })).toEqual([]);
    expect(await names({ allow: ["*e*_*i*"] })).toEqual([
      "read_file",
      "write_file",
      "delete_file",
      "delete_dir",
    ]);
    expect(await names({ filter: (t) => t.annotations?.destructiveHint !== true })).toEqual([
      "read_file",
      "write_file",
      "list",
    ]);
    const q = await c.listAllTools({ qualify: true, allow: ["list"] });
    expect(q).toEqual([expect.objectContaining({ name: "list", qualifiedName: "mcp__fs__list" })]);
    // Without options nothing changes.
    expect(await names(undefined)).toEqual(tools.map((t) => t.name));
  });

  it("a filter that throws or returns a truthy non-boolean hides the tool, with a warning", async () => {
    const logger = recordingLogger();
    const c = scriptedClient({ tools }, { logger });
    const listed = await c.listAllTools({
      filter: (t) => {
        if (t.name === "list") throw new Error("boom");
        return (t.name === "read_file" ? 1 : true) as boolean;
      },
    });
    expect(listed.map((t) => t.name)).toEqual(["write_file", "delete_file", "delete_dir"]);
    expect(logger.lines.some((l) => /filter function threw/.test(l))).toBe(true);
  });

  it("bad filter options are a TypeError naming the option, before any request", async () => {
    const c = scriptedClient({ tools });
    await expect(c.listAllTools({ allow: "read_file" as unknown as string[] })).rejects.toThrow(/"allow"/);
    await expect(c.listAllTools({ deny: [""] })).rejects.toThrow(/"deny\[0\]"/);
    await expect(c.listAllTools({ deny: [42 as unknown as string] })).rejects.toThrow(TypeError);
    await expect(c.listAllTools({ filter: "x" as unknown as () => boolean })).rejects.toThrow(/"filter"/);
    await expect(c.listAllTools({ qualify: "yes" as unknown as boolean })).rejects.toThrow(/"qualify"/);
    await expect(c.listAllTools({ allow: Array(1001).fill("x") })).rejects.toThrow(TypeError);
    // The client still works.
    expect((await c.listAllTools()).length).toBe(5);
  });

  it("a hostile glob cannot make matching slow (no backtracking)", async () => {
    const long = "a".repeat(100);
    const c = scriptedClient({ tools: [{ name: long, inputSchema: { type: "object" } }] });
    const pattern = `${"*a".repeat(400)}*b`;
    expect(await c.listAllTools({ allow: [pattern] })).toEqual([]);
  });
});

describe("server ids that collide once sanitised", () => {
  // Nothing starts: the ids are checked before any client is made.
  const server = { transport: { type: "stdio" as const, command: "node" } };
  const refusal = (fn: () => unknown): string => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(TypeError);
      return (err as Error).message;
    }
    throw new Error("not refused");
  };

  it("are refused with a TypeError naming both ids as the operator wrote them", () => {
    expect(refusal(() => new Hub({ servers: { "x.y": server, x_y: server } }))).toBe(
      'conduit-mcp: server ids collide: "x.y" and "x_y" are both "x_y" in qualified names (they differ only by characters that qualified names replace)',
    );
    // Invisible differences are shown, escaped, not hidden.
    expect(refusal(() => new Hub({ servers: { "a\u200bb": server, "a b": server } }))).toContain(
      '"a\\u200bb" and "a b" are both "a_b"',
    );
    const hub = new Hub({ servers: { "my.fs": server } });
    try {
      expect(refusal(() => hub.add("my_fs", server))).toContain('"my.fs" and "my_fs" are both "my_fs"');
    } finally {
      void hub.close();
    }
  });

  it("in a host's config file, the same", () => {
    const doc = { mcpServers: { "x.y": { command: "x" }, x_y: { command: "y" } } };
    expect(refusal(() => loadServersConfig(doc, { env: {} }))).toBe(
      'conduit-mcp: "<object>": server ids collide: "x.y" and "x_y" are both "x_y" in qualified names (they differ only by characters that qualified names replace)',
    );
  });
});
