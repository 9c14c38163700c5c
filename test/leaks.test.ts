import { describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { startOfficialHttp } from "./support/http-servers.js";
import { scriptedTransport } from "./support/scripted.js";

/** Resource kinds a closed client could leave behind. */
const counted = () =>
  process
    .getActiveResourcesInfo()
    .filter((r) => ["Timeout", "TTYWrap", "PipeWrap", "ProcessWrap", "TCPWrap", "FSReqCallback"].includes(r));

describe("nothing is left behind", () => {
  it("after many start/call/close cycles, no timer, pipe or child process remains", async () => {
    const before = counted().length;
    for (let i = 0; i < 15; i++) {
      const c = new Client({
        name: `cycle-${i}`,
        transport: scriptedTransport(),
        logger: { warn: () => {} },
      });
      await c.callTool("echo", { i });
      await c.callTool("hang", {}, { timeout: 20 }).catch(() => {});
      await c.close();
    }
    // Clients closed while still connecting, too.
    for (let i = 0; i < 5; i++) {
      const c = new Client({ name: `early-${i}`, transport: scriptedTransport({ probe: "silent" }) });
      await c.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    expect(counted().length).toBeLessThanOrEqual(before);
  });

  it.each(["modern", "legacy"] as const)(
    "over HTTP (%s), no socket or timer remains after many cycles",
    async (era) => {
      const server = await startOfficialHttp(era);
      try {
        const sockets = () =>
          process.getActiveResourcesInfo().filter((r) => r === "TCPWrap" || r === "Timeout").length;
        await new Promise((r) => setTimeout(r, 50));
        const before = sockets();
        for (let i = 0; i < 10; i++) {
          const c = new Client({
            name: `http-cycle-${i}`,
            transport: { type: "http", url: server.url },
            logger: { warn: () => {} },
          });
          await c.callTool("echo", { message: "hi" });
          await c.listAllTools();
          await c.close();
        }
        await new Promise((r) => setTimeout(r, 100));
        expect(sockets()).toBeLessThanOrEqual(before);
      } finally {
        await server.stop();
      }
    },
  );
});
