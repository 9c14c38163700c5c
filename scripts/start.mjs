// `npm start`: a short tour of the command-line tool against the example server. Runs the built
// CLI (dist/, which `npm start` builds first) three times and shows each command line.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
const server = fileURLToPath(new URL("../examples/server.mjs", import.meta.url));

if (!existsSync(cli)) {
  console.error("dist/cli/main.js is missing: run `npm run build` first.");
  process.exit(1);
}

const steps = [["info"], ["tools"], ["call", "add", '{"a":2,"b":3}']];

for (const [index, args] of steps.entries()) {
  const shown = args.map((a) => (/^[\w:/.-]+$/.test(a) ? a : `'${a}'`)).join(" ");
  console.log(`${index === 0 ? "" : "\n"}$ conduit-mcp ${shown} -- node examples/server.mjs`);
  // The absolute node path keeps the tour working when `node` is not on PATH.
  const run = spawnSync(process.execPath, [cli, ...args, "--", process.execPath, server], {
    stdio: "inherit",
    timeout: 30_000,
  });
  if (run.status !== 0) {
    console.error(`conduit-mcp exited with ${run.status ?? run.signal}`);
    process.exit(1);
  }
}
