/**
 * Event ids a `Last-Event-ID` header cannot carry. A legacy stream that ended early after such
 * an id was resumed with it anyway: a control character or a character past ASCII failed the
 * request as a `network_error` (or was sent mangled), and an id of any length went out as a
 * header of that size. Such an id now counts as none: the request fails at once with
 * `stream_ended_without_response`, the standalone stream is reopened without the header.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { type ScriptedHttpServer, sse, sseFrame, startScripted } from "./support/http-scripted.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";

let server: ScriptedHttpServer;
const { clients, expectWorking, rejection } = scriptedSuite("hostile-http-event-ids", () => server);

const LOG = { jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "x" } };
const BAD_IDS = ["\u0001bad", "caf\u00e9-1", "\u{1F600}", " padded", "x".repeat(2_000)];
const lastEventIds = () =>
  server.requests.filter((r) => r.method === "GET").map((r) => r.headers["last-event-id"]);

describe("a request's stream that ends after an id no header can carry (legacy)", () => {
  beforeEach(async () => {
    server = await startScripted({ era: "legacy" });
  });

  it.each(BAD_IDS.map((id) => [JSON.stringify(id.slice(0, 12)), id]))(
    "%s: stream_ended_without_response at once, nothing resumed",
    async (_name, id) => {
      server.on(onRpc("tools/call", (_req, res) => sse(res, [{ id, data: LOG }]), 1));
      const c = clients.create(server.url, {}, { requestTimeout: 5_000 });
      await c.ready();
      const t0 = Date.now();
      const err = await rejection(c.callTool("echo", {}));
      expect(err).toMatchObject({ kind: "transport", reason: "stream_ended_without_response" });
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(lastEventIds().every((h) => h === undefined)).toBe(true);
      await expectWorking(c);
    },
  );

  it("an id that a header can carry is still resumed with it", async () => {
    const id = "evt 42/abc";
    server.on(onRpc("tools/call", (_req, res) => sse(res, [{ id, data: LOG }]), 1));
    server.on((req, res) => {
      if (req.method !== "GET" || req.headers["last-event-id"] !== id) return false;
      const call = server.rpcs("tools/call")[0]!;
      sse(res, [{ data: { jsonrpc: "2.0", id: call.body!.id, result: { content: [] } } }]);
      return true;
    });
    const c = clients.create(server.url);
    expect((await c.callTool("echo", {})).content).toEqual([]);
    expect(lastEventIds()).toContain(id);
  });
});

describe("the standalone stream (legacy)", () => {
  it("ended after an id no header can carry: reopened without Last-Event-ID", async () => {
    server = await startScripted({ era: "legacy" });
    const c = clients.create(server.url);
    await expectWorking(c);
    await expect.poll(() => server.streams.size).toBe(1);
    const gets = lastEventIds().length;
    for (const s of server.streams) s.end(sseFrame({ id: "\u0001\u00e9", data: LOG }));
    await expect.poll(() => lastEventIds().length, { timeout: 5_000 }).toBe(gets + 1);
    expect(lastEventIds().at(-1)).toBeUndefined();
    await expect.poll(() => server.streams.size).toBe(1);
    await expectWorking(c);
  });
});
