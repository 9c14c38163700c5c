/**
 * Reading `src/`'s own imports, for the tests that check its shape (import-cycles.test.ts). A
 * plain text scan: every relative module named by `import … from`, `import type … from`,
 * `export … from`, a bare `import "./x.js"` or a dynamic `import("./x.js")` with a string, so
 * type-only imports count like the others (a cycle through a type is still a cycle to a reader).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const SRC = resolve(import.meta.dirname, "../../src");

/** Every `.ts` file under `dir`, as absolute paths. */
export function sourceFiles(dir: string = SRC, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sourceFiles(path, out);
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** A path relative to src/, with forward slashes (`client/client.ts`). */
export function srcPath(file: string): string {
  return relative(SRC, file).split("\\").join("/");
}

// Comments go first so a sentence that quotes an import (`see import("./x.js")`) is not one. A
// string holding `//` or `/*` (a URL) is kept whole by matching strings before comments.
const COMMENT_OR_STRING =
  /("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(["'])(\.{1,2}\/[^"']+)\1/gm;

/** The relative modules `text` (a file at `file`) names, as paths relative to src/. */
export function importsIn(file: string, text: string): string[] {
  const code = text.replace(COMMENT_OR_STRING, (_whole, str: string | undefined) => str ?? "");
  const found: string[] = [];
  for (const m of code.matchAll(IMPORT)) {
    const spec = m[2];
    if (spec === undefined) continue;
    found.push(srcPath(resolve(dirname(file), spec).replace(/\.js$/, ".ts")));
  }
  return found;
}

/** The relative modules a file under src/ names, as paths relative to src/. */
export function importsOf(file: string): string[] {
  return importsIn(file, readFileSync(file, "utf8"));
}

/** The file graph of src/: each file (relative to src/) and the src/ files it imports. */
export function importGraph(files: string[] = sourceFiles()): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) graph.set(srcPath(file), [...new Set(importsOf(file))]);
  return graph;
}
