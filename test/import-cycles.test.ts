/**
 * # No cycles, no long files
 *
 * Every import in `src/` (type imports, re-exports and dynamic `import("…")` included) is an arrow
 * from one file to another. A cycle means neither file can be read, tested or moved without the
 * other, and that the load order of their top-level code is an accident; a cycle between the
 * top-level folders of `src/` means two layers each stand on the other. So there are none, between
 * files or between folders (files directly in `src/` are one node, the entry), and no `src/` file
 * is longer than 450 lines. No allow-list: a new offender fails this test, and the failure names
 * every offender at once, each cycle as a path.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importGraph, importsIn, SRC } from "./support/imports.js";

const MAX_LINES = 450;

type Graph = Map<string, string[]>;

/** The strongly connected components of `graph` with more than one node or a self-loop (Tarjan). */
function tangles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    for (;;) {
      const top = stack.pop()!;
      onStack.delete(top);
      part.push(top);
      if (top === node) break;
    }
    if (part.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(part.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest path from `from` to `to` that stays inside `within`, or undefined. */
function shortestPath(graph: Graph, from: string, to: string, within: Set<string>): string[] | undefined {
  const cameFrom = new Map<string, string>([[from, from]]);
  const queue = [from];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    if (node === to) {
      const path = [to];
      for (let at = to; at !== from; ) {
        at = cameFrom.get(at)!;
        path.unshift(at);
      }
      return path;
    }
    for (const next of graph.get(node) ?? []) {
      if (within.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/**
 * The cycles of `graph`, each as a path `a -> b -> … -> a`: for every arrow inside a tangle, the
 * shortest way back closes one cycle, so every arrow that takes part in a cycle is in one that is
 * reported (enough to see what to cut, without listing every combination of a large tangle).
 */
function findCycles(graph: Graph): string[] {
  const cycles = new Set<string>();
  for (const part of tangles(graph)) {
    const within = new Set(part);
    for (const from of part) {
      for (const to of graph.get(from) ?? []) {
        if (!within.has(to)) continue;
        const back = to === from ? [from] : shortestPath(graph, to, from, within);
        if (back === undefined) continue;
        const loop = to === from ? [from] : [from, ...back.slice(0, -1)];
        // One spelling per cycle: start at its smallest node.
        const start = loop.indexOf([...loop].sort()[0]!);
        const turned = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.add([...turned, turned[0]].join(" -> "));
      }
    }
  }
  return [...cycles].sort();
}

/** The top-level folder of a src/ path; files directly in src/ are the entry. */
function folderOf(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? "entry" : path.slice(0, slash);
}

/** The graph between top-level folders: an arrow wherever one file imports a file of another. */
function folderGraph(files: Graph): Graph {
  const folders = new Map<string, Set<string>>();
  for (const [from, imports] of files) {
    const a = folderOf(from);
    const out = folders.get(a) ?? new Set<string>();
    folders.set(a, out);
    for (const to of imports) if (folderOf(to) !== a) out.add(folderOf(to));
  }
  return new Map([...folders].map(([k, v]) => [k, [...v].sort()]));
}

function lineCount(text: string): number {
  const lines = text.split("\n");
  return text.endsWith("\n") ? lines.length - 1 : lines.length;
}

describe("import cycles: the finder itself", () => {
  it("finds a two-file cycle, a longer loop and a self-import, and nothing in a tree", () => {
    const graph: Graph = new Map([
      ["a.ts", ["b.ts", "d.ts"]],
      ["b.ts", ["a.ts"]],
      ["c.ts", ["d.ts"]],
      ["d.ts", ["e.ts"]],
      ["e.ts", ["f.ts"]],
      ["f.ts", ["d.ts"]],
      ["g.ts", ["g.ts"]],
      ["h.ts", ["a.ts", "c.ts"]],
    ]);
    expect(findCycles(graph)).toEqual([
      "a.ts -> b.ts -> a.ts",
      "d.ts -> e.ts -> f.ts -> d.ts",
      "g.ts -> g.ts",
    ]);
    const tree: Graph = new Map([
      ["a.ts", ["b.ts", "c.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", []],
    ]);
    expect(findCycles(tree)).toEqual([]);
  });

  it("reports every arrow of a tangle in some cycle", () => {
    // a -> b -> c -> a and b -> a: two cycles sharing a and b.
    const graph: Graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "a.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(findCycles(graph)).toEqual(["a.ts -> b.ts -> a.ts", "a.ts -> b.ts -> c.ts -> a.ts"]);
  });

  it("folds files into top-level folders, the files directly in src/ being the entry", () => {
    const files: Graph = new Map([
      ["index.ts", ["client/client.ts"]],
      ["client/client.ts", ["client/parts.ts", "shared/errors.ts"]],
      ["client/parts.ts", []],
      ["shared/errors.ts", ["index.ts"]],
    ]);
    expect(folderGraph(files).get("client")).toEqual(["shared"]);
    expect(findCycles(folderGraph(files))).toEqual(["client -> shared -> entry -> client"]);
  });

  it("reads type imports, re-exports, bare and dynamic imports, not comments", () => {
    const file = join(SRC, "client/x.ts");
    const text = [
      'import type { A } from "./a.js";',
      "import {",
      "  B,",
      '} from "../shared/b.js";',
      'export { C } from "./c.js";',
      'export * from "./d.js";',
      'import "./e.js";',
      'type F = typeof import("./f.js");',
      'const g = () => import("../g.js");',
      '// import("./not-me.js") and from "./nor-me.js"',
      '/* export * from "./nor-this.js"; */',
      'const url = "https://x.test/a//b"; import { H } from "./h.js";',
      'import { I } from "node:fs";',
    ].join("\n");
    expect(importsIn(file, text)).toEqual([
      "client/a.ts",
      "shared/b.ts",
      "client/c.ts",
      "client/d.ts",
      "client/e.ts",
      "client/f.ts",
      "g.ts",
      "client/h.ts",
    ]);
  });
});

describe("import cycles: src/ has none, and no file over 450 lines", () => {
  const graph = importGraph();

  it("reads src/ (a few files the test knows import each other)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("index.ts")?.length).toBeGreaterThan(5);
    expect(graph.get("client/client.ts")).toContain("client/parts.ts");
  });

  it("no cycle between files or between top-level folders, no file over 450 lines", () => {
    const offenders: string[] = [];
    for (const cycle of findCycles(graph)) offenders.push(`file cycle: ${cycle}`);
    for (const cycle of findCycles(folderGraph(graph))) offenders.push(`folder cycle: ${cycle}`);
    for (const path of [...graph.keys()].sort()) {
      const lines = lineCount(readFileSync(join(SRC, path), "utf8"));
      if (lines > MAX_LINES) offenders.push(`long file: src/${path} has ${lines} lines (max ${MAX_LINES})`);
    }
    // One message with every offender, so one run shows all there is to fix.
    expect(offenders, `\n${offenders.join("\n")}\n`).toEqual([]);
  });
});
