// Two servers from npm behind one hub: run `npm run build && node examples/hub.mjs`.
// @modelcontextprotocol/server-filesystem (on a temporary directory) and
// @modelcontextprotocol/server-everything, both over stdio, started from node_modules.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Hub, subscribe } from "../dist/index.js";

const pkg = (name) =>
  fileURLToPath(new URL(`../node_modules/@modelcontextprotocol/${name}/dist/index.js`, import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "hub-example-"));
writeFileSync(join(dir, "a.txt"), "hello from a.txt\n");

const off = subscribe("hub:collision", (e) => console.log("collision:", e.name, e.servers));
const hub = new Hub({
  servers: {
    fs: {
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [pkg("server-filesystem"), dir],
        stderr: "discard",
      },
      deny: ["write_*", "edit_*", "move_*", "create_*"], // read-only
    },
    everything: {
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [pkg("server-everything"), "stdio"],
        stderr: "discard",
      },
      allow: ["echo", "get-sum"],
    },
  },
  clientOptions: { requestTimeout: 30_000 },
});
try {
  console.log(await hub.ready({ timeout: 20_000 }));
  const { tools, servers } = await hub.listToolsDetailed();
  console.log(servers);
  console.log(tools.map((t) => t.name).join("\n"));
  const read = await hub.callTool(
    "mcp__fs__read_text_file",
    { path: join(dir, "a.txt") },
    { timeout: 5_000 },
  );
  console.log(read.content[0].text.trim());
  const sum = await hub.callTool("mcp__everything__get-sum", { a: 2, b: 3 });
  console.log(sum.content[0].text);
  await hub.callTool("mcp__fs__write_file", { path: join(dir, "b.txt"), content: "x" }).catch((err) => {
    console.log("write_file:", err.kind); // not_found: the filter hides it
  });
} finally {
  off();
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
