/**
 * `ClientStatus.fallbackReason`: why a client that tried the modern era settled on the legacy one
 * (shown by the inspector's servers view). Real peers: the official server over HTTP in its
 * legacy-only and modern modes, and the scripted stdio server's probe answers.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client, Hub, MemoryEraStore } from "../src/index.js";
import { startOfficialHttp } from "./support/http-servers.js";
import { silentLogger } from "./support/index.js";
import { closeAll, scriptedClient } from "./support/scripted.js";

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  await closeAll();
  for (const stop of stops.splice(0).reverse()) await stop();
});

function httpClient(url: string, extra: Record<string, unknown> = {}): Client {
  const c = new Client({
    name: "fallback",
    serverId: "official",
    transport: { type: "http", url },
    ...extra,
  });
  stops.push(() => c.close());
  return c;
}

describe("fallbackReason against the official server over HTTP", () => {
  it("legacy-only: the probe's HTTP status, in the client's and the hub's status", async () => {
    const server = await startOfficialHttp("legacy");
    stops.push(() => server.stop());
    const c = httpClient(server.url);
    await c.ready({ timeout: 15_000 });
    const status = c.status();
    expect(status).toMatchObject({ state: "ready", era: "legacy" });
    expect(status.fallbackReason).toMatch(/^server\/discover got HTTP 4\d\d/);

    const hub = new Hub({
      logger: silentLogger(),
      servers: { old: { transport: { type: "http", url: server.url } } },
    });
    stops.push(() => hub.close());
    await hub.ready({ timeout: 15_000 });
    expect(hub.status().servers.old?.fallbackReason).toBe(status.fallbackReason);
  }, 30_000);

  it("modern: no fallbackReason at all (absent, not undefined)", async () => {
    const server = await startOfficialHttp("modern");
    stops.push(() => server.stop());
    const c = httpClient(server.url);
    await c.ready({ timeout: 15_000 });
    expect(c.status().era).toBe("modern");
    expect("fallbackReason" in c.status()).toBe(false);
  }, 30_000);

  it('protocol: "legacy" never tried modern: no fallbackReason', async () => {
    const server = await startOfficialHttp("dual");
    stops.push(() => server.stop());
    const c = httpClient(server.url, { protocol: "legacy" });
    await c.ready({ timeout: 15_000 });
    expect(c.status().era).toBe("legacy");
    expect("fallbackReason" in c.status()).toBe(false);
  }, 30_000);

  it("a legacy record in the era store: says so (the record, not a probe, decided)", async () => {
    const server = await startOfficialHttp("legacy");
    stops.push(() => server.stop());
    const eras = new MemoryEraStore();
    const a = httpClient(server.url, { stores: { eras } });
    await a.ready({ timeout: 15_000 });
    expect(a.status().fallbackReason).toMatch(/HTTP/);
    await new Promise((r) => setTimeout(r, 20));
    const b = httpClient(server.url, { stores: { eras } });
    await b.ready({ timeout: 15_000 });
    expect(b.status()).toMatchObject({ era: "legacy" });
    expect(b.status().fallbackReason).toMatch(/era store .* legacy/);
  }, 30_000);
});

describe("fallbackReason against the scripted stdio server", () => {
  it.each([
    ["method-not-found", "server/discover got JSON-RPC error -32601 (method not found)"],
    ["invalid-params", "server/discover got JSON-RPC error -32602 (invalid params)"],
    ["not-discover", "server/discover answered with a result that is not a DiscoverResult"],
  ])("probe answer %s: %s", async (probe, reason) => {
    const c = scriptedClient({ probe });
    await c.ready();
    expect(c.status()).toMatchObject({ era: "legacy", fallbackReason: reason });
  });

  it("a probe with no answer: names the probe timeout", async () => {
    const c = scriptedClient({ probe: "silent" }, { probeTimeout: 200 });
    await c.ready();
    expect(c.status().fallbackReason).toBe("no answer to server/discover within 200 ms");
  });

  it("a server that exits on the probe: says the next connects start with initialize", async () => {
    const c = scriptedClient({ probe: "exit" });
    await c.ready();
    expect(c.status().fallbackReason).toMatch(/exited when probed/);
  });

  it("a modern answer: absent", async () => {
    const c = scriptedClient({ probe: "ok" });
    await c.ready();
    expect(c.status()).toEqual({ state: "ready", era: "modern", version: "2026-07-28", reason: null });
  });
});
