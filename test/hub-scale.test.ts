// A hub as it grows: bounded start concurrency (how many stdio servers are starting at once, read
// from the servers' own start logs) and a list_changed on one of twelve real servers re-listing
// that server only (tools/list requests counted on each server's wire).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Hub, type StdioTransportOptions } from "../src/index.js";
import { silentLogger, waitFor } from "./support/index.js";
import { WireTap } from "./support/wire-tap.js";

const TOOLS_SERVER = fileURLToPath(new URL("../bench/tools-server.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "hub-scale-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function toolsServer(args: string[]): StdioTransportOptions {
  return { type: "stdio", command: process.execPath, args: [TOOLS_SERVER, ...args], stderr: "discard" };
}

/** The most servers that were between their start and serving at one moment, from the log. */
function mostStartingAtOnce(log: string): number {
  const edges = readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(" "))
    .map(([what, , t]) => ({ t: Number(t), step: what === "start" ? 1 : -1 }))
    .sort((a, b) => a.t - b.t || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const e of edges) {
    now += e.step;
    most = Math.max(most, now);
  }
  return most;
}

/** Twelve slow-starting servers behind one hub; the most that were starting at once. */
async function startTwelve(name: string, delayMs: number, startConcurrency?: number): Promise<number> {
  const log = join(dir, `${name}.log`);
  const servers = Object.fromEntries(
    Array.from({ length: 12 }, (_, i) => [
      `s${i}`,
      { transport: toolsServer(["--tools", "5", "--start-delay", String(delayMs), "--start-log", log]) },
    ]),
  );
  const logger = silentLogger();
  const hub = new Hub({
    servers,
    logger,
    clientOptions: { logger },
    ...(startConcurrency ? { startConcurrency } : {}),
  });
  try {
    const status = await hub.ready({ timeout: 60_000 });
    expect(Object.values(status.servers).map((s) => s.state)).toEqual(Array(12).fill("ready"));
    expect(readFileSync(log, "utf8").match(/^up /gm)).toHaveLength(12);
    return mostStartingAtOnce(log);
  } finally {
    await hub.close();
  }
}

describe("start concurrency", () => {
  it("is validated like the other hub options", () => {
    for (const bad of [0, 1.5, "3", -1]) {
      expect(() => new Hub({ servers: {}, startConcurrency: bad as number })).toThrow(
        /option "startConcurrency" must be an integer >= 1/,
      );
    }
  });

  it("starts at most startConcurrency stdio servers at once; the others wait to be spawned", async () => {
    expect(await startTwelve("bounded", 300, 3)).toBeLessThanOrEqual(3);
  }, 90_000);

  it("the count sees servers starting together when the bound allows it", async () => {
    // The same count, the bound at twelve: slow starts overlap, so the bound above is what held.
    expect(await startTwelve("open", 1_500, 12)).toBeGreaterThan(3);
  }, 90_000);

  it("a hub closed while servers wait their turn spawns none of them, and closes at once", async () => {
    const log = join(dir, "closed.log");
    const servers = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [
        `s${i}`,
        {
          // A server in its start delay does not read stdin: stopped after a short grace.
          transport: {
            ...toolsServer(["--tools", "5", "--start-delay", "2000", "--start-log", log]),
            stdinGrace: 100,
          },
        },
      ]),
    );
    const logger = silentLogger();
    const hub = new Hub({ servers, logger, clientOptions: { logger }, startConcurrency: 2 });
    await waitFor(
      () => existsSync(log) && readFileSync(log, "utf8").match(/^start /gm)?.length === 2,
      "two starts",
    );
    const began = Date.now();
    await hub.close();
    // The two started are stopped in their start delay; the four waiting never run.
    expect(Date.now() - began).toBeLessThan(1_500);
    await new Promise((r) => setTimeout(r, 1_000));
    expect(readFileSync(log, "utf8").match(/^start /gm)).toHaveLength(2);
    expect(readFileSync(log, "utf8").match(/^up /gm)).toBeNull();
  }, 30_000);
});

describe("list_changed in a hub of twelve servers", () => {
  it("re-lists the server that changed, and only it", async () => {
    const taps = Array.from({ length: 12 }, () => new WireTap(toolsServer(["--tools", "20"])));
    const logger = silentLogger();
    const hub = new Hub({
      servers: Object.fromEntries(taps.map((t, i) => [`s${i}`, { transport: t }])),
      logger,
      // Legacy: the era whose notifications arrive unasked (docs/hub.md#listing).
      clientOptions: { logger, protocol: "legacy" },
    });
    try {
      await hub.ready({ timeout: 60_000 });
      expect(await hub.listTools()).toHaveLength(12 * 20);
      const lists = () => taps.map((t) => t.sentWith("tools/list").length);
      expect(lists()).toEqual(Array(12).fill(1));

      const heard: string[] = [];
      hub.onToolsChanged((c) => heard.push(`${c.serverId}:${c.reason}`));
      await hub.callTool("mcp__s7__add_tool", { name: "fresh" });
      await waitFor(() => heard.includes("s7:list_changed"), "s7's list_changed");

      const names = (await hub.listTools()).map((t) => t.name);
      expect(names).toContain("mcp__s7__fresh");
      expect(names).toHaveLength(12 * 20 + 1);
      expect(lists()).toEqual(taps.map((_, i) => (i === 7 ? 2 : 1)));
      // And a listing with nothing changed asks nobody.
      await hub.listTools();
      expect(lists()).toEqual(taps.map((_, i) => (i === 7 ? 2 : 1)));
    } finally {
      await hub.close();
    }
  }, 90_000);
});
