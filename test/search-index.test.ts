import { describe, expect, it } from "vitest";
import { COMPETITIVE, fairShare } from "../src/search/fair-share.js";
import { ToolSearchIndex } from "../src/search/index.js";
import type { Tool } from "../src/shared/tool.js";
import { fairShareQuadratic } from "./fixtures/lib/fair-share-quadratic.mjs";

function tool(name: string, description: string, params: Record<string, string> = {}): Tool {
  const properties = Object.fromEntries(
    Object.entries(params).map(([k, d]) => [k, { type: "string", description: d }]),
  );
  return { serverId: "", name, description, inputSchema: { type: "object", properties } };
}

const FS = [
  tool("read_file", "Read the complete contents of a file from the file system.", {
    path: "Path of the file",
  }),
  tool("write_file", "Create a new file or completely overwrite an existing file with new content.", {
    path: "Path",
    content: "Text to write",
  }),
  tool("create_directory", "Create a new directory or ensure a directory exists.", {
    path: "Directory path",
  }),
  tool("list_directory", "Get a detailed listing of all files and directories in a specified path.", {
    path: "Directory path",
  }),
  tool("move_file", "Move or rename files and directories.", { source: "From", destination: "To" }),
  tool("search_files", "Recursively search for files and directories matching a pattern.", {
    pattern: "Glob pattern",
  }),
];
const MEMORY = [
  tool("create_entities", "Create multiple new entities in the knowledge graph", {
    entities: "The entities",
  }),
  tool("add_observations", "Add new observations to existing entities in the knowledge graph"),
  tool("search_nodes", "Search for nodes in the knowledge graph based on a query", { query: "Search query" }),
  tool("delete_entities", "Delete multiple entities and their associated relations from the knowledge graph"),
];

function items(serverId: string, tools: Tool[]) {
  return tools.map((t) => ({ name: `mcp__${serverId}__${t.name}`, serverId, tool: t, item: t.name }));
}

function index(): ToolSearchIndex<string> {
  const ix = new ToolSearchIndex<string>();
  ix.setServer("fs", items("fs", FS));
  ix.setServer("memory", items("memory", MEMORY));
  return ix;
}

