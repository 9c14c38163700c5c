// An upstream server's elicitation, answered by the host through serve: the official client as
// the host (both eras) in front of a hub whose clients have serveInputHandler(), the upstream the
// official-SDK input fixture asking in the 2026-07-28 way. A host that cannot be asked declines.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServeHandle } from "../src/serve/index.js";
import { nodeServer } from "./support/index.js";
import { closeHost, httpHost, type ServedHub, serveHub } from "./support/serve.js";

const INPUT_SERVER = new URL("./fixtures/input-official-server.mjs", import.meta.url).pathname;

describe("upstream elicitation through serve", () => {
  let s: ServedHub;
  let served: ServeHandle;

  beforeAll(async () => {
    s = await serveHub({ servers: { input: { transport: nodeServer(INPUT_SERVER, ["dual"]) } } });
    served = s.served;
  }, 30_000);

  afterAll(async () => {
    await s?.close();
  });

  it.each(["modern", "legacy"] as const)("a %s host answers the upstream's form", async (era) => {
    const asked: Array<Record<string, unknown>> = [];
    const host = await httpHost(served.url!, era, {
      elicit: (params) => {
        asked.push(params);
        return { action: "accept", content: { name: "Ada" } };
      },
    });
    try {
      const r = await host.callTool({ name: "mcp__input__ask_form", arguments: {} });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ message: "Who are you?" });
      // The upstream's client filled in the schema's defaults before the server saw the answer.
      expect(r.structuredContent).toEqual({
        action: "accept",
        content: { name: "Ada", age: 30, color: "green", subscribe: false },
      });
      expect(served.sessions()).toBeLessThanOrEqual(1);
    } finally {
      await closeHost(host);
    }
  });

  it("a host without elicitation gets nothing forwarded: the upstream's question is declined", async () => {
    const host = await httpHost(served.url!, "modern");
    try {
      const r = await host.callTool({ name: "mcp__input__ask_form", arguments: {} });
      expect(r.structuredContent).toMatchObject({ action: "decline" });
    } finally {
      await closeHost(host);
    }
  });
});
