/**
 * Responses and values a hostile HTTP server sends that must be refused, not trusted (issue 9),
 * in both eras: malformed responses, `Retry-After` nonsense, credentials echoed back into what
 * an error keeps. Each with its typed error, and a client that keeps working.
 */
import type http from "node:http";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { McpClientError } from "../src/index.js";
import { httpTestClients } from "./support/http-clients.js";
import {
  json,
  type ScriptedHttpServer,
  type SeenRequest,
  sse,
  startScripted,
} from "./support/http-scripted.js";

const clients = httpTestClients("http-hostile");
let server: ScriptedHttpServer;

afterEach(async () => {
  await clients.closeAll();
  await server?.close();
});
afterAll(() => {
  clients.assertNoLeak();
  clients.events.stop();
});

const ERAS = ["modern", "legacy"] as const;

function onRpc(method: string, answer: (req: SeenRequest, res: http.ServerResponse) => void, times = 1) {
  let left = times;
  return (req: SeenRequest, res: http.ServerResponse) => {
    if (req.rpc !== method || left <= 0) return false;
    left -= 1;
    answer(req, res);
    return true;
  };
}

async function rejection(p: Promise<unknown>): Promise<McpClientError> {
  const err = await p.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e) => e,
  );
  clients.seen(err);
  expect(err).toBeInstanceOf(McpClientError);
  return err as McpClientError;
}

async function readyClient(era: "modern" | "legacy", options = {}) {
  server = await startScripted({ era });
  const c = clients.create(server.url, {}, { requestTimeout: 60_000, ...options });
  await c.ready();
  return c;
}

async function expectWorking(c: ReturnType<typeof clients.create>): Promise<void> {
  const r = await c.callTool("echo", { message: "still working" });
  expect(r.structured).toMatchObject({ arguments: { message: "still working" } });
}

describe.each(ERAS)("malformed responses over HTTP (%s)", (era) => {
  const bodies: Array<[string, (id: unknown) => unknown]> = [
    [
      "both result and error",
      (id) => ({ jsonrpc: "2.0", id, result: { content: [] }, error: { code: 1, message: "x" } }),
    ],
    ["error.code not an integer", (id) => ({ jsonrpc: "2.0", id, error: { code: "-32000", message: "x" } })],
    ["result: null", (id) => ({ jsonrpc: "2.0", id, result: null })],
  ];
  it.each(bodies)("%s, as a JSON body: protocol / malformed_response at once", async (_n, body) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", (req, res) => json(res, 200, body(req.body?.id))));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "protocol", reason: "malformed_response" });
    await expectWorking(c);
  });

  it.each(bodies)("%s, on an event stream: protocol / malformed_response at once", async (_n, body) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", (req, res) => sse(res, [{ data: body(req.body?.id) }])));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "protocol", reason: "malformed_response" });
    await expectWorking(c);
  });
});

describe.each(ERAS)("Retry-After (%s)", (era) => {
  const cases: Array<[string, number | null]> = [
    ["-1", null],
    ["+5", null],
    ["1.5", null],
    ["12345678901234567890123", Number.MAX_SAFE_INTEGER],
    ["0", 0],
    ["7", 7],
  ];
  it.each(cases)("Retry-After: %s gives retryAfter %s", async (header, expected) => {
    const c = await readyClient(era);
    server.on(onRpc("tools/call", (_req, res) => json(res, 429, undefined, { "retry-after": header })));
    const err = await rejection(c.callTool("echo", {}));
    expect(err).toMatchObject({ kind: "rate_limited", data: { status: 429, retryAfter: expected } });
    await expectWorking(c);
  });
});
