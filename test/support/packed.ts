/**
 * The package as a consumer gets it: `npm pack` of this checkout, installed into an empty project
 * of its own. Offline: the runtime dependencies are packed from this checkout's node_modules and
 * installed beside it, so no registry is asked. Needs `npm run build` first (packing does not
 * build: that is `npm test`'s own step before vitest).
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { root } from "./cli.js";

const run = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

export interface Installed {
  /** The consumer project's folder. */
  project: string;
  /** `node_modules/conduit-mcp` in it. */
  installed: string;
  /** The paths the tarball holds, relative to the package's root. */
  packedFiles: string[];
  /** What `npm install` printed. */
  installLog: string;
}

/** `npm pack` of a folder into `work`; returns the tarball's path and the files it holds. */
async function pack(work: string, folder: string): Promise<{ tarball: string; files: string[] }> {
  const { stdout } = await run(
    npm,
    ["pack", "--json", "--ignore-scripts", "--pack-destination", work, folder],
    {
      cwd: root,
    },
  );
  const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(work, info!.filename), files: info!.files.map((f) => f.path) };
}

/** Packs this package and installs it into `<work>/project`, whose package.json is `manifest`. */
export async function installPacked(work: string, manifest: Record<string, unknown>): Promise<Installed> {
  const own = await pack(work, root);
  const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const deps = await Promise.all(
    Object.keys(dependencies).map(
      async (name) => (await pack(work, join(root, "node_modules", name))).tarball,
    ),
  );
  const project = join(work, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  const { stdout, stderr } = await run(
    npm,
    ["install", "--offline", "--no-audit", "--no-fund", own.tarball, ...deps],
    { cwd: project },
  );
  return {
    project,
    installed: join(project, "node_modules", "conduit-mcp"),
    packedFiles: own.files,
    installLog: stdout + stderr,
  };
}
