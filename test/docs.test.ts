/**
 * The guides' examples, run: every `ts` block in docs/*.md followed by a `text` block is
 * type-checked (strict) and run against the servers it names, and what it prints must be that
 * block. Timings (durations) are the one thing allowed to differ. Needs `npm run build` first:
 * the examples import "conduit-mcp", which resolves to this package's dist/ by its own name.
 */
import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { root } from "./support/cli.js";

const run = promisify(execFile);
/** Inside the package, so the examples' `import "conduit-mcp"` is a self-reference. */
const work = join(root, ".docs-run");
const docs = join(root, "docs");

/** The file names the examples start servers by, and the fixtures they are. */
const SERVERS: Record<string, string> = {
  "server.mjs": "official-server.mjs",
  "scripted-server.mjs": "scripted-server.mjs",
  "notify-server.mjs": "notify-server.mjs",
  "input-server.mjs": "input-official-server.mjs",
  "task-server.mjs": "task-server.mjs",
  "docs-server.mjs": "docs-fake-server.mjs",
};

interface Example {
  id: string;
  guide: string;
  line: number;
  code: string;
  expected: string;
}

function examples(): Example[] {
  const found: Example[] = [];
  for (const guide of readdirSync(docs).filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(docs, guide), "utf8");
    const blocks = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
    blocks.forEach((block, i) => {
      const next = blocks[i + 1];
      if (block[1] !== "ts" || next?.[1] !== "text") return;
      const line = text.slice(0, block.index).split("\n").length;
      found.push({
        id: `${guide.replace(/\.md$/, "")}-${line}`,
        guide,
        line,
        code: block[2]!,
        expected: next[2]!,
      });
    });
  }
  return found;
}

/** What may differ between runs: how long things took. */
function normalised(output: string): string {
  return output.replace(/(\bduration"?:\s*)\d+/g, "$1<ms>").replace(/~\d+ ms\b/g, "~<ms> ms");
}

const all = examples();
let typeErrors = "";

beforeAll(async () => {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  for (const [name, fixture] of Object.entries(SERVERS))
    symlinkSync(join(root, "test/fixtures", fixture), join(work, name));
  for (const e of all) writeFileSync(join(work, `${e.id}.ts`), e.code);
  const compilerOptions = {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2024", "ESNext.Disposable"],
    types: ["node"],
    strict: true,
    skipLibCheck: true,
    rootDir: ".",
    outDir: "js",
  };
  writeFileSync(join(work, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }));
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  // tsc exits non-zero on a type error but still emits: each example's errors are its test's.
  typeErrors = await run(process.execPath, [tsc, "-p", work], { cwd: work }).then(
    () => "",
    (err: { stdout?: string }) => err.stdout ?? String(err),
  );
}, 60_000);

describe.concurrent("the guides' examples", () => {
  it("are there to check", () => {
    expect(all.length).toBeGreaterThan(20);
  });

  for (const e of all) {
    it(`docs/${e.guide}:${e.line} prints what the guide shows`, async () => {
      const errors = typeErrors.split("\n").filter((l) => l.startsWith(`${e.id}.ts`));
      expect(errors, "type errors").toEqual([]);
      const { stdout } = await run(process.execPath, [join(work, "js", `${e.id}.js`)], {
        cwd: work,
        timeout: 30_000,
      });
      expect(normalised(stdout)).toBe(normalised(e.expected));
    });
  }
});
