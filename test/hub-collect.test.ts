// A closed hub is garbage at once: nothing it owned (a server's slot, a listener, a timer, the
// closed error its clients keep) holds it after close() resolves. Its clients may linger a while
// on their own timers (the client's concern); the hub and its slots must not linger with them.
import { setImmediate as turn } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { Hub, type HubServerConfig } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { silentLogger } from "./support/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const TOOLS_SERVER = new URL("../bench/tools-server.mjs", import.meta.url).pathname;

/** Whether `ref`'s target is collected within a few turns (no waiting for any timer). */
async function collectedAtOnce(ref: WeakRef<object>): Promise<boolean> {
  for (let i = 0; i < 10; i++) {
    // Each turn first: a WeakRef's target is kept until the job that read it ends.
    await turn();
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

/** A hub used (ready, listed, called) and closed; only a WeakRef to it leaves this function. */
async function usedAndClosed(protocol: "legacy" | "modern" | "auto"): Promise<WeakRef<Hub>> {
  const logger = silentLogger();
  const servers: Record<string, HubServerConfig> = {
    stdio: {
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [TOOLS_SERVER, "--tools", "5"],
        stderr: "discard",
      },
    },
  };
  for (let i = 0; i < 3; i++) {
    const server = new FakeServer().tool("echo", { type: "object" }, () => "x");
    servers[`mem${i}`] = { transport: { type: "in-process", server } };
  }
  const hub = new Hub({ servers, logger, clientOptions: { logger, protocol } });
  hub.onToolsChanged(() => {});
  await hub.ready({ timeout: 30_000 });
  expect((await hub.listTools()).length).toBeGreaterThanOrEqual(8);
  await hub.callTool("mcp__mem0__echo", {});
  await hub.callTool("mcp__stdio__echo", { message: "hi" });
  await hub.close();
  return new WeakRef(hub);
}

describe("a closed hub", () => {
  it.each(["legacy", "modern", "auto"] as const)(
    "is collectable at once (%s)",
    async (protocol) => {
      const ref = await usedAndClosed(protocol);
      expect(await collectedAtOnce(ref)).toBe(true);
    },
    60_000,
  );

  it("the check sees a hub that is still referenced", async () => {
    const hub = new Hub({ servers: {} });
    const ref = new WeakRef(hub);
    await hub.close();
    expect(await collectedAtOnce(ref)).toBe(false);
    expect(hub.serverIds()).toEqual([]);
  });
});
