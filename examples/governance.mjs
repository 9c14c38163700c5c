// Governing tool calls: run `npm run build && node examples/governance.mjs`.
// The server is the official @modelcontextprotocol/server-filesystem, serving a temporary
// directory. Reads are allowed, writes are asked for (this script answers as a person would),
// moves are denied, and a pre-hook refuses paths outside the directory.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { governance, refuse } from "../dist/governance/index.js";
import { Client, McpClientError } from "../dist/index.js";

const FILESYSTEM = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
);
const root = realpathSync(mkdtempSync(join(tmpdir(), "governance-example-")));

const client = new Client({
  name: "governance-example",
  serverId: "files",
  transport: { type: "stdio", command: process.execPath, args: [FILESYSTEM, root], stderr: "discard" },
  principal: "user-42",
  interceptors: [
    governance({
      policy: [
        { tool: "read_*", decision: "allow" },
        { tool: "move_file", decision: "deny", reason: "never from an agent" },
        { annotations: { destructiveHint: true }, decision: "ask" },
      ],
      approve: (request) => {
        console.log(
          `approve ${request.tool.name} for ${request.principal}? digest ${request.digest.slice(0, 12)}`,
        );
        return { allow: true, remember: "session" };
      },
      beforeCall: [
        (call) => {
          const path = call.arguments.path;
          if (typeof path === "string" && relative(root, path).startsWith(".."))
            throw refuse("outside the workspace");
          return call;
        },
      ],
    }),
  ],
});

try {
  const file = join(root, "note.txt");
  await client.callTool("write_file", { path: file, content: "hello" }); // asked
  await client.callTool("write_file", { path: file, content: "hello again" }); // the grant answers
  const read = await client.callTool("read_text_file", { path: file }); // allowed
  console.log("read:", read.content[0].text);

  for (const [tool, args] of [
    ["move_file", { source: file, destination: join(root, "moved.txt") }],
    ["write_file", { path: "/etc/passwd", content: "no" }],
  ]) {
    try {
      await client.callTool(tool, args);
    } catch (err) {
      if (!(err instanceof McpClientError)) throw err;
      console.log(`${tool}: ${err.kind} ${err.reason}`, err.detail);
    }
  }
  console.log("still there:", existsSync(file), readFileSync(file, "utf8"));
} finally {
  await client.close();
  rmSync(root, { recursive: true, force: true });
}
