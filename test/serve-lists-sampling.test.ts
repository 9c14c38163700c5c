/**
 * What issue 29 asks to pass through that other tests do not show: an upstream's prompts and
 * resources list_changed reach both eras' hosts (the official client), and an upstream's sampling
 * request is answered by a host that declared sampling (refused for one that did not).
 * Upstreams: conformance/serve-upstream.mjs (the official server SDK; its test_trigger_* tools
 * send list_changed) and the official-SDK input fixture (ask_sampling, the 2026-07-28 way).
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServeHandle } from "../src/serve/index.js";
import { nodeServer, waitFor } from "./support/index.js";
import { closeHost, type HostEra, httpHost, type ServedHub, serveHub, textOf } from "./support/serve.js";

const UPSTREAM = fileURLToPath(new URL("../conformance/serve-upstream.mjs", import.meta.url));
const INPUT_SERVER = fileURLToPath(new URL("./fixtures/input-official-server.mjs", import.meta.url));

describe("serve: prompts and resources list_changed, sampling", () => {
  let s: ServedHub;
  let served: ServeHandle;

  beforeAll(async () => {
    s = await serveHub({
      servers: {
        conf: { transport: nodeServer(UPSTREAM, ["stdio"]) },
        input: { transport: nodeServer(INPUT_SERVER, ["dual"]) },
      },
    });
    served = s.served;
  }, 30_000);

  afterAll(async () => {
    await s?.close();
  });

  it.each(["modern", "legacy"] as HostEra[])(
    "a %s host hears prompts and resources list_changed",
    async (era) => {
      let prompts = 0;
      let resources = 0;
      const host = await httpHost(served.url!, era, {
        onPromptsChanged: () => prompts++,
        onResourcesChanged: () => resources++,
      });
      try {
        await host.listTools();
        // A modern host's subscriptions/listen stream opens in the background.
        await new Promise((r) => setTimeout(r, 300));
        await host.callTool({ name: "mcp__conf__test_trigger_prompt_change", arguments: {} });
        await waitFor(() => prompts > 0, 10_000);
        expect(resources).toBe(0);
        await host.callTool({ name: "mcp__conf__test_trigger_resource_change", arguments: {} });
        await waitFor(() => resources > 0, 10_000);
      } finally {
        await closeHost(host);
      }
    },
  );

  it.each(["modern", "legacy"] as HostEra[])(
    "a %s host answers the upstream's sampling request",
    async (era) => {
      const asked: Array<Record<string, unknown>> = [];
      const host = await httpHost(served.url!, era, {
        sample: (params) => {
          asked.push(params);
          return { role: "assistant", content: { type: "text", text: "Paris" }, model: "test-model" };
        },
      });
      try {
        const r = await host.callTool({
          name: "mcp__input__ask_sampling",
          arguments: { prompt: "Capital of France?" },
        });
        expect(asked).toHaveLength(1);
        expect(JSON.stringify(asked[0]!.messages)).toContain("Capital of France?");
        expect(textOf(r)).toBe("Paris");
      } finally {
        await closeHost(host);
      }
    },
  );

  it("a host without sampling gets nothing forwarded: the call fails, nothing asked", async () => {
    const host = await httpHost(served.url!, "modern");
    try {
      const r = await host.callTool({ name: "mcp__input__ask_sampling", arguments: { prompt: "x" } });
      expect(r.isError).toBe(true);
    } finally {
      await closeHost(host);
    }
  });
});
