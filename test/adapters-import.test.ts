// The adapters are optional parts: importing "conduit-mcp" loads none of them and no model SDK,
// and an adapter loads its SDK (and the schema validator) only when it needs it. Runs the built
// package (`npm run build` first, as `npm test` does) in a child process that records every
// module it resolves.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const PROBE = fileURLToPath(new URL("./fixtures/import-probe.mjs", import.meta.url));
const root = fileURLToPath(new URL("..", import.meta.url));

async function modulesLoadedBy(specifier: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE, specifier], { cwd: root });
  return (JSON.parse(stdout) as string[]).map((url) => url.replace(`file://${root}`, ""));
}

// The core does load src/schema/validator.ts (output schemas); that module loads its library lazily.
const OPTIONAL = /^dist\/adapters\/|node_modules\/(openai|ai|@ai-sdk|@anthropic-ai|@cfworker)\//;

describe("import cost", () => {
  it('"conduit-mcp" loads no adapter, no model SDK and no schema library', async () => {
    const loaded = await modulesLoadedBy("conduit-mcp");
    expect(loaded).toContain("dist/index.js");
    expect(loaded.filter((m) => OPTIONAL.test(m))).toEqual([]);
  });

  it('"conduit-mcp/openai" and "conduit-mcp/anthropic" load their adapter, no SDK and no validator yet', async () => {
    for (const sub of ["openai", "anthropic"]) {
      const loaded = await modulesLoadedBy(`conduit-mcp/${sub}`);
      expect(loaded).toContain(`dist/adapters/${sub}.js`);
      expect(
        loaded.filter((m) => /node_modules\/(openai|ai|@ai-sdk|@anthropic-ai|@cfworker)\//.test(m)),
      ).toEqual([]);
    }
  });

  it('"conduit-mcp/ai-sdk" loads its adapter and no SDK yet: the first aiSdkTools() loads `ai`', async () => {
    const loaded = await modulesLoadedBy("conduit-mcp/ai-sdk");
    expect(loaded).toContain("dist/adapters/ai-sdk.js");
    expect(
      loaded.filter((m) => /node_modules\/(openai|ai|@ai-sdk|@anthropic-ai|@cfworker)\//.test(m)),
    ).toEqual([]);
  });
});
