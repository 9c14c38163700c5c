/**
 * Hostile answers to what the client POSTs without waiting for a response (notifications, its
 * answers to server requests): the spec wants a bare 202, a hostile server answers 200 with an
 * event stream it keeps open, or a JSON body it never sends. Each such answer held a pooled
 * connection for good, so a few server pings took the whole pool: later calls waited until their
 * deadline and close() waited for the DELETE's `requestTimeout`. A 4xx whose error body never came
 * held the send itself, where no deadline runs.
 */
import type { ServerResponse } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import {
  result,
  type ScriptedHttpServer,
  type SeenRequest,
  sse,
  startScripted,
} from "./support/http-scripted.js";
import { scriptedSuite } from "./support/http-suite.js";

let server: ScriptedHttpServer;
const { clients, expectWorking } = scriptedSuite("hostile-http-one-way", () => server);

/** A POST carrying our answer to a server request (an id and no method). */
const isAnswer = (req: SeenRequest) =>
  req.method === "POST" && req.body !== undefined && req.body.method === undefined && "id" in req.body;

describe("answers to one-way POSTs that never end (legacy)", () => {
  const held: ServerResponse[] = [];
  beforeEach(async () => {
    held.length = 0;
    server = await startScripted({ era: "legacy" });
  });

  it("an open, silent event stream: destroyed at once, the pool stays free", async () => {
    server.on((req, res) => {
      if (!isAnswer(req)) return false;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      held.push(res);
      return true;
    });
    const c = clients.create(server.url, { poolSize: 3, requestTimeout: 30_000 }, { requestTimeout: 5_000 });
    await expectWorking(c);
    for (let i = 0; i < 20; i++) server.push({ jsonrpc: "2.0", id: `ping-${i}`, method: "ping" });
    await expect.poll(() => held.length, { timeout: 5_000 }).toBe(20);
    const t0 = Date.now();
    await expectWorking(c);
    expect(Date.now() - t0).toBeLessThan(1_000);
    const t1 = Date.now();
    await c.close();
    expect(Date.now() - t1).toBeLessThan(2_000);
  });

  it.each([200, 400])(
    "a %i with a JSON body announced and never sent: given up after a second, the pool frees",
    async (status) => {
      server.on((req, res) => {
        if (!isAnswer(req)) return false;
        res.writeHead(status, { "content-type": "application/json", "content-length": "100" });
        res.flushHeaders();
        held.push(res);
        return true;
      });
      const c = clients.create(
        server.url,
        { poolSize: 3, requestTimeout: 30_000 },
        { requestTimeout: 8_000 },
      );
      await expectWorking(c);
      for (let i = 0; i < 4; i++) server.push({ jsonrpc: "2.0", id: `ping-${i}`, method: "ping" });
      await expect.poll(() => held.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
      const t0 = Date.now();
      await expectWorking(c);
      // Four answers on two free connections, a second each at most, then the call.
      expect(Date.now() - t0).toBeLessThan(4_000);
      expect(held.length).toBe(4);
      const t1 = Date.now();
      await c.close();
      expect(Date.now() - t1).toBeLessThan(2_000);
    },
  );
});

describe("HTTP+SSE (2024-11-05): every POST is one-way", () => {
  it("POSTs answered with an open event stream: each destroyed at once, ten calls on a pool of three", async () => {
    server = await startScripted();
    let stream: ServerResponse | undefined;
    const held: ServerResponse[] = [];
    server.on((req, res) => {
      if (req.method === "GET") {
        stream = res;
        sse(res, [{ event: "endpoint", data: "/messages?session=abc" }], { keepOpen: true });
        return true;
      }
      if (!req.path.startsWith("/messages")) return false;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      held.push(res);
      const body = req.body as { id?: unknown; method?: string };
      if (body.id === undefined) return true;
      const answer =
        body.method === "initialize"
          ? {
              protocolVersion: "2024-11-05",
              capabilities: { tools: {} },
              serverInfo: { name: "sse", version: "1" },
            }
          : body.method === "tools/list"
            ? { tools: [{ name: "echo", inputSchema: { type: "object" } }] }
            : { content: [{ type: "text", text: "ok" }] };
      stream?.write(`event: message\ndata: ${JSON.stringify(result(body.id, answer))}\n\n`);
      return true;
    });
    const c = clients.create(
      server.url,
      { legacySse: "only", poolSize: 3 },
      { protocol: "legacy", requestTimeout: 5_000 },
    );
    for (let i = 0; i < 10; i++) {
      expect((await c.callTool("echo", {})).content).toEqual([{ type: "text", text: "ok" }]);
    }
    expect(held.length).toBeGreaterThanOrEqual(12);
    for (const r of held) r.destroy();
  });
});
