/**
 * The package as a consumer gets it (test/support/packed.ts: packed, installed offline into an
 * empty CommonJS project), then imported, required and run.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPacked } from "./support/packed.js";

const run = promisify(execFile);

let work: string;
let project: string;
let installed: string;
let packedFiles: string[];
let installLog: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "conduit-mcp-package-"));
  ({ project, installed, packedFiles, installLog } = await installPacked(work, {
    name: "consumer",
    version: "1.0.0",
    private: true,
  }));
}, 180_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("the packed package", () => {
  it("can be required from CommonJS and imported from ESM", async () => {
    const required = await run(
      process.execPath,
      ["-e", 'console.log(typeof require("conduit-mcp").Client)'],
      {
        cwd: project,
      },
    );
    expect(required.stdout.trim()).toBe("function");
    // Every subpath the package exports, too.
    const exported = Object.keys(
      (
        JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
          exports: Record<string, unknown>;
        }
      ).exports,
    ).filter((key) => key !== "./package.json");
    // No optional peer (an SDK) is installed here, and every subpath still loads: a missing peer
    // is reported where it is first needed, never as a failed import.
    for (const key of exported) {
      const name = `conduit-mcp${key.slice(1)}`;
      const got = await run(
        process.execPath,
        ["-e", `console.log(typeof require(${JSON.stringify(name)}))`],
        {
          cwd: project,
        },
      ).catch((err: { stderr?: string }) => ({ stdout: "", stderr: err.stderr ?? String(err) }));
      expect(got.stdout.trim(), `${name}: ${got.stderr.slice(0, 300)}`).toBe("object");
    }
    const imported = await run(
      process.execPath,
      ["--input-type=module", "-e", 'import { Client } from "conduit-mcp"; console.log(typeof Client)'],
      { cwd: project },
    );
    expect(imported.stdout.trim()).toBe("function");
  });

  it("has the conduit-mcp/governance, /telemetry and /http subpaths, with types, each loading from ESM and CommonJS", async () => {
    const { exports } = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      exports: Record<string, { types: string; import: string; require: string }>;
    };
    for (const [key, file] of [
      ["./governance", "dist/governance/index"],
      ["./telemetry", "dist/telemetry/index"],
      ["./http", "dist/transport/http/public"],
    ] as const) {
      expect(exports[key], key).toMatchObject({
        types: `./${file}.d.ts`,
        import: `./${file}.js`,
        require: `./${file}.js`,
      });
      expect(packedFiles, key).toContain(`${file}.js`);
      expect(packedFiles, key).toContain(`${file}.d.ts`);
    }
    // One export of each, used as an application would.
    const script = `
      import { refuse } from "conduit-mcp/governance";
      import { CHANNEL_PREFIX, EVENT_NAMES, subscribe } from "conduit-mcp/telemetry";
      import { encodeHeaderValue } from "conduit-mcp/http";
      import { subscribe as rootSubscribe } from "conduit-mcp";
      console.log(JSON.stringify([
        refuse("no").toJSON().reason,
        CHANNEL_PREFIX,
        EVENT_NAMES.includes("tool_call:stop"),
        subscribe === rootSubscribe,
        encodeHeaderValue("é"),
      ]));
    `;
    const imported = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project });
    expect(JSON.parse(imported.stdout)).toEqual([
      "denied_by_hook",
      "conduit-mcp:",
      true,
      true,
      "=?base64?w6k=?=",
    ]);
    const required = await run(
      process.execPath,
      [
        "-e",
        'console.log(typeof require("conduit-mcp/governance").refuse, require("conduit-mcp/http").encodeHeaderValue("a"))',
      ],
      { cwd: project },
    );
    expect(required.stdout.trim()).toBe("function a");
  });

  it("a missing optional peer is an error naming the package and its install command, where first needed", async () => {
    for (const peer of ["ai", "openai", "@anthropic-ai/sdk", "@opentelemetry/api"]) {
      expect(existsSync(join(project, "node_modules", peer)), peer).toBe(false);
    }
    const script = `
      import { McpClientError, Client } from "conduit-mcp";
      import { aiSdkTools } from "conduit-mcp/ai-sdk";
      import { openaiTools } from "conduit-mcp/openai";
      import { anthropicTools } from "conduit-mcp/anthropic";
      const tools = [{ name: "echo", serverId: "s", inputSchema: { type: "object" } }];
      const show = (e) => JSON.stringify({ is: e instanceof McpClientError, ...e.toJSON() });
      console.log(show(await aiSdkTools(tools).catch((e) => e)));
      try {
        new Client({ name: "t", transport: { type: "stdio", command: "node" }, telemetry: { openTelemetry: true } });
      } catch (e) { console.log(show(e)); }
      // These two build plain objects: no SDK needed at run time.
      console.log((await openaiTools(tools)).length, (await anthropicTools(tools)).length);
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: project });
    const [ai, otel, counts] = stdout.trim().split("\n");
    for (const [line, pkg] of [
      [ai, "ai"],
      [otel, "@opentelemetry/api"],
    ] as const) {
      expect(JSON.parse(line!)).toEqual({
        is: true,
        kind: "unavailable",
        reason: "dependency_missing",
        detail: { package: pkg, install: `npm install ${pkg}` },
        message: `unavailable: dependency_missing package=${pkg} install="npm install ${pkg}"`,
      });
    }
    expect(counts).toBe("1 1");
  });

  it("holds LICENSE, README.md and the built code, and no tests or sources", () => {
    expect(packedFiles).toContain("LICENSE");
    expect(packedFiles).toContain("README.md");
    expect(packedFiles).toContain("dist/index.js");
    expect(packedFiles).toContain("dist/cli/main.js");
    // The inspector's page, served from the package (copied by scripts/bundle.mjs).
    for (const asset of ["index.html", "app.js", "dom.js", "form.js", "result.js", "dialogs.js", "style.css"])
      expect(packedFiles).toContain(`dist/inspect/assets/${asset}`);
    expect(packedFiles.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).toContain("Apache License");
  });

  it("has no source map or map reference that points at a missing file", () => {
    const all = files(installed);
    for (const file of all.filter((f) => /\.(js|d\.ts)$/.test(f))) {
      const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, "utf8"))?.[1];
      if (ref && !ref.startsWith("data:")) expect(existsSync(resolve(dirname(file), ref)), file).toBe(true);
    }
    for (const map of all.filter((f) => f.endsWith(".map"))) {
      const { sources = [], sourceRoot = "" } = JSON.parse(readFileSync(map, "utf8")) as {
        sources?: string[];
        sourceRoot?: string;
      };
      for (const source of sources) {
        expect(existsSync(resolve(dirname(map), sourceRoot, source)), `${map} -> ${source}`).toBe(true);
      }
    }
  });

  it("runs no install script in a consumer's project", () => {
    const scripts =
      (
        JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
          scripts?: Record<string, string>;
        }
      ).scripts ?? {};
    for (const hook of ["preinstall", "install", "postinstall", "prepare"])
      expect(scripts[hook]).toBeUndefined();
    // npm 11 names every package with an install script it did not run; this one is not among them.
    expect(installLog).not.toMatch(/conduit-mcp@/);
  });

  it("installs a working `conduit-mcp` program whose help names nothing it does not ship", async () => {
    const bin = join(project, "node_modules", ".bin", "conduit-mcp");
    const version = await run(bin, ["--version"], { cwd: project });
    expect(version.stdout).toMatch(/^conduit-mcp \d+\.\d+\.\d+/);
    const help = await run(bin, ["--help"], { cwd: project });
    // A file path in an example must be one the package holds.
    for (const [path] of help.stdout.matchAll(/\b[\w./-]+\.(?:mjs|js|ts)\b/g)) {
      expect(packedFiles, `--help names ${path}`).toContain(path);
    }
  });
});
