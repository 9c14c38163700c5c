// The input options are validated in the constructor: a TypeError naming the key, before any I/O.
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ClientOptions } from "../src/index.js";
import { closeAll, scripted, structured, track } from "./support/input.js";

afterEach(closeAll);

const transport = { type: "stdio" as const, command: process.execPath, args: ["-e", ""] };

function make(extra: Record<string, unknown>): () => Client {
  return () => new Client({ name: "opts", transport, ...extra } as ClientOptions);
}

describe("input options", () => {
  it.each([
    [{ handler: 5 }, "handler"],
    [{ handler: { sampling: "yes" } }, "handler.sampling"],
    [{ handler: { elicitation: {} } }, "handler.elicitation"],
    [{ handler: { listRoots: 1 } }, "handler.listRoots"],
    [{ handler: { notification: true } }, "handler.notification"],
    [{ handler: { log: "x" } }, "handler.log"],
    [{ handler: { samplng: () => {} } }, "handler.samplng"],
    [{ handler: { elicitationModes: [] } }, "handler.elicitationModes"],
    [{ handler: { elicitationModes: ["form", "popup"] } }, "handler.elicitationModes"],
    [{ assigns: [] }, "assigns"],
    [{ handlerTimeout: { sampling: 0 } }, "handlerTimeout.sampling"],
    [{ handlerTimeout: { roots: 1.5 } }, "handlerTimeout.roots"],
    [{ handlerTimeout: { tasks: 10 } }, "handlerTimeout.tasks"],
    [{ maxServerRequests: 0 }, "maxServerRequests"],
    [{ inputRateLimit: { perSecond: 0 } }, "inputRateLimit.perSecond"],
    [{ inputRateLimit: { burst: 0.5 } }, "inputRateLimit.burst"],
    [{ sampling: { maxTokens: 0 } }, "sampling.maxTokens"],
    [{ sampling: { context: "yes" } }, "sampling.context"],
    [{ sampling: { tools: 1 } }, "sampling.tools"],
    [{ sampling: { allowIdle: null } }, "sampling.allowIdle"],
    [{ sampling: { rejectionCode: 1.5 } }, "sampling.rejectionCode"],
    [{ sampling: { temperature: 1 } }, "sampling.temperature"],
    [{ elicitation: { origin: "not a url" } }, "elicitation.origin"],
    [{ elicitation: { origin: "ftp://x" } }, "elicitation.origin"],
    [{ roots: { listChanged: "no" } }, "roots.listChanged"],
  ])("%j names %s", (extra, key) => {
    expect(make(extra)).toThrow(TypeError);
    expect(make(extra)).toThrow(`"${key}"`);
  });

  it("accepts every option at once", async () => {
    const all = make({
      handler: { listRoots: () => ({ roots: [] }) },
      assigns: { a: 1 },
      handlerTimeout: { sampling: 1, elicitation: 2, roots: 3 },
      maxServerRequests: 1,
      inputRateLimit: { perSecond: 0.5, burst: 1 },
      sampling: { maxTokens: 10, context: true, tools: true, allowIdle: true, rejectionCode: -5 },
      elicitation: { origin: "https://mcp.example.com/path" },
      roots: { listChanged: false },
    });
    expect(() => track(all())).not.toThrow(); // closed after the test
  });

  it("accepts a class instance as the handler: its method answers the server, with `this` bound", async () => {
    class Handler {
      calls = 0;
      listRoots() {
        this.calls += 1;
        return { roots: [{ uri: "file:///work", name: `call ${this.calls}` }] };
      }
    }
    const handler = new Handler();
    const c = scripted("legacy", handler);
    const { answers } = structured(await c.callTool("ask", { requests: [{ method: "roots/list" }] }));
    expect(answers).toEqual([{ result: { roots: [{ uri: "file:///work", name: "call 1" }] } }]);
    expect(handler.calls).toBe(1);
  });

  it("checks the assigns request option", async () => {
    const c = make({})();
    await expect(c.callTool("x", {}, { assigns: "nope" as never })).rejects.toThrow(/"assigns"/);
    await c.close();
  });
});
