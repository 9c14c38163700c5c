// serve's fast path for tools/call over HTTP (src/serve/http-fast.ts, fast-call.ts), driven with
// raw frames against the official server fixture: ids of every JSON type, error frames, a
// caller's view and policy applied as on the SDK path, cancellation both eras, and whatever the
// fast path does not take (bad ids, batches, malformed JSON, progress) still answered by the SDK
// path with a JSON-RPC answer, the server alive after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import type { AuditEntry } from "../src/serve/audit.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { officialServer, silentLogger, waitFor } from "./support/index.js";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789ab";
const MODERN = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

describe("serve's fast path for tools/call over HTTP", () => {
  let upstream: Client;
  let served: ServeHandle;
  const audit: AuditEntry[] = [];
  const logger = silentLogger();

  beforeAll(async () => {
    upstream = new Client({ name: "up", transport: officialServer("dual"), logger });
    await upstream.ready();
    served = await serve(upstream, {
      transport: { type: "http", port: 0 },
      callers: [
        { token: ALICE, principal: "alice" },
        { token: BOB, principal: "bob", deny: ["fail"] },
      ],
      policy: { policy: [{ tool: "add", decision: "deny", reason: "no sums" }] },
      audit: (e) => audit.push(e),
      logger,
    });
  }, 30_000);

  afterAll(async () => {
    await served?.close();
    await upstream?.close();
  });

  const post = (
    body: unknown,
    o: { token?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
  ) =>
    fetch(served.url!, {
      method: "POST",
      headers: {
        accept: "application/json, text/event-stream",
        "content-type": "application/json",
        authorization: `Bearer ${o.token ?? ALICE}`,
        ...o.headers,
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
      ...(o.signal ? { signal: o.signal } : {}),
    });
  const modern = (id: unknown, name: string, args: unknown = {}, token?: string) =>
    post(
      { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: envelope } },
      { token, headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": name } },
    );
  /** The JSON-RPC frame of an answer, JSON or an event stream's last message. */
  const frameOf = async (res: Response) => {
    const text = await res.text();
    if (!(res.headers.get("content-type") ?? "").includes("event-stream")) return JSON.parse(text);
    const data = text.split("\n").filter((l) => l.startsWith("data: "));
    return JSON.parse(data.at(-1)!.slice(6));
  };

  async function session(
    token = ALICE,
  ): Promise<((body: unknown, signal?: AbortSignal) => Promise<Response>) & { sid: string }> {
    const init = await post(
      {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      },
      { token },
    );
    expect(init.status).toBe(200);
    const sid = init.headers.get("mcp-session-id")!;
    await init.text();
    const send = (body: unknown, signal?: AbortSignal) =>
      post(body, { token, headers: { "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" }, signal });
    expect((await send({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    return Object.assign(send, { sid });
  }

  it("answers a 2026-07-28 call with plain JSON, echoing ids of every JSON-RPC type", async () => {
    for (const id of [1, 0, -7, 2 ** 40, "a", "", "ü-id"]) {
      const res = await modern(id, "echo", { message: `m${String(id)}` });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      const frame = await frameOf(res);
      expect(frame).toMatchObject({ jsonrpc: "2.0", id, result: { resultType: "complete", isError: false } });
      expect(frame.result.content[0].text).toBe(`m${String(id)}`);
      expect(frame.result._meta["io.modelcontextprotocol/serverInfo"]).toBeDefined();
    }
  });

  it("gives the SDK path what the fast path does not take: bad ids, a missing envelope, malformed JSON", async () => {
    for (const id of [null, 1.5, true, { a: 1 }]) {
      const frame = await frameOf(await modern(id, "echo", { message: "x" }));
      expect(frame.error?.code, `id ${JSON.stringify(id)}`).toBeTypeOf("number");
      expect(frame.result).toBeUndefined();
    }
    const noEnvelope = await post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo" } });
    expect((await frameOf(noEnvelope)).error).toBeDefined();
    const bad = await post('{"jsonrpc":"2.0","id":1,"method":"tools/call",');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/Parse error/);
    // Still serving.
    expect((await frameOf(await modern(9, "echo", { message: "alive" }))).result.content[0].text).toBe(
      "alive",
    );
  });

  it("applies the caller's view and the policy as the SDK path does, with one audit line each", async () => {
    audit.length = 0;
    const unknown = await frameOf(await modern(11, "nothing-here"));
    expect(unknown).toMatchObject({ id: 11, error: { code: -32602 } });
    const hidden = await frameOf(await modern(12, "fail", {}, BOB));
    expect(hidden).toMatchObject({ id: 12, error: { code: -32602 } });
    const denied = await frameOf(await modern(13, "add", { a: 1, b: 2 }));
    expect(denied.result.isError).toBe(true);
    expect(denied.result.content[0].text).toMatch(/no sums/);
    const failed = await frameOf(await modern(14, "fail", {}));
    expect(failed.result.isError).toBe(true);
    expect(audit.map((e) => [e.principal, e.tool, e.decision, e.outcome])).toEqual([
      ["alice", "nothing-here", "allow", "not_found"],
      ["bob", "fail", "allow", "not_found"],
      ["alice", "add", "deny", "denied"],
      ["alice", "fail", "allow", "tool_error"],
    ]);
  });

  it("answers a 2025 session's call as JSON with its session id; another caller gets 404", async () => {
    const send = await session();
    for (const id of [3, "three"]) {
      const res = await send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "echo", arguments: { message: "hi" } },
      });
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("mcp-session-id")).toBeTruthy();
      const frame = await frameOf(res);
      expect(frame).toEqual({ jsonrpc: "2.0", id, result: expect.objectContaining({ isError: false }) });
      expect(frame.result.resultType).toBeUndefined();
    }
    const err = await frameOf(
      await send({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "nope" } }),
    );
    expect(err).toMatchObject({ id: 4, error: { code: -32602 } });
    // A batch is the SDK's to answer (or refuse) as before.
    const batch = await send([
      { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "echo", arguments: { message: "b" } } },
    ]);
    expect(batch.status).toBeLessThan(500);
    await batch.text();
    const foreign = await post(
      { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "echo", arguments: { message: "x" } } },
      { token: BOB, headers: { "mcp-session-id": send.sid } },
    );
    expect(foreign.status).toBe(404);
  });

  it("cancels a 2025 call on notifications/cancelled and a 2026-07-28 call when the host goes away", async () => {
    const send = await session();
    audit.length = 0;
    const slow = { name: "slow", arguments: { steps: 50, every: 100 } };
    const started = Date.now();
    const pending = send({ jsonrpc: "2.0", id: "slow-1", method: "tools/call", params: slow });
    await new Promise((r) => setTimeout(r, 300));
    const cancel = await send({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "slow-1" },
    });
    expect(cancel.status).toBe(202);
    const res = await pending;
    expect(await res.text()).not.toContain('"result"');
    await waitFor(() => audit.length === 1, 5_000);
    expect(audit[0]).toMatchObject({ tool: "slow", principal: "alice" });
    expect(audit[0]!.outcome).not.toBe("ok");
    expect(Date.now() - started).toBeLessThan(4_000);

    const controller = new AbortController();
    const gone = post(
      { jsonrpc: "2.0", id: 21, method: "tools/call", params: { ...slow, _meta: envelope } },
      {
        headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "slow" },
        signal: controller.signal,
      },
    ).catch(() => null);
    await new Promise((r) => setTimeout(r, 300));
    controller.abort();
    await gone;
    await waitFor(() => audit.length === 2, 5_000);
    expect(audit[1]!.outcome).not.toBe("ok");
  });

  it("leaves a call with a progress token to the SDK path, which streams the progress", async () => {
    const res = await post(
      {
        jsonrpc: "2.0",
        id: 31,
        method: "tools/call",
        params: {
          name: "slow",
          arguments: { steps: 2, every: 10 },
          _meta: { ...envelope, progressToken: "p" },
        },
      },
      { headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "slow" } },
    );
    const text = await res.text();
    expect(text).toContain("notifications/progress");
    expect(text).toContain('"id":31');
  });
});
