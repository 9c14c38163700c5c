// Bundles the JavaScript that tsc emitted into dist/ so that an import resolves a few files
// instead of about a hundred: the module loader's per-file work (resolve, stat, read, compile,
// link) was most of the import time, the modules' own top-level code almost none of it.
//
// tsc stays the compiler: it emits dist/**/*.js and the .d.ts tree (the types the package
// ships, unchanged). This step rebuilds the public entry points from that JavaScript (same
// paths: dist/index.js, dist/cli/main.js, the subpaths' files such as dist/testing/index.js and
// dist/adapters/*.js; ENTRIES below), code shared between them and the parts loaded on first use
// (`import()`) as chunks in dist/chunks/, then removes the per-module .js files, so nothing is
// shipped twice.
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { rolldown } from "rolldown";

const dist = fileURLToPath(new URL("../dist", import.meta.url));
const staging = fileURLToPath(new URL("../dist-bundle", import.meta.url));

/**
 * The files that are loaded by path: the package's exports, the program, and the fake server's
 * entry that `fakeServerCommand()` starts beside the testing module.
 */
export const ENTRIES = [
  "index",
  "cli/main",
  "governance/index",
  "telemetry/index",
  "transport/http/public",
  "testing/index",
  "testing/fake-server-entry",
  "adapters/openai",
  "adapters/anthropic",
  "adapters/ai-sdk",
  "adapters/tool-search",
  "redis/index",
  "serve/index",
];

function walk(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}

rmSync(staging, { recursive: true, force: true });
const bundle = await rolldown({
  input: Object.fromEntries(ENTRIES.map((e) => [e, join(dist, `${e}.js`)])),
  platform: "node",
  // Dependencies stay in node_modules (and optional ones stay optional): only our own modules
  // are bundled.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0"),
  // The entries keep their exports exactly as written.
  preserveEntrySignatures: "strict",
  treeshake: true,
  logLevel: "warn",
});
await bundle.write({
  dir: staging,
  format: "esm",
  entryFileNames: "[name].js",
  // Few chunks: each file costs the loader about as much as compiling 40 KB. The code the entries
  // load at once is grouped by the set of entries that use it, so importing "conduit-mcp" loads
  // five files (four before the governance, telemetry and http subpaths: the code the root shares
  // with one of them is a chunk of its own) and an adapter does not load the client. The optional
  // parts (redis, serve, inspect) stay out of the shared groups: merged into one, their imports
  // (node:crypto, node:stream) reached the telemetry and http subpaths.
  codeSplitting: {
    groups: [
      {
        name: "core",
        tags: ["$initial"],
        entriesAware: true,
        entriesAwareMergeThreshold: 20_000,
        test: (id) => !/[\\/](cli|adapters|testing|redis|serve|inspect)[\\/]/.test(id),
      },
    ],
  },
  // A group's chunk is named after the entries sharing it ("core~index~cli/main~..."): too long.
  chunkFileNames: (chunk) =>
    chunk.name.startsWith("core~") ? "chunks/core-[hash].js" : "chunks/[name]-[hash].js",
  // Readable output: stack traces and a reader of dist/ see the names the sources use.
  minify: false,
  sourcemap: false,
});
await bundle.close();

for (const file of walk(dist)) if (file.endsWith(".js")) rmSync(file);
for (const file of walk(staging)) {
  const target = join(dist, relative(staging, file));
  mkdirSync(dirname(target), { recursive: true });
  renameSync(file, target);
}
rmSync(staging, { recursive: true, force: true });

// The inspector's page (plain HTML, a few ES modules, CSS: no build of its own; every file of the folder) is served from the
// package: copied after the bundling above, which removes dist's per-module .js files.
const inspectAssets = fileURLToPath(new URL("../src/inspect/assets", import.meta.url));
mkdirSync(join(dist, "inspect/assets"), { recursive: true });
for (const name of readdirSync(inspectAssets))
  copyFileSync(join(inspectAssets, name), join(dist, "inspect/assets", name));
