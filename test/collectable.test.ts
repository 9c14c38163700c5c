import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type ClientOptions, Hub } from "../src/index.js";
import { startOfficialHttp } from "./support/http-servers.js";
import { officialServer } from "./support/servers.js";

// A closed client must be garbage at once: nothing it owned (a deadline timer, the stable timer,
// a health check, a keep-alive) may keep it reachable after close() resolves. A timer that still
// holds a closure over the client pins it, and every object it made, until it fires: seconds to
// a minute for each closed client of a hub or a gateway. No fake timers: the check runs at once.

/** The collector, without starting the worker with --expose-gc (the flag is read at this call). */
function collector(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** A turn of the event loop: WeakRef targets read in this job stay alive until it ends. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Connects, calls and lists, closes; then true if the client was collected right after. */
async function collectedAfterClose(options: () => ClientOptions): Promise<boolean> {
  const gc = collector();
  const ref = await (async () => {
    const c = new Client(options());
    await c.callTool("echo", { message: "hi" });
    await c.listAllTools();
    await c.close();
    return new WeakRef(c);
  })();
  for (let i = 0; i < 3 && ref.deref() !== undefined; i++) {
    await turn();
    gc();
  }
  return ref.deref() === undefined;
}

const quiet = { warn: () => {} };

describe("a closed client is collectable at once", () => {
  it.each(["modern", "legacy"] as const)("over stdio against the official server (%s)", async (era) => {
    const collected = await collectedAfterClose(() => ({
      name: "collect-stdio",
      transport: officialServer(era === "modern" ? "dual" : "legacy"),
      ...(era === "legacy" ? { protocol: "legacy" as const } : {}),
      healthCheckInterval: 5_000,
      logger: quiet,
    }));
    expect(collected).toBe(true);
  });

  describe("over HTTP against the official server", () => {
    let server: Awaited<ReturnType<typeof startOfficialHttp>>;
    beforeAll(async () => {
      server = await startOfficialHttp("dual");
    });
    afterAll(async () => {
      await server.stop();
    });

    it("a hub of a stdio and an HTTP server, closed, is collectable at once too", async () => {
      const gc = collector();
      const ref = await (async () => {
        const hub = new Hub({
          servers: {
            local: { transport: officialServer("dual") },
            remote: { transport: { type: "http", url: server.url } },
          },
          logger: quiet,
        });
        await hub.ready();
        await hub.callTool("mcp__local__echo", { message: "hi" });
        await hub.callTool("mcp__remote__echo", { message: "hi" });
        await hub.close();
        return new WeakRef(hub);
      })();
      for (let i = 0; i < 3 && ref.deref() !== undefined; i++) {
        await turn();
        gc();
      }
      expect(ref.deref()).toBeUndefined();
    });

    it.each(["modern", "legacy"] as const)("%s", async (era) => {
      const collected = await collectedAfterClose(() => ({
        name: "collect-http",
        transport: { type: "http", url: server.url },
        ...(era === "legacy" ? { protocol: "legacy" as const } : {}),
        healthCheckInterval: 5_000,
        logger: quiet,
      }));
      expect(collected).toBe(true);
    });
  });
});
