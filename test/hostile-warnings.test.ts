/**
 * A server that makes the client warn once per message it sends (requests a modern server may
 * not send, requests for a capability the client did not declare, events that are not JSON)
 * wrote to the application's log at the speed of its own output: 3 000 messages, 3 000 lines.
 * The warnings are bounded per client (a burst of 100, then 10 a second) and one line says how
 * many were left out; the client keeps working.
 */
import { afterEach, describe, expect, it } from "vitest";
import { WARN_LIMIT } from "../src/client/warn-limit.js";
import { type ScriptedHttpServer, sse, startScripted } from "./support/http-scripted.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";
import { silentLogger } from "./support/logger.js";
import { closeAll, scriptedClient } from "./support/scripted.js";

const FLOOD = 3_000;
const OK = `{"jsonrpc":"2.0","id":"$ID","result":{"content":[{"type":"text","text":"ok"}]}}`;
const requests = (method: string) =>
  Array.from({ length: FLOOD }, (_, i) =>
    JSON.stringify({ jsonrpc: "2.0", id: `s${i}`, method, params: {} }),
  );

afterEach(closeAll);

describe("a flood of messages that each cost a warning (stdio)", () => {
  it.each([
    ["modern", "roots/list", "dropped a request from a modern server"],
    ["legacy", "sampling/createMessage", "refused sampling/createMessage"],
  ] as const)("%s: %s requests", async (era, method, text) => {
    const logger = silentLogger();
    const c = scriptedClient({ era }, { logger, protocol: era === "modern" ? "2026-07-28" : "2025-11-25" });
    await c.ready();
    const r = await c.callTool("raw", { before: requests(method), line: OK });
    expect(r.content).toEqual([{ type: "text", text: "ok" }]);
    const flooded = () => logger.warnings.filter((w) => w.includes(text)).length;
    const left = () =>
      logger.warnings
        .filter((w) => w.startsWith("left out"))
        .reduce((n, w) => n + Number(/^left out (\d+) more warnings/.exec(w)![1]), 0);
    // Within a second of the flood, a line (one a second at most) counts what was left out.
    await expect.poll(() => flooded() + left(), { timeout: 5_000 }).toBe(FLOOD);
    expect(flooded()).toBeGreaterThanOrEqual(1);
    expect(logger.warnings.length).toBeLessThanOrEqual(WARN_LIMIT.burst + 10);
    // Later warnings are logged again.
    const before = logger.warnings.length;
    await c.callTool("raw", { before: requests(method).slice(0, 1), line: OK });
    expect(logger.warnings.slice(before).some((w) => w.includes(text))).toBe(true);
  });

  it("close() says what was left out at once: no summary timer outlives the client", async () => {
    const logger = silentLogger();
    const c = scriptedClient({ era: "modern" }, { logger, protocol: "2026-07-28" });
    await c.ready();
    await c.callTool("raw", { before: requests("roots/list"), line: OK });
    const counted = () =>
      logger.warnings
        .filter((w) => w.startsWith("left out"))
        .reduce((n, w) => n + Number(/^left out (\d+) more warnings/.exec(w)![1]), 0);
    const flooded = () => logger.warnings.filter((w) => w.includes("dropped a request")).length;
    await c.close();
    // Everything is accounted for as close() returns, not a second later.
    expect(flooded() + counted()).toBe(FLOOD);
  });
});

let server: ScriptedHttpServer;
const { clients, expectWorking } = scriptedSuite("hostile-warnings", () => server);

describe("a flood of events that are not JSON (HTTP)", () => {
  it("on a call's event stream, then the response", async () => {
    server = await startScripted();
    server.on(
      onRpc(
        "tools/call",
        (req, res) =>
          sse(res, [
            ...Array.from({ length: FLOOD }, () => ({ data: "not json" })),
            { data: { jsonrpc: "2.0", id: req.body!.id, result: { content: [] } } },
          ]),
        1,
      ),
    );
    const c = clients.create(server.url);
    await c.ready();
    const started = Date.now();
    await c.callTool("echo", {});
    const seconds = (Date.now() - started) / 1000;
    const logger = clients.loggers.at(-1)!;
    expect(logger.warnings.filter((w) => w.includes("not JSON")).length).toBeGreaterThanOrEqual(1);
    // The burst, then the refill over the time the flood took (a loaded machine reads it slower),
    // and a summary line a second.
    expect(logger.warnings.length).toBeLessThanOrEqual(
      WARN_LIMIT.burst + 2 + Math.ceil(seconds * (WARN_LIMIT.perSecond + 1)),
    );
    await expectWorking(c);
  });
});
