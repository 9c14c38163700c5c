/**
 * The CLI against a legacy HTTP server that never answers the DELETE ending its session: the
 * answer was printed at once, and then the program waited the transport's `requestTimeout`
 * (60 s) to exit. The transport waits for that DELETE 5 s at most now (legacy-session.ts). Runs
 * dist/cli/main.js: needs `npm run build` first.
 */
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { CLI, runCli } from "./support/cli.js";
import { silentLogger } from "./support/index.js";

/** How long the transport waits for a session's DELETE at close (legacy-session.ts). */
const DELETE_WAIT_MS = 5_000;

let server: http.Server;
let deletes = 0;
const held: http.ServerResponse[] = [];

function answer(res: http.ServerResponse, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(200, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error("dist/cli/main.js is missing: run `npm run build` first");
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const m = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    if (req.method === "DELETE") {
      deletes += 1;
      held.push(res); // never answered
      return;
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    if (m.method === "initialize") {
      const result = {
        protocolVersion: "2025-11-25",
        capabilities: { tools: {} },
        serverInfo: { name: "never-deletes", version: "1.0.0" },
      };
      return answer(res, { jsonrpc: "2.0", id: m.id, result }, { "mcp-session-id": "session-1-abcdef" });
    }
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === "tools/list") {
      const tools = [{ name: "echo", inputSchema: { type: "object" } }];
      return answer(res, { jsonrpc: "2.0", id: m.id, result: { tools } });
    }
    answer(res, { jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  for (const r of held) r.destroy();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it("a DELETE never answered: the command exits within the close bound, not the request timeout", async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const t0 = Date.now();
  const run = await runCli(["tools", "--url", url, "--protocol", "legacy"]);
  const took = Date.now() - t0;
  expect(run.code).toBe(0);
  expect(run.stdout).toContain("echo");
  expect(deletes).toBe(1);
  // The bound, the program's 2 s exit grace and a start on a loaded machine; the transport's
  // requestTimeout is 60 s.
  expect(took).toBeLessThan(DELETE_WAIT_MS + 10_000);
}, 90_000);

it("the library's close() too: the DELETE is waited for 5 s at most, whatever requestTimeout says", async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const before = deletes;
  const client = new Client({
    name: "never-deletes",
    protocol: "legacy",
    transport: { type: "http", url, requestTimeout: 120_000 },
    logger: silentLogger(),
  });
  await client.ready({ timeout: 10_000 });
  const t0 = Date.now();
  await client.close();
  expect(deletes).toBe(before + 1);
  // 5 s and a loaded machine's slack, far under the 120 s the transport would otherwise wait.
  expect(Date.now() - t0).toBeLessThan(20_000);
}, 40_000);
