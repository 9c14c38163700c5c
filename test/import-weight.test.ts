// What importing the core entry loads (issue 12: "the core's import time must not grow"). Not a
// timed test: it lists what is loaded. Each dependency is loaded where it is first used (undici
// and eventsource-parser by the HTTP transport, ipaddr.js by `publicOnly`, jose and oauth4webapi
// by OAuth, @cfworker/json-schema by a schema check, @opentelemetry/api when enabled, jsonc-parser
// by a config file); Node's heavier modules only on the paths that need them; and dist/ is bundled,
// so the loader resolves a handful of files instead of one per source module. Runs the built
// package (`npm run build` first, as `npm test` does) in fresh processes.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const PROBE = fileURLToPath(new URL("./fixtures/import-probe.mjs", import.meta.url));
const root = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** Every module URL resolved while importing `specifier` (ESM, through loader hooks). */
async function resolvedBy(specifier: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, [PROBE, specifier], { cwd: root });
  return (JSON.parse(stdout) as string[]).map((url) => url.replace(`file://${root}`, ""));
}

/**
 * Runs `code` after `await import(specifier)` (bound to `m`) in a fresh node, and lists the
 * Node modules loaded since just before the import (`process.moduleLoadList`, which also sees
 * `process.getBuiltinModule`) and every CommonJS module in the require cache (`createRequire`).
 */
async function loadedBy(
  code = "",
  specifier = "conduit-mcp",
): Promise<{ builtins: string[]; cjs: string[] }> {
  const script = `
    import { createRequire } from "node:module";
    const before = new Set(process.moduleLoadList);
    const m = await import(${JSON.stringify(specifier)});
    ${code}
    const builtins = process.moduleLoadList
      .filter((x) => !before.has(x) && x.startsWith("NativeModule "))
      .map((x) => x.slice("NativeModule ".length));
    console.log(JSON.stringify({ builtins, cjs: Object.keys(createRequire(import.meta.url).cache) }));
  `;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: root });
  return JSON.parse(stdout) as { builtins: string[]; cjs: string[] };
}

/** Node modules a core import must not load: each costs milliseconds and only some paths need it. */
const HEAVY_BUILTINS = /^(crypto|child_process|net|dgram|dns|dns\/promises|zlib|stream|tls|http|https)$/;

describe("the core entry's import weight", () => {
  it('"conduit-mcp" loads no dependency, and a few bundled files of its own', async () => {
    const loaded = await resolvedBy("conduit-mcp");
    expect(loaded).toContain("dist/index.js");
    // No package at all: jose, oauth4webapi, @cfworker/json-schema, @opentelemetry, undici, ...
    expect(loaded.filter((m) => m.includes("node_modules/"))).toEqual([]);
    const own = new Set(loaded.filter((m) => m.startsWith("dist/")));
    // 5 today; ~116 unbundled. A generous bound: it fails when the bundling is lost.
    expect(own.size).toBeLessThanOrEqual(16);
    expect(loaded.filter((m) => /^node:/.test(m) && HEAVY_BUILTINS.test(m.slice(5)))).toEqual([]);
  });

  it('"conduit-mcp" loads none of node:crypto, child_process, net, dns, zlib or stream, and no CommonJS package', async () => {
    const { builtins, cjs } = await loadedBy();
    expect(builtins.filter((b) => HEAVY_BUILTINS.test(b))).toEqual([]);
    expect(cjs.filter((f) => f.includes("node_modules"))).toEqual([]);
  });

  it("the check can fail: a hashed qualified name loads node:crypto, a commented config jsonc-parser", async () => {
    const { builtins, cjs } = await loadedBy(`
      m.qualifyToolName("s".repeat(80), "t");
      const { mkdtempSync, rmSync, writeFileSync } = await import("node:fs");
      const dir = mkdtempSync((await import("node:os")).tmpdir() + "/conduit-weight-");
      writeFileSync(dir + "/mcp.json", '{ // a comment: not plain JSON\\n "mcpServers": { "a": { "command": "node" } } }');
      try { m.loadServersConfig(dir + "/mcp.json"); } finally { rmSync(dir, { recursive: true }); }
    `);
    expect(builtins).toContain("crypto");
    expect(cjs.some((f) => f.includes("node_modules/jsonc-parser/"))).toBe(true);
  });
});

/** The subpaths an application adds beside the root, and the file each one's import starts at. */
const SUBPATHS = [
  ["conduit-mcp/governance", "dist/governance/index.js"],
  ["conduit-mcp/telemetry", "dist/telemetry/index.js"],
  ["conduit-mcp/http", "dist/transport/http/public.js"],
] as const;

describe("the subpaths' import weight", () => {
  it.each(SUBPATHS)(
    "%s loads no dependency, no heavy Node module and a few bundled files",
    async (specifier, entry) => {
      const loaded = await resolvedBy(specifier);
      expect(loaded).toContain(entry);
      expect(loaded.filter((m) => m.includes("node_modules/"))).toEqual([]);
      // Its entry and the core chunks it shares with the root: 3 or 4 today.
      expect(new Set(loaded.filter((m) => m.startsWith("dist/"))).size).toBeLessThanOrEqual(8);
      // Nothing of the CLI, the adapters or the testing kit comes with it.
      expect(loaded.filter((m) => /^dist\/(cli|adapters|testing)\//.test(m))).toEqual([]);
      const { builtins, cjs } = await loadedBy("", specifier);
      expect(builtins.filter((b) => HEAVY_BUILTINS.test(b))).toEqual([]);
      expect(cjs.filter((f) => f.includes("node_modules"))).toEqual([]);
    },
  );
});
