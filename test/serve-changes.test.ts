// serve passes list changes down: an upstream killed and started again (its tools leave and come
// back, the others keep answering), with the official client as the host in both eras hearing
// tools/list_changed; one upstream connection per server whatever the number of hosts.
import type { Client as SdkClient } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { everythingServer, silentLogger, waitFor } from "./support/index.js";
import { httpHost, textOf } from "./support/serve.js";

describe("serve passes list changes down", () => {
  let http: RunningServer;
  let hub: Hub;
  let served: ServeHandle;
  const hosts: SdkClient[] = [];
  const heard = { modern: 0, legacy: 0 };
  const logger = silentLogger();

  beforeAll(async () => {
    http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
    hub = new Hub({
      logger,
      clientOptions: { logger },
      listTimeout: 5_000,
      servers: {
        everything: { transport: everythingServer(), allow: ["echo"] },
        docs: {
          transport: { type: "http", url: http.url },
          client: { healthCheckInterval: 500, maxReconnects: 2, backoff: () => 100 },
        },
      },
    });
    await hub.ready({ timeout: 20_000 });
    served = await serve(hub, { transport: { type: "http", port: 0 }, logger });
    for (const era of ["modern", "legacy"] as const) {
      hosts.push(await httpHost(served.url!, era, { onToolsChanged: () => heard[era]++ }));
    }
  }, 30_000);

  afterAll(async () => {
    for (const h of hosts) await h.close();
    await served?.close();
    await hub?.close();
    await http?.stop();
  });

  it("a host's cancellation reaches the upstream server (both eras)", async () => {
    const stats = async () =>
      ((await (await fetch(`${http.origin}/admin/stats`)).json()) as { cancelled: number }).cancelled;
    for (const h of hosts) {
      const before = await stats();
      const controller = new AbortController();
      // Cancelled once the upstream is running it (its first progress came back): a cancel at a
      // fixed 300 ms could come, on a loaded machine, before serve had sent the call on at all.
      let running!: () => void;
      const started = new Promise<void>((resolve) => {
        running = resolve;
      });
      const call = h.callTool(
        { name: "mcp__docs__slow", arguments: { steps: 100, every: 100 } },
        { signal: controller.signal, onprogress: () => running() },
      );
      call.catch(() => {});
      await started;
      controller.abort(new Error("stop"));
      await expect(call).rejects.toThrow();
      await waitFor(async () => (await stats()) > before, 10_000);
    }
  }, 30_000);

  it("a killed upstream's tools leave and come back; the others keep answering", async () => {
    const names = async (h: SdkClient) => (await h.listTools()).tools.map((t) => t.name);
    for (const h of hosts) expect(await names(h)).toContain("mcp__docs__echo");
    const before = { ...heard };
    const port = http.port;
    await http.stop();
    await waitFor(() => heard.legacy > before.legacy && heard.modern > before.modern, 20_000);
    for (const h of hosts) {
      expect(await names(h)).not.toContain("mcp__docs__echo");
      expect(
        textOf(await h.callTool({ name: "mcp__everything__echo", arguments: { message: "still" } })),
      ).toContain("still");
    }
    const down = { ...heard };
    http = await startHttpFixture(HTTP_OFFICIAL, ["dual", String(port)]);
    await waitFor(() => heard.legacy > down.legacy && heard.modern > down.modern, 20_000);
    for (const h of hosts) {
      await waitFor(async () => (await names(h)).includes("mcp__docs__echo"), 10_000);
      expect(textOf(await h.callTool({ name: "mcp__docs__echo", arguments: { message: "back" } }))).toBe(
        "back",
      );
    }
  }, 60_000);
});
