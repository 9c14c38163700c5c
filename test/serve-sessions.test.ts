// No leaks: 1 000 official-client sessions (both eras) opened and closed over HTTP leave no
// session, no socket and no memory behind, all through one upstream connection; an idle session
// is closed after the (here shortened) idle timeout, as 8 hours of idle would be.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Hub } from "../src/index.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { officialServer, silentLogger, waitFor } from "./support/index.js";
import { closeHost, httpHost, type ServedHub, serveHub } from "./support/serve.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const sockets = () => process.getActiveResourcesInfo().filter((r) => r === "TCPSocketWrap").length;

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 20));
  }
  return process.memoryUsage().heapUsed;
}

describe("serve's sessions", () => {
  let s: ServedHub;
  let hub: Hub;
  let served: ServeHandle;
  let upstreamCalls = 0;
  const logger = silentLogger();

  beforeAll(async () => {
    s = await serveHub(
      {
        input: false,
        servers: { official: { transport: officialServer("dual") } },
        interceptors: [
          (next) => (call) => {
            upstreamCalls++;
            return next(call);
          },
        ],
      },
      { limits: { maxSessions: 1000 } },
    );
    ({ hub, served } = s);
  }, 30_000);

  afterAll(async () => {
    await s?.close();
  });

  it("1 000 sessions opened and closed leave nothing behind", async () => {
    const round = async (n: number) => {
      const batch = 20;
      for (let i = 0; i < n; i += batch) {
        await Promise.all(
          Array.from({ length: batch }, async (_, j) => {
            const host = await httpHost(served.url!, (i + j) % 2 === 0 ? "legacy" : "modern");
            await host.callTool({ name: "mcp__official__echo", arguments: { message: "x" } });
            await closeHost(host);
          }),
        );
      }
    };
    const baseSockets = sockets();
    await round(200);
    await waitFor(() => served.sessions() === 0, 5_000);
    const warm = await heapAfterGc();
    await round(800);
    await waitFor(() => served.sessions() === 0, 5_000);
    const after = await heapAfterGc();
    expect(upstreamCalls).toBe(1000);
    // Keep-alive sockets the hosts left close on their own timeout; none is held by a session.
    await waitFor(() => sockets() <= baseSockets, 15_000);
    // Flat: 800 more sessions do not cost more than a few MB (a leak of a server, transport and
    // session per host would be tens of MB).
    expect(after - warm).toBeLessThan(8 * 1024 * 1024);
    expect(hub.status().servers.official!.state).toBe("ready");
  }, 180_000);

  it("closes an idle session after the idle timeout", async () => {
    const short = await serve(hub, {
      transport: { type: "http", port: 0 },
      logger,
      limits: { idleTimeout: 200 },
    });
    try {
      const host = await httpHost(short.url!, "legacy");
      expect(short.sessions()).toBe(1);
      await waitFor(() => short.sessions() === 0, 5_000);
      await host.close();
      // A busy session is not idle: a long call keeps it.
      const busy = await httpHost(short.url!, "legacy");
      const r = await busy.callTool({ name: "mcp__official__slow", arguments: { steps: 5, every: 100 } });
      expect(r.isError).toBeFalsy();
      await busy.close();
    } finally {
      await short.close();
    }
  }, 30_000);
});
