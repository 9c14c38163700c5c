/**
 * Every code block of the README and docs/*.md, run as a reader runs it: in a fresh ES module
 * project that installed the packed tarball (test/support/packed.ts), not this repository, under a
 * minimal environment (PATH, HOME, TMPDIR), and each must end by itself.
 *
 * - A `ts` block is a program: type-checked under `--strict` with `nodenext` as an ES module and
 *   as CommonJS (its statements wrapped in an async function there), then run. A `text` block
 *   right after it is what it prints; timings are the one thing allowed to differ.
 * - A `sh` block is commands, run with `sh -e` in the project (exit 0).
 * - Any other block, or one that is not to be run, says why just before it:
 *   `<!-- docs-test: skip (why) -->`; `<!-- docs-test: repository -->` runs a `sh` block at the
 *   repository's root instead (after `npm run build`, as its text says).
 * - A block that needs a file of its own says so in a comment, `// Needs server.mjs beside it`,
 *   and gets exactly that file (FILES below, or a block of the same guide whose first line is
 *   `// server.mjs`). A placeholder is only where a comment says `// Placeholder /srv: ...`, and
 *   the comment says what the test puts there.
 * - A block that needs a model API reads `OPENAI_BASE_URL` (said in the block); it gets a
 *   scripted stand-in on 127.0.0.1.
 *
 * Needs `npm run build` first.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, normalize } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root } from "./support/cli.js";
import { OAuthServer } from "./support/oauth-server.js";
import { installPacked } from "./support/packed.js";

const run = promisify(execFile);

/** The files a block may ask for by name, and the repository's servers they are. */
const FILES: Record<string, string> = {
  "server.mjs": "test/fixtures/official-server.mjs",
  "scripted-server.mjs": "test/fixtures/scripted-server.mjs",
  "notify-server.mjs": "test/fixtures/notify-server.mjs",
  "input-server.mjs": "test/fixtures/input-official-server.mjs",
  "task-server.mjs": "test/fixtures/task-server.mjs",
  "mcp.json": "test/fixtures/configs/docs-mcp.json",
};

/** What the `Placeholder /srv...` directories hold. */
const DIRECTORY_FILES: Record<string, string> = {
  "todo.txt": "1. water the plants\n2. call the plumber\n",
  "a.txt": "hello\n",
};

/** Packages a block imports or starts (`npx -y`) besides conduit-mcp, linked from node_modules. */
const READER_PACKAGES = [
  "@modelcontextprotocol/server",
  "@modelcontextprotocol/server-everything",
  "@modelcontextprotocol/server-filesystem",
  "@opentelemetry/api",
  "@opentelemetry/context-async-hooks",
  "@opentelemetry/sdk-trace-base",
  "@types/node",
  "openai",
  "zod",
];

/**
 * A block still running this long after its last output has hung. Generous: CI machines are
 * shared. Before its first output a block may be starting servers (`npx -y` on a loaded machine),
 * so silence from the start is a hang only after SILENT_START_LIMIT_MS.
 */
const QUIET_LIMIT_MS = 15_000;
const SILENT_START_LIMIT_MS = 90_000;

