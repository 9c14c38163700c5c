/**
 * Hostile configuration files given to the built CLI (`--config`) and to `loadServersConfig`:
 * a path that is a FIFO, a symlink to /dev/zero (git stores symlinks: a repository's
 * `.cursor/mcp.json` can be one), and a server named twice. Each is a usage error (exit 2) naming
 * the file, within seconds; none hangs, none silently drops a server.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadServersConfig } from "../src/index.js";
import { CLI, root } from "./support/cli.js";

const OFFICIAL = fileURLToPath(new URL("./fixtures/official-server.mjs", import.meta.url));
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "conduit-hostile-config-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The CLI run to its end, or killed (SIGINT at 5 s, SIGKILL at 10 s): a hang is a result, not a test timeout. */
function run(args: string[]): Promise<{ code: number | null; stderr: string; killed: boolean; ms: number }> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let killed = false;
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const int = setTimeout(() => child.kill("SIGINT"), 5_000);
    const kill = setTimeout(() => {
      killed = true;
      child.kill("SIGKILL");
    }, 10_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(int);
      clearTimeout(kill);
      resolve({ code, stderr, killed, ms: Date.now() - t0 });
    });
  });
}

it("a FIFO as the config file is refused at once (it held the thread: no signal could stop it)", async () => {
  const fifo = join(dir, "mcp.json");
  execFileSync("mkfifo", [fifo]);
  const r = await run(["tools", "--config", fifo]);
  // Before: open() blocked the main thread waiting for a writer; SIGINT and SIGTERM went unheard.
  expect(r.killed).toBe(false);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("is not a regular file");
  expect(r.ms).toBeLessThan(5_000);
}, 20_000);

it("a symlink to /dev/zero is refused (it was read until memory ran out)", async () => {
  const link = join(dir, "zero.json");
  symlinkSync("/dev/zero", link);
  const r = await run(["tools", "--config", link]);
  expect(r.killed).toBe(false);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("is not a regular file");
  expect(() => loadServersConfig(link)).toThrow(/is not a regular file/);
}, 20_000);

it("a server named twice is an error, not the second silently replacing the first", async () => {
  const good = JSON.stringify({ command: process.execPath, args: [OFFICIAL] });
  const bad = JSON.stringify({ command: process.execPath, args: ["-e", "process.exit(3)"] });
  const file = join(dir, "twice.json");
  writeFileSync(file, `{ "mcpServers": { "files": ${good}, "files": ${bad} } }`);
  const r = await run(["tools", "--config", file]);
  // Before: exit 3, "files: server down (transport: server_exited)": the second entry ran.
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('the key "files" appears twice in one object');
  // Escaped spellings of one key are one key; JSON with comments (VS Code) is checked too.
  const escaped = join(dir, "escaped.json");
  writeFileSync(escaped, `{ "mcpServers": { "files": ${good}, "\\u0066iles": ${good} } }`);
  expect(() => loadServersConfig(escaped)).toThrow(/"files" appears twice/);
  const jsonc = join(dir, "mcp.jsonc");
  writeFileSync(jsonc, `{ // VS Code\n "servers": { "files": ${good}, "files": ${bad}, } }`);
  expect(() => loadServersConfig(jsonc)).toThrow(/"files" appears twice/);
  // Keys alike in other objects, and strings that look like keys, are fine.
  const fine = join(dir, "fine.json");
  writeFileSync(
    fine,
    JSON.stringify({
      mcpServers: { a: { command: "x", args: ["a", "b:"] }, b: { command: "x", args: ['\\"a":'] } },
    }),
  );
  expect(Object.keys(loadServersConfig(fine))).toEqual(["a", "b"]);
}, 20_000);

it("a --policy file that is a FIFO is refused at once", async () => {
  const fifo = join(dir, "policy.json");
  execFileSync("mkfifo", [fifo]);
  const r = await run(["call", "echo", "{}", "--policy", fifo, "--", process.execPath, OFFICIAL]);
  // Before: the same blocked open() as a FIFO config, signals unheard.
  expect(r.killed).toBe(false);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain("not_a_file");
}, 20_000);

it("arguments nested deeper than 64 levels are a usage error, for call and prompt", async () => {
  const deep = `{"message": "x", "a": ${"[".repeat(20_000)}${"]".repeat(20_000)}}`;
  for (const args of [
    ["call", "echo", deep],
    ["prompt", "greet", deep],
  ]) {
    const r = await run([...args, "--", process.execPath, OFFICIAL]);
    // Before: call exited 3 with "transport: send_failed", prompt 70 with "internal error:
    // Maximum call stack size exceeded".
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the arguments nest deeper than 64 levels");
  }
}, 30_000);
