// What a config file's variables put into a server's `url` or `args` (an API key in a URL's query,
// a `--token` argument) is a secret like the env and header values built from variables: no error
// message, passed-on stderr or CLI output shows it, even when the server echoes it back. A value
// written in the file itself (a `${VAR:-default}`) is not a secret, unless its name says it is one.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServersConfig, McpClientError } from "../src/index.js";
import { runCli } from "./support/cli.js";
import { SCRIPTED } from "./support/scripted.js";

const KEY = "key-7b3e91d04a5c62f8";
let dir: string;
/** Answers every request with a JSON-RPC error that echoes the request's path and query. */
let echoing: Server;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "conduit-varsecret-"));
  echoing = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      const id = (JSON.parse(body) as { id?: unknown }).id ?? null;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32600, message: `no endpoint ${req.url}` } }),
      );
    });
  });
  await new Promise<void>((r) => echoing.listen(0, "127.0.0.1", r));
  port = (echoing.address() as AddressInfo).port;
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await new Promise((r) => echoing.close(r));
});

function configFile(servers: Record<string, unknown>): string {
  const file = join(dir, `mcp-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

describe("values a config's variables put into url and args", () => {
  it("a url's key, echoed by the server in its error, is not printed by the CLI", async () => {
    const file = configFile({ remote: { url: `http://127.0.0.1:${port}/mcp?key=\${env:REMOTE_KEY}` } });
    for (const json of [[], ["--json"]]) {
      const run = await runCli(["tools", "--config", file, "--server", "remote", ...json], {
        env: { REMOTE_KEY: KEY },
      });
      expect(run.code).not.toBe(0);
      expect(run.stdout + run.stderr).toContain("no endpoint /mcp?key=[secret]");
      expect(run.stdout + run.stderr).not.toContain(KEY);
    }
  }, 30_000);

  it("an argument's token, printed by a server that refuses it, is not shown", async () => {
    const file = configFile({
      local: {
        command: process.execPath,
        args: [
          "-e",
          'console.error("bad option " + process.argv.at(-1)); process.exit(2)',
          "--",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
          "--token=${env:LOCAL_KEY}",
        ],
      },
    });
    const run = await runCli(["info", "--config", file, "--server", "local"], { env: { LOCAL_KEY: KEY } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("bad option --token=[secret]");
    expect(run.stdout + run.stderr).not.toContain(KEY);
  }, 30_000);

  it("library errors are scrubbed of them once the file is loaded; a default written in the file is not", () => {
    const other = "key-0f1e2d3c4b5a6978";
    const servers = loadServersConfig(
      {
        mcpServers: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
          r: { url: "https://mcp.example.com/${env:PATH_KEY}/mcp" },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own syntax
          l: { command: "node", args: ["server.js", "--region=${REGION:-eu-west-1}"] },
        },
      },
      { env: { PATH_KEY: other } },
    );
    expect(Object.keys(servers)).toEqual(["r", "l"]);
    const said = new McpClientError(
      "protocol",
      "jsonrpc_error",
      { message: `no route ${other} in eu-west-1` },
      { detail: { jsonrpc: -32602 } },
    ).serverMessage();
    expect(said).toBe("no route [secret] in eu-west-1");
  });
});

describe("literal values a config file writes in place", () => {
  it("under a secret's name (or a URL with credentials) are scrubbed; ordinary settings are not", async () => {
    const token = "ghp_literal0123456789abcdef";
    const file = configFile({
      chatty: {
        command: process.execPath,
        args: [SCRIPTED, JSON.stringify({ tools: [{ name: "stderr", inputSchema: { type: "object" } }] })],
        env: {
          GITHUB_PERSONAL_ACCESS_TOKEN: token,
          DATABASE_URL: "postgres://app:hunter2-pw@db.internal/app",
          NODE_ENV: "production",
          AUTH_MODE: "oauth",
        },
      },
    });
    for (const env of ["GITHUB_PERSONAL_ACCESS_TOKEN", "DATABASE_URL", "NODE_ENV", "AUTH_MODE"]) {
      const run = await runCli(
        ["call", "stderr", JSON.stringify({ text: `${env}=`, env }), "--config", file, "--server", "chatty"],
        {},
      );
      expect(run.code, run.stderr).toBe(0);
      const shown = run.stdout + run.stderr;
      expect(shown).not.toContain(token);
      expect(shown).not.toContain("hunter2-pw");
      if (env === "NODE_ENV") expect(shown).toContain("NODE_ENV=production");
      else if (env === "AUTH_MODE") expect(shown).toContain("AUTH_MODE=oauth");
      else expect(shown).toContain(`${env}=[secret]`);
    }
  }, 60_000);
});