describe("ToolSearchIndex", () => {
  it("finds tools from task-style queries (stemming, case and synonyms)", () => {
    const ix = index();
    expect(ix.search("make a folder for the reports", 3)[0]!.item).toBe("create_directory");
    expect(ix.search("rename report.txt to old.txt", 3)[0]!.item).toBe("move_file");
    expect(ix.search("list everything in the docs folder", 3).map((r) => r.item)).toContain("list_directory");
    expect(ix.search("remember that Alice likes tea", 3).map((r) => r.item)).toContain("add_observations");
    expect(ix.search("CreateDirectory", 1)[0]!.item).toBe("create_directory");
    expect(ix.search("zebra quantum", 5)).toEqual([]);
  });

  it("answers a question with the tools that read: its words name no action", () => {
    const ix = index();
    // "folder" names both directory tools; "what is in" asks to read, not to create.
    expect(ix.search("what is in the docs folder", 3)[0]!.item).toBe("list_directory");
    expect(ix.search("make a folder for the docs", 3)[0]!.item).toBe("create_directory");
    // The reading verbs are one slot of their own, below a word of the query: a question whose
    // words match a tool still finds it first; and they only re-order what the words matched.
    expect(ix.search("which entities can I delete", 3)[0]!.item).toBe("delete_entities");
    expect(ix.search("what is the weather like", 3)).toEqual([]);
  });

  it("is deterministic: ties are broken by name, whatever order servers were indexed in", () => {
    const a = index();
    const b = new ToolSearchIndex<string>();
    b.setServer("memory", items("memory", MEMORY));
    b.setServer("fs", items("fs", [...FS].reverse()));
    for (const q of ["file", "create", "search", "delete the graph entities"]) {
      expect(b.rank(q)).toEqual(a.rank(q));
    }
    const tied = new ToolSearchIndex<string>();
    tied.setServer("b", items("b", [tool("ping", "Ping.")]));
    tied.setServer("a", items("a", [tool("ping", "Ping.")]));
    expect(tied.rank("ping").map((r) => r.name)).toEqual(["mcp__a__ping", "mcp__b__ping"]);
  });

  it("re-indexes one server incrementally, and a same list is a no-op", () => {
    const ix = index();
    const before = ix.size;
    ix.setServer("fs", items("fs", FS));
    expect(ix.size).toBe(before);
    ix.setServer("fs", items("fs", [...FS, tool("zip_archive", "Compress files into a zip archive")]));
    expect(ix.size).toBe(before + 1);
    expect(ix.search("compress these files", 1)[0]!.item).toBe("zip_archive");
    ix.removeServer("memory");
    expect(ix.search("knowledge graph", 5)).toEqual([]);
    expect(ix.size).toBe(FS.length + 1);
  });

  it("bounds keyword stuffing: repetition saturates, and the stuffer gets at most its fair share", () => {
    const words =
      "create make folder directory file read write delete remove search find list move rename entity " +
      "graph memory observation report reports node relation knowledge get show retrieve";
    const stuffed = [
      tool("do_anything", `${words} `.repeat(50)),
      tool("do_everything", words),
      tool("do_all", words, { path: words, query: words }),
    ];
    const ix = index();
    ix.setServer("evil", items("evil", stuffed));
    const honest: Record<string, string> = {
      "make a folder for the reports": "create_directory",
      "read the file notes.txt": "read_file",
      "rename a file": "move_file",
      "find files matching *.ts": "search_files",
      "delete entities from the knowledge graph": "delete_entities",
      "search the knowledge graph nodes": "search_nodes",
      // Questions add the reading verbs the stuffer also carries.
      "what is in the src directory": "list_directory",
      "which nodes of the graph mention Alice": "search_nodes",
    };
    let evilFirst = 0;
    for (const [q, expected] of Object.entries(honest)) {
      const top = ix.search(q, 5);
      expect(top.map((r) => r.item)).toContain(expected);
      if (top[0]!.serverId === "evil") evilFirst++;
      // Three stuffed tools match every query: with n servers matching, max(2, ceil(5 / n)) places.
      const servers = new Set(ix.rank(q).map((r) => r.serverId)).size;
      expect(servers).toBeGreaterThan(1);
      const evil = top.filter((r) => r.serverId === "evil").length;
      expect(evil).toBeLessThanOrEqual(Math.max(2, Math.ceil(5 / servers)));
    }
    // It may win where it alone has the user's own word ("reports"), not everywhere.
    expect(evilFirst).toBeLessThanOrEqual(1);
    // Repetition does not add: fifty copies of the words score no more than one.
    const scores = Object.fromEntries(ix.rank("folder").map((r) => [r.item, r.score]));
    expect(scores.do_anything!).toBeLessThanOrEqual(scores.do_everything!);
  });

  it("prefers the server the query is about (the server prior), without changing the tools' own scores", () => {
    const lookup = tool("lookup", "Look up a record by key.");
    const ix = new ToolSearchIndex<string>();
    ix.setServer("a", items("a", [lookup, tool("translate", "Translate a sentence to another language.")]));
    ix.setServer(
      "b",
      items("b", [
        lookup,
        tool("forecast", "Weather forecast for a city."),
        tool("alerts", "Severe weather alerts in a region."),
      ]),
    );
    // The two lookups score the same on their own texts (a tie broken by name puts a's first):
    // b's other tools are about the weather, so b's lookup is the likelier answer.
    const lookups = ix.rank("lookup the weather").filter((r) => r.item === "lookup");
    expect(lookups.map((r) => r.serverId)).toEqual(["b", "a"]);
    expect(lookups[0]!.base).toBe(lookups[1]!.base);
    expect(lookups[0]!.score).toBeGreaterThan(lookups[1]!.score);
    // A query about no server in particular leaves the tie to the name.
    expect(ix.rank("lookup").map((r) => r.serverId)).toEqual(["a", "b"]);
    // With b's weather tools replaced by a's other tool, the servers read the same: a tie again.
    ix.setServer("b", items("b", [lookup, tool("translate", "Translate a sentence to another language.")]));
    expect(ix.rank("lookup the weather").map((r) => r.serverId)).toEqual(["a", "b"]);
  });

  it("filters by server and by the caller's rule", () => {
    const ix = index();
    expect(
      ix.search("create", 10, { servers: new Set(["memory"]) }).every((r) => r.serverId === "memory"),
    ).toBe(true);
    expect(
      ix.search("create", 10, { keep: (i) => i !== "create_directory" }).map((r) => r.item),
    ).not.toContain("create_directory");
  });
});

describe("fairShare", () => {
  it("takes the same results as the quadratic scan it replaced, over random rankings", () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let differentFromPlainTop = 0;
    for (let run = 0; run < 2_000; run++) {
      const servers = 1 + Math.floor(random() * 5);
      const n = Math.floor(random() * 60);
      const ranked = Array.from({ length: n }, (_, i) => ({
        name: `t${i}`,
        serverId: `s${Math.floor(random() ** 2 * servers)}`,
        score: Math.round(random() * 40) / 4 + 0.25,
      })).sort((a, b) => b.score - a.score);
      const limit = 1 + Math.floor(random() * 12);
      const got = fairShare(ranked, limit).map((r) => r.name);
      expect(got).toEqual(fairShareQuadratic(ranked, limit, COMPETITIVE).map((r) => r.name));
      if (
        got.join() !==
        ranked
          .slice(0, limit)
          .map((r) => r.name)
          .join()
      )
        differentFromPlainTop++;
    }
    // The cases exercise the share (not only rankings where the top `limit` pass untouched).
    expect(differentFromPlainTop).toBeGreaterThan(200);
  });
});
