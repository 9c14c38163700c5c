// serve and inspect share one Host/Origin check (src/security/origin.ts): a loopback Origin or
// Host at another port is another program on this machine (another local server's page), so
// both answer it 403, and take their own (any loopback alias at their own port).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { Desk, type Inspector, startInspector } from "../src/inspect/index.js";
import { checkRequestOrigin } from "../src/security/origin.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { silentLogger } from "./support/index.js";
import { MemoryServer } from "./support/memory-server.js";

/** A raw request: fetch will not send a forged Host header. */
function raw(url: string, o: { method?: string; headers?: Record<string, string>; body?: string }) {
  return new Promise<number>((resolve, reject) => {
    const req = request(url, { method: o.method ?? "GET", headers: o.headers ?? {} }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(o.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});
const POST = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const logger = silentLogger();
let hub: Hub;
let served: ServeHandle;
let inspector: Inspector;

beforeAll(async () => {
  const desk = new Desk();
  hub = new Hub({
    logger,
    clientOptions: { logger, handler: desk.handler() },
    servers: {
      memory: { transport: new MemoryServer({ tools: [{ name: "x", inputSchema: { type: "object" } }] }) },
    },
  });
  await hub.ready({ timeout: 10_000 });
  served = await serve(hub, { transport: { type: "http", port: 0 }, logger });
  inspector = await startInspector({ hub, desk, hubName: "hub", host: "127.0.0.1", port: 0 });
}, 20_000);

afterAll(async () => {
  await served?.close();
  await inspector?.close();
  await hub?.close();
});

describe("the port in Host and Origin", () => {
  it("serve refuses an Origin or Host at another loopback port with 403 and takes its own", async () => {
    const url = served.url!;
    const port = Number(new URL(url).port);
    const other = port === 65_535 ? port - 1 : port + 1;
    const post = (headers: Record<string, string>) =>
      raw(url, { method: "POST", headers: { ...POST, ...headers }, body: INIT });
    expect(await post({ origin: `http://127.0.0.1:${other}` })).toBe(403);
    expect(await post({ origin: "http://localhost" })).toBe(403);
    expect(await post({ host: `127.0.0.1:${other}` })).toBe(403);
    expect(await post({ origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await post({ origin: `http://localhost:${port}`, host: `localhost:${port}` })).toBe(200);
  });

  it("inspect refuses an Origin or Host at another loopback port with 403 and takes its own", async () => {
    const u = new URL(inspector.url);
    const port = Number(u.port);
    const other = port === 65_535 ? port - 1 : port + 1;
    const api = `${u.origin}/api/servers`;
    const get = (headers: Record<string, string>) =>
      raw(api, { headers: { cookie: `conduit_inspect=${u.searchParams.get("token")}`, ...headers } });
    expect(await get({ origin: `http://127.0.0.1:${other}` })).toBe(403);
    expect(await get({ host: `localhost:${other}` })).toBe(403);
    expect(await get({ origin: `http://127.0.0.1:${port}` })).toBe(200);
    expect(await get({ origin: `http://localhost:${port}`, host: `localhost:${port}` })).toBe(200);
  });

  it("a reverse proxy's name (not loopback) is taken at any port; a malformed Host is not", () => {
    const allowed = new Set(["127.0.0.1", "localhost", "mcp.example.com"]);
    expect(
      checkRequestOrigin({ host: "mcp.example.com", origin: "https://mcp.example.com" }, allowed, 8931),
    ).toBe("ok");
    expect(checkRequestOrigin({ host: "localhost" }, allowed, 8931)).toBe("host");
    expect(
      checkRequestOrigin({ host: "localhost:8931", origin: "https://localhost:8931" }, allowed, 8931),
    ).toBe("ok");
    expect(checkRequestOrigin({ host: "localhost:8931", origin: "https://localhost" }, allowed, 8931)).toBe(
      "origin",
    );
    expect(checkRequestOrigin({ host: "127.0.0.1:8931:1" }, allowed, 8931)).toBe("host");
  });
});
