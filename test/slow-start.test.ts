// A stdio server slow to start (it sleeps before reading stdin, as an npx-launched server on a
// loaded machine does) misses the server/discover probe's timeout. The seed's table then reads it
// as legacy (negotiation.md, "A server slow to start"): a dual server is met with initialize and
// works in the legacy era; a modern-only server that answers initialize with -32022 naming its
// versions is discovered once more and ends modern, never mis-judged as legacy.
import { afterEach, describe, expect, it } from "vitest";
import { closeAll, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

describe("a stdio server slow to start", () => {
  it("a dual server that misses the probe timeout is met with initialize and works, legacy", async () => {
    const c = scriptedClient({ startDelay: 1200 }, { probeTimeout: 300 });
    await c.ready();
    expect(c.era()).toBe("legacy");
    expect(c.status().fallbackReason).toBe("no answer to server/discover within 300 ms");
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("a modern-only server that misses it still ends modern: initialize's -32022 names its version", async () => {
    const c = scriptedClient({ era: "modern", startDelay: 1200 }, { probeTimeout: 300 });
    await c.ready();
    expect(c.era()).toBe("modern");
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("a server that starts within the probe timeout is judged by its answer", async () => {
    const c = scriptedClient({ startDelay: 300 }, { probeTimeout: 3000 });
    await c.ready();
    expect(c.era()).toBe("modern");
  });
});
