// The HTTP transport's slice of undici (src/transport/http/undici-core.ts): the same classes as
// undici's index, loaded without the index, with the request API working. If an undici upgrade
// moves these files, loadUndiciCore falls back to the whole package and the first case fails.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadUndiciCore } from "../src/transport/http/undici-core.js";

let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => res.end(`${req.method} ${req.url}`));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe("loadUndiciCore", () => {
  it("takes the three classes from their own files, not the whole package", () => {
    const core = loadUndiciCore();
    // The fallback returns undici's index exports (dozens of keys); the slice has exactly these.
    expect(Object.keys(core)).toEqual(["Client", "Agent", "buildConnector"]);
  });

  it("gives the very classes undici's index exports", async () => {
    const core = loadUndiciCore();
    const undici = await import("undici");
    expect(core.Client).toBe(undici.Client);
    expect(core.Agent).toBe(undici.Agent);
    expect(core.buildConnector).toBe(undici.buildConnector);
  });

  it("a Client from it has the request API, over a connector built by it", async () => {
    const { Client, buildConnector } = loadUndiciCore();
    const client = new Client(origin, { connect: buildConnector({}) });
    try {
      const res = await client.request({ path: "/x?y=1", method: "GET" });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe("GET /x?y=1");
    } finally {
      await client.close();
    }
  });

  it("an Agent from it has the request API too", async () => {
    const { Agent } = loadUndiciCore();
    const agent = new Agent();
    try {
      const res = await agent.request({ origin, path: "/a", method: "POST", body: "" });
      expect(await res.body.text()).toBe("POST /a");
    } finally {
      await agent.close();
    }
  });
});
