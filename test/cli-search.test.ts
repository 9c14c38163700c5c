// `conduit-mcp search "query" --config FILE`: the ranked tools of every server in an mcpServers
// file (server-filesystem and server-everything from npm), with server and score; --json; and
// over one server. Runs the built CLI (`npm run build` first).
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, parseJson, runCli } from "./support/cli.js";
import { EVERYTHING_SERVER, FILESYSTEM_SERVER } from "./support/index.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "cli-search-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let file: string;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
  file = join(dir, "mcp.json");
  const servers = {
    fs: { command: process.execPath, args: [FILESYSTEM_SERVER, dir] },
    everything: { command: process.execPath, args: [EVERYTHING_SERVER, "stdio"] },
  };
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
});

describe("conduit-mcp search", () => {
  it("prints the ranked tools with their score, the best first", async () => {
    const run = await runCli(["search", "make a folder for the reports", "--config", file]);
    expect(run.code).toBe(0);
    const first = run.stdout.split("\n")[0]!;
    expect(first).toMatch(/^ *\d+\.\d\d {2}mcp__fs__create_directory +\S/);
    expect(run.stderr).toMatch(/the whole tool list costs about \d+ tokens, \d+ with tool search/);
  }, 30_000);

  it("--json: results with server, score and tool; the manifest's tokens", async () => {
    const doc = parseJson(await runCli(["search", "add two numbers", "-c", file, "--json"]));
    expect(doc.results[0]).toMatchObject({ name: "mcp__everything__get-sum", serverId: "everything" });
    expect(doc.results[0].score).toBeGreaterThan(0);
    expect(doc.results[0].tool.serverId).toBeUndefined();
    expect(doc.manifestTokens.full).toBeGreaterThan(doc.manifestTokens.deferred * 5);
    expect(doc.manifestTokens.deferred).toBeGreaterThan(50);
  }, 30_000);

  it("over one server; a missing query is a usage error", async () => {
    const doc = parseJson(
      await runCli([
        "search",
        "list the directory",
        "--json",
        "--",
        process.execPath,
        FILESYSTEM_SERVER,
        dir,
      ]),
    );
    expect(doc.results[0].name).toMatch(/^list_directory/);
    expect((await runCli(["search", "-c", file])).code).not.toBe(0);
  }, 30_000);
});
