// Lists the tools of real MCP servers from npm by starting each one, and writes them to
// bench/fixtures/tool-search-servers.json for bench/tool-search-eval.mjs. Servers that need keys
// are given dummy ones: they list their tools without calling anything.
//
//   mkdir /tmp/mcp-bench && cd /tmp/mcp-bench && npm init -y && PUPPETEER_SKIP_DOWNLOAD=1 \
//     npm install --ignore-scripts @modelcontextprotocol/server-memory ... (the PACKAGES below)
//   npm run build && node bench/list-tool-servers.mjs /tmp/mcp-bench
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Hub } from "../dist/index.js";

const installed = process.argv[2];
const here = new URL("..", import.meta.url).pathname;
if (!installed)
  throw new Error("usage: node bench/list-tool-servers.mjs <folder where the servers are installed>");

const dummy = "dummy-key-for-listing";
/** id: [package, the script to run (relative to the package), args, env]. */
const PACKAGES = {
  filesystem: ["@modelcontextprotocol/server-filesystem", "dist/index.js", ["/tmp"], {}],
  everything: ["@modelcontextprotocol/server-everything", "dist/index.js", ["stdio"], {}],
  memory: [
    "@modelcontextprotocol/server-memory",
    "dist/index.js",
    [],
    { MEMORY_FILE_PATH: "/tmp/bench-memory.json" },
  ],
  github: [
    "@modelcontextprotocol/server-github",
    "dist/index.js",
    [],
    { GITHUB_PERSONAL_ACCESS_TOKEN: dummy },
  ],
  gitlab: [
    "@modelcontextprotocol/server-gitlab",
    "dist/index.js",
    [],
    { GITLAB_PERSONAL_ACCESS_TOKEN: dummy },
  ],
  slack: [
    "@modelcontextprotocol/server-slack",
    "dist/index.js",
    [],
    { SLACK_BOT_TOKEN: dummy, SLACK_TEAM_ID: "T0" },
  ],
  "brave-search": [
    "@modelcontextprotocol/server-brave-search",
    "dist/index.js",
    [],
    { BRAVE_API_KEY: dummy },
  ],
  "google-maps": [
    "@modelcontextprotocol/server-google-maps",
    "dist/index.js",
    [],
    { GOOGLE_MAPS_API_KEY: dummy },
  ],
  "sequential-thinking": ["@modelcontextprotocol/server-sequential-thinking", "dist/index.js", [], {}],
  puppeteer: ["@modelcontextprotocol/server-puppeteer", "dist/index.js", [], {}],
  playwright: ["@playwright/mcp", "cli.js", [], {}],
  notion: ["@notionhq/notion-mcp-server", "bin/cli.mjs", [], { NOTION_TOKEN: dummy }],
};

function where(pkg) {
  // server-everything and server-filesystem are the project's own dev dependencies.
  for (const root of [join(installed, "node_modules"), join(here, "node_modules")]) {
    try {
      const meta = JSON.parse(readFileSync(join(root, pkg, "package.json"), "utf8"));
      return { dir: join(root, pkg), version: meta.version };
    } catch {}
  }
  throw new Error(`${pkg} is not installed in ${installed}`);
}

const servers = {};
const meta = {};
for (const [id, [pkg, script, args, env]] of Object.entries(PACKAGES)) {
  const { dir, version } = where(pkg);
  meta[id] = { package: pkg, version };
  servers[id] = {
    transport: {
      type: "stdio",
      command: process.execPath,
      args: [join(dir, script), ...args],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stderr: "discard",
    },
  };
}
const hub = new Hub({ servers, listTimeout: 30_000, logger: { warn: (m) => console.error(m) } });
const listing = await hub.listToolsDetailed();
const out = { note: "Tool lists of real MCP servers, listed by bench/list-tool-servers.mjs", servers: {} };
for (const id of Object.keys(PACKAGES)) {
  const tools = listing.tools
    .filter((t) => t.serverId === id)
    .map(({ tool }) => {
      const { serverId: _, ...rest } = tool;
      return rest;
    });
  if (listing.servers[id]?.status !== "ok") console.error(`${id}: ${listing.servers[id]?.status}`);
  out.servers[id] = { ...meta[id], tools };
  console.log(`${id}: ${tools.length} tools`);
}
await hub.close();
writeFileSync(join(here, "bench/fixtures/tool-search-servers.json"), `${JSON.stringify(out, null, 1)}\n`);
