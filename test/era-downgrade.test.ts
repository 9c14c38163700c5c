/**
 * A stored era is a starting point, not a promise (issue 27): the official server downgraded to
 * legacy-only on the same URL makes the first request on the stored modern era fail as "not this
 * era"; the client drops the record, probes afresh, records the new era and the call succeeds.
 */
import { afterEach, describe, expect, it } from "vitest";
import { storeKeyOf } from "../src/client/stores-option.js";
import { Client, McpClientError, MemoryEraStore } from "../src/index.js";
import { freePort, HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";

const clients: Client[] = [];
let server: RunningServer | undefined;
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.stop();
});

function client(url: string, eras: MemoryEraStore, protocol?: "modern"): Client {
  const c = new Client({
    name: "downgrade",
    serverId: "official",
    transport: { type: "http", url },
    stores: { eras },
    protocol,
  });
  clients.push(c);
  return c;
}

/** A modern record in `eras`, then the same URL served by a legacy-only official server. */
async function downgraded(eras: MemoryEraStore): Promise<string> {
  const port = await freePort();
  server = await startHttpFixture(HTTP_OFFICIAL, ["modern", String(port)]);
  const a = client(server.url, eras);
  expect((await a.listAllTools()).length).toBeGreaterThan(0);
  expect(a.era()).toBe("modern");
  expect(eras.get(storeKeyOf("official", { type: "http", url: server.url }))).toMatchObject({
    era: "modern",
  });
  await a.close();
  await server.stop();
  server = await startHttpFixture(HTTP_OFFICIAL, ["legacy", String(port)]);
  return server.url;
}

describe("a stored era the server no longer speaks", () => {
  it("modern record, legacy-only server on the same URL: the call renegotiates and succeeds, the record says legacy", async () => {
    const eras = new MemoryEraStore();
    const url = await downgraded(eras);
    const b = client(url, eras);
    const result = await b.callTool("echo", { message: "hi" });
    expect(result.isError).toBe(false);
    expect(b.era()).toBe("legacy");
    await new Promise((r) => setTimeout(r, 20));
    expect(eras.get(storeKeyOf("official", { type: "http", url }))).toMatchObject({ era: "legacy" });
    // The next client starts from the new record and stays legacy.
    const c = client(url, eras);
    expect((await c.listAllTools()).length).toBeGreaterThan(0);
    expect(c.era()).toBe("legacy");
  }, 30_000);

  it('protocol "modern" on the downgraded server: the call fails typed (legacy_server) within its deadline', async () => {
    const eras = new MemoryEraStore();
    const url = await downgraded(eras);
    const b = client(url, eras, "modern");
    const t0 = Date.now();
    const err = await b.callTool("echo", { message: "hi" }, { timeout: 5_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "protocol", reason: "legacy_server" });
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 30_000);
});