const SHIPPED_DOCS = [
  "README.md",
  ...readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

interface Block {
  /** `docs/client.md:7`. */
  where: string;
  guide: string;
  line: number;
  lang: string;
  code: string;
  /** The `docs-test:` label just before it, if any. */
  label: string | null;
}

function blocksOf(guide: string): Block[] {
  const text = readFileSync(join(root, guide), "utf8");
  return [...text.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].map((m) => {
    const line = text.slice(0, m.index).split("\n").length;
    const before = text.slice(0, m.index).trimEnd().split("\n").at(-1) ?? "";
    return {
      where: `${guide}:${line}`,
      guide,
      line,
      lang: m[1]!,
      code: m[2]!,
      label: /^<!-- docs-test: (.*) -->$/.exec(before)?.[1]?.trim() ?? null,
    };
  });
}

type Kind =
  | { kind: "program"; expected: string | null }
  | { kind: "file"; name: string }
  | { kind: "output" }
  | { kind: "commands"; cwd: "project" | "repository" }
  | { kind: "skipped"; why: string }
  | { kind: "unlabelled" };

function kindOf(block: Block, next: Block | undefined): Kind {
  const skip = block.label && /^skip \((.+)\)$/.exec(block.label);
  if (skip) return { kind: "skipped", why: skip[1]! };
  if (block.label === "repository" && block.lang === "sh") return { kind: "commands", cwd: "repository" };
  if (block.label !== null) return { kind: "unlabelled" };
  const file = /^\/\/ ([\w.-]+\.mjs)\n/.exec(block.code);
  if (block.lang === "ts" && file) return { kind: "file", name: file[1]! };
  if (block.lang === "ts") {
    const output = next?.lang === "text" && next.label === null;
    return { kind: "program", expected: output ? next.code : null };
  }
  if (block.lang === "sh") return { kind: "commands", cwd: "project" };
  return { kind: "unlabelled" };
}

function classify(blocks: Block[]): Map<Block, Kind> {
  const kinds = new Map<Block, Kind>();
  for (const [i, block] of blocks.entries()) {
    if (kinds.has(block)) continue;
    const next = blocks[i + 1];
    const kind = kindOf(block, next?.guide === block.guide ? next : undefined);
    kinds.set(block, kind);
    if (kind.kind === "program" && kind.expected !== null) kinds.set(next!, { kind: "output" });
  }
  return kinds;
}

const blocks = SHIPPED_DOCS.flatMap(blocksOf);
const kinds = classify(blocks);
const programs = blocks.filter((b) => kinds.get(b)?.kind === "program");
const idOf = (b: Block) => b.where.replace(/[/:.]/g, "-");

/** What may differ between runs: how long things took. */
function normalised(output: string): string {
  return output.replace(/(\bduration"?:\s*)\d+/g, "$1<ms>").replace(/~\d+ ms\b/g, "~<ms> ms");
}

/** The `// Needs X beside it` files of a block. */
const needs = (code: string) =>
  [...code.matchAll(/^\s*\/\/ Needs ([\w.-]+) beside it\b/gm)].map((m) => m[1]!);
/** The `// Placeholder P: ...` strings of a block. */
const placeholders = (code: string) => [...code.matchAll(/^\s*\/\/ Placeholder (\S+):/gm)].map((m) => m[1]!);

/** The block as the CommonJS check sees it: imports first, the rest inside an async function. */
function asCommonJs(code: string): string {
  if (/^export /m.test(code)) return code;
  const imports: string[] = [];
  const rest = code.replace(/^import [\s\S]*?from "[^"]+";\n|^import "[^"]+";\n/gm, (statement) => {
    imports.push(statement);
    return "";
  });
  return `${imports.join("")}export async function main(): Promise<void> {\n${rest}\n}\n`;
}

let work: string;
let project: string;
let packedFiles: string[];
let typeErrors = "";
let model: Server;
/** The `Placeholder https://...` URL: the repository's official HTTP server, both eras. */
let httpServer: ChildProcess | undefined;
let httpServerUrl = "";
/** The `Placeholder https://protected.example.com/mcp` URL: a scripted OAuth-protected server. */
let oauthServer: OAuthServer | undefined;
/** The URLs a block may leave to the test. */
const placeholderUrls = (): Record<string, string> => ({
  "https://mcp.example.com/mcp": httpServerUrl,
  "https://protected.example.com/mcp": oauthServer?.url ?? "",
});
const setupErrors = new Map<Block, string>();

/** A scripted stand-in for the OpenAI chat completions API: one tool call, then an answer. */
function startModel(): Promise<Server> {
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const { messages = [], tools = [] } = JSON.parse(body || "{}") as {
      messages?: Array<{ role: string; content: unknown }>;
      tools?: Array<{ function: { name: string } }>;
    };
    const last = messages.at(-1);
    const asked = String(messages.find((m) => m.role === "user")?.content ?? "");
    const path = /\/\S+\.txt/.exec(asked)?.[0] ?? "";
    const message =
      last?.role === "tool" || !tools.some((t) => t.function.name === "read_text_file")
        ? { role: "assistant", content: `The file says: ${String(last?.content ?? "")}` }
        : {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "read_text_file", arguments: JSON.stringify({ path }) },
              },
            ],
          };
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: "chatcmpl-docs",
        object: "chat.completion",
        created: 0,
        model: "scripted",
        choices: [{ index: 0, message, finish_reason: message.content === null ? "tool_calls" : "stop" }],
      }),
    );
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Prepares one block's folder: its code with placeholders filled, and the files it needs. */
function prepare(block: Block, guideBlocks: Block[]): void {
  const dir = join(project, "blocks", idOf(block));
  mkdirSync(dir, { recursive: true });
  let code = block.code;
  for (const placeholder of placeholders(block.code)) {
    const url = placeholderUrls()[placeholder];
    if (url) {
      code = code.replaceAll(placeholder, url);
      continue;
    }
    if (!placeholder.startsWith("/")) {
      setupErrors.set(block, `no substitution for the placeholder ${placeholder}`);
      continue;
    }
    const folder = mkdtempSync(join(work, "dir-"));
    for (const [name, text] of Object.entries(DIRECTORY_FILES)) writeFileSync(join(folder, name), text);
    code = code.replaceAll(placeholder, folder);
  }
  for (const name of needs(block.code)) {
    const own = guideBlocks.find((b) => {
      const kind = kinds.get(b);
      return kind?.kind === "file" && kind.name === name;
    });
    if (own) writeFileSync(join(dir, name), own.code);
    else if (FILES[name]) symlinkSync(join(root, FILES[name]), join(dir, name));
    else setupErrors.set(block, `needs ${name}, which the test does not know`);
  }
  writeFileSync(join(dir, "main.ts"), code);
  const cjs = join(project, "cjs", "blocks", idOf(block));
  mkdirSync(cjs, { recursive: true });
  writeFileSync(join(cjs, "main.ts"), asCommonJs(code));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "conduit-mcp-docs-"));
  ({ project, packedFiles } = await installPacked(work, {
    name: "reader",
    version: "1.0.0",
    private: true,
    type: "module",
  }));
  // The packages a reader would install beside it, and the programs `npx -y` finds locally.
  for (const name of READER_PACKAGES) {
    const target = join(project, "node_modules", name);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(root, "node_modules", name), target);
    const { bin } = JSON.parse(readFileSync(join(target, "package.json"), "utf8")) as {
      bin?: string | Record<string, string>;
    };
    for (const [command, file] of Object.entries(typeof bin === "string" ? { [name]: bin } : (bin ?? {}))) {
      mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
      symlinkSync(join(target, file), join(project, "node_modules", ".bin", command));
    }
  }
  oauthServer = await new OAuthServer().start();
  httpServer = spawn(process.execPath, [join(root, "test/fixtures/http-official-server.mjs"), "dual", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [listening] = (await once(httpServer.stdout!, "data")) as [Buffer];
  httpServerUrl = `http://127.0.0.1:${/LISTENING (\d+)/.exec(String(listening))![1]}/mcp`;
  for (const block of programs)
    prepare(
      block,
      blocks.filter((b) => b.guide === block.guide),
    );
  const compilerOptions = {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2024", "ESNext.Disposable"],
    types: ["node"],
    strict: true,
    skipLibCheck: true,
  };
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["blocks"] }));
  writeFileSync(join(project, "cjs", "package.json"), '{ "type": "commonjs" }\n');
  writeFileSync(
    join(project, "cjs", "tsconfig.json"),
    JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, include: ["blocks"] }),
  );
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  // tsc exits non-zero on a type error but still emits: each block's errors are its test's.
  const check = (dir: string) =>
    run(process.execPath, [tsc, "-p", dir, "--pretty", "false"], { cwd: project }).then(
      () => "",
      (err: { stdout?: string }) => err.stdout ?? String(err),
    );
  typeErrors = (await Promise.all([check("."), check("cjs")])).join("\n");
  model = await startModel();
}, 240_000);

