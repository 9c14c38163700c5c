// serve asks its upstream for progress only when the host asked serve for it (serve-hop, issue
// 29): a host's call without a progress token goes upstream without one (no token, handler or
// bigger request per call), a call with one still gets the upstream's progress, both eras, and a
// host that declared nothing it could be asked still has its call cancelled upstream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { silentLogger, waitFor } from "./support/index.js";
import { type OfficialSeen, officialServer } from "./support/official-in-process.js";

describe("serve and the upstream's progress", () => {
  const seen: OfficialSeen = { cancelled: 0, metas: [] };
  const logger = silentLogger();
  let upstream: Client;
  let served: ServeHandle;

  beforeAll(async () => {
    upstream = new Client({
      name: "up",
      transport: { type: "in-process", server: officialServer(seen) },
      logger,
    });
    await upstream.ready();
    served = await serve(upstream, { transport: { type: "http", port: 0 }, logger });
  }, 30_000);

  afterAll(async () => {
    await served?.close();
    await upstream?.close();
  });

  const host = async (protocol: "2026-07-28" | "2025-11-25") => {
    const c = new Client({ name: "host", transport: { type: "http", url: served.url! }, protocol, logger });
    await c.ready();
    return c;
  };

  for (const protocol of ["2026-07-28", "2025-11-25"] as const) {
    it(`${protocol}: no progress token upstream unless the host sent one`, async () => {
      const c = await host(protocol);
      try {
        seen.metas.length = 0;
        const plain = await c.callTool("echo", { message: "a" });
        expect(plain.content).toEqual([{ type: "text", text: "a" }]);
        expect(seen.metas).toHaveLength(1);
        expect(seen.metas[0]?.progressToken).toBeUndefined();

        const progress: number[] = [];
        seen.metas.length = 0;
        await c.callTool("echo", { message: "b" }, { onProgress: () => {} });
        expect(seen.metas[0]?.progressToken).toBeDefined();
        const slow = await c.callTool("slow", { steps: 3 }, { onProgress: (p) => progress.push(p.progress) });
        expect(slow.content).toEqual([{ type: "text", text: "done after 3" }]);
        expect(progress).toEqual([1, 2, 3]);
      } finally {
        await c.close();
      }
    });
  }

  it("a host that can be asked nothing still cancels its call upstream", async () => {
    const c = await host("2026-07-28");
    try {
      const before = seen.cancelled;
      const controller = new AbortController();
      const call = c.callTool("slow", { steps: 2, hangAt: 1 }, { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 200));
      controller.abort();
      await expect(call).rejects.toThrow();
      await waitFor(() => seen.cancelled === before + 1, 5_000);
    } finally {
      await c.close();
    }
  });
});
