// The optional embed hook: blended with the lexical ranking, asked once per tool definition (then
// kept), never called without it, and refused when it answers with the wrong shape. The hook is
// a small hand-made one (a word-to-concept table): no model is downloaded here or by default.
import { describe, expect, it } from "vitest";
import { blendedSearch, ToolSearchIndex } from "../src/search/index.js";
import type { Tool } from "../src/shared/tool.js";

const tool = (name: string, description: string): Tool => ({
  serverId: "",
  name,
  description,
  inputSchema: { type: "object" },
});

// Concepts: 0 altitude, 1 files, 2 people.
const CONCEPTS: Record<string, number> = {
  elevation: 0,
  tall: 0,
  mountain: 0,
  file: 1,
  files: 1,
  folder: 1,
  who: 2,
  people: 2,
  users: 2,
};

function embedder() {
  const asked: string[][] = [];
  const embed = async (texts: string[]) => {
    asked.push(texts);
    return texts.map((t) => {
      const v = [0, 0, 0];
      for (const w of t.toLowerCase().split(/[^a-z]+/)) if (w in CONCEPTS) v[CONCEPTS[w]!]! += 1;
      return v;
    });
  };
  return { embed, asked };
}

function index() {
  const ix = new ToolSearchIndex<string>();
  const tools = [
    tool("maps_elevation", "Get elevation data for locations on the earth"),
    tool("list_files", "List the files in a folder"),
    tool("get_users", "Get the users of the workspace"),
  ];
  ix.setServer(
    "s",
    tools.map((t) => ({ name: `mcp__s__${t.name}`, serverId: "s", tool: t, item: t.name })),
  );
  return ix;
}

describe("the embed hook", () => {
  it("finds what the words alone miss, blended with the lexical ranking", async () => {
    const ix = index();
    expect(ix.search("how tall is that mountain", 3)).toEqual([]);
    const { embed } = embedder();
    const found = await blendedSearch(ix, "how tall is that mountain", embed, { limit: 3 });
    expect(found[0]!.item).toBe("maps_elevation");
    // A lexical match still counts: both halves of the blend agree here.
    const both = await blendedSearch(ix, "list the files", embed, { limit: 3 });
    expect(both[0]!.item).toBe("list_files");
    expect(both[0]!.score).toBeGreaterThan(0.9);
  });

  it("asks for each tool's vector once, then only for the query's", async () => {
    const ix = index();
    const { embed, asked } = embedder();
    await blendedSearch(ix, "who is here", embed, { limit: 2 });
    await blendedSearch(ix, "which people", embed, { limit: 2 });
    expect(asked.map((a) => a.length)).toEqual([4, 1]);
    expect(asked[0]![1]).toContain("mcp__s__get_users");
  });

  it("refuses an answer of the wrong shape", async () => {
    await expect(blendedSearch(index(), "x", async () => [[1]], { limit: 2 })).rejects.toThrow(/embed hook/);
    await expect(
      blendedSearch(index(), "x", async (t) => t.map(() => [Number.NaN]), { limit: 2 }),
    ).rejects.toThrow(/embed hook/);
  });
});