afterAll(() => {
  model?.close();
  httpServer?.kill();
  void oauthServer?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed for being still at work QUIET_LIMIT_MS after its last output (see above). */
  hung: boolean;
}

/** Runs a command to its end; kills its process group if it goes quiet without ending. */
function runUntilQuiet(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const started = Date.now();
    let last: number | null = null;
    let hung = false;
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      last = Date.now();
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
      last = Date.now();
    });
    const watchdog = setInterval(() => {
      const silent =
        last === null ? Date.now() - started >= SILENT_START_LIMIT_MS : Date.now() - last >= QUIET_LIMIT_MS;
      if (!silent) return;
      hung = true;
      clearInterval(watchdog);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {}
    }, 250);
    child.on("close", (code) => {
      clearInterval(watchdog);
      resolve({ code, stdout, stderr, hung });
    });
  });
}

function readerEnv(code: string): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  if (code.includes("OPENAI_BASE_URL")) {
    env.OPENAI_BASE_URL = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    env.OPENAI_API_KEY = "docs-test";
  }
  return env;
}

describe("the shipped docs", () => {
  it("label every block that is neither a program, its output, nor commands", () => {
    const unlabelled = blocks.filter((b) => kinds.get(b)?.kind === "unlabelled").map((b) => b.where);
    expect(unlabelled, "blocks without a `<!-- docs-test: ... -->` label").toEqual([]);
    expect(programs.length).toBeGreaterThan(40);
  });

  it("link only to files the package holds", () => {
    const broken: string[] = [];
    for (const guide of SHIPPED_DOCS) {
      const text = readFileSync(join(root, guide), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target!) || target!.startsWith("#")) continue;
        const path = normalize(join(dirname(guide), target!.replace(/#.*$/, "")));
        if (!packedFiles.includes(path)) broken.push(`${guide} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe.concurrent("the shipped docs' blocks, run", () => {
  for (const block of programs) {
    const { expected } = kinds.get(block) as { expected: string | null };
    it(`${block.where} ${expected === null ? "runs and ends" : "prints what the guide shows"}`, async () => {
      expect(setupErrors.get(block) ?? null).toBeNull();
      const id = idOf(block);
      const errors = typeErrors
        .split("\n")
        .filter((l) => l.startsWith(`blocks/${id}/`) || l.startsWith(`cjs/blocks/${id}/`));
      expect(errors, "type errors (ESM, then CommonJS)").toEqual([]);
      const dir = join(project, "blocks", id);
      const ran = await runUntilQuiet(process.execPath, [join(dir, "main.js")], dir, readerEnv(block.code));
      expect(
        ran.hung,
        `still running ${QUIET_LIMIT_MS} ms after its last output:\n${ran.stdout}\n${ran.stderr}`,
      ).toBe(false);
      expect(ran.code, ran.stderr).toBe(0);
      if (expected !== null) expect(normalised(ran.stdout)).toBe(normalised(expected));
    }, 120_000);
  }

  for (const block of blocks.filter((b) => kinds.get(b)?.kind === "commands")) {
    const { cwd } = kinds.get(block) as { cwd: "project" | "repository" };
    it(`${block.where} runs (sh, in the ${cwd})`, async () => {
      const ran = await runUntilQuiet("sh", ["-e", "-c", block.code], cwd === "project" ? project : root, {
        ...readerEnv(block.code),
      });
      expect(
        ran.hung,
        `still running ${QUIET_LIMIT_MS} ms after its last output:\n${ran.stdout}\n${ran.stderr}`,
      ).toBe(false);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    }, 120_000);
  }
});
