import { describe, it } from "vitest";
import { Client } from "../src/index.js";
import { waitFor } from "./support/async.js";
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
    // Handles are released a turn or two after close(): wait for them, failing if they stay.
    await waitFor(() => counted().length <= before, "the handles to be released", 5000);
  });

  it.each(["modern", "legacy"] as const)(
    "over HTTP (%s), no socket or timer remains after many cycles",
    async (era) => {
      const server = await startOfficialHttp(era);
      try {
        const sockets = () =>
          process.getActiveResourcesInfo().filter((r) => r === "TCPWrap" || r === "Timeout").length;
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
        await waitFor(() => sockets() <= before, "the sockets and timers to be released", 5000);
      } finally {
        await server.stop();
      }
    },
  );
});
