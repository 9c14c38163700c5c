// serve's guards over HTTP, with the official client as the host: hostile callers (no or a wrong
// token, a foreign Host or Origin, an oversized body, a flood of sessions, a tool outside the
// caller's view named exactly) are refused and nothing reaches the upstream; governance in front
// of every call (a denied call, an `ask` put to the host as an elicitation in both eras, refused
// when the host cannot be asked); one audit line per call.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { officialServer, silentLogger, waitFor } from "./support/index.js";
import { httpHost, textOf } from "./support/serve.js";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-0123456789abcdef";

function raw(
  url: string,
  o: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; session: string | undefined }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: o.method ?? "POST",
        headers: o.headers ?? {},
      },
      (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            session: res.headers["mcp-session-id"] as string | undefined,
          }),
        );
      },
    );
    req.on("error", reject);
    if (o.body) req.write(o.body);
    req.end();
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
});
const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("serve's guards", () => {
  let hub: Hub;
  let served: ServeHandle;
  let dir: string;
  let upstreamCalls = 0;
  const logger = silentLogger();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "serve-guard-"));
    hub = new Hub({
      logger,
      clientOptions: { logger },
      servers: { official: { transport: officialServer("dual") } },
      // Counts what reaches the upstream.
      interceptors: [
        (next) => (call) => {
          upstreamCalls++;
          return next(call);
        },
      ],
    });
    await hub.ready({ timeout: 20_000 });
    served = await serve(hub, {
      transport: { type: "http", port: 0 },
      logger,
      callers: [
        { token: ALICE, principal: "alice", allow: ["mcp__official__*"] },
        { token: BOB, principal: "bob", deny: ["mcp__official__add", "mcp__official__slow"] },
      ],
      policy: {
        policy: [
          { server: "official", tool: "add", decision: "ask" },
          { tool: "fail", decision: "deny", reason: "not today" },
        ],
      },
      audit: join(dir, "audit.jsonl"),
      limits: { maxBodyBytes: 10_000, maxSessions: 4 },
    });
  }, 30_000);

  afterAll(async () => {
    await served?.close();
    await hub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers 401 without a token or with a wrong one, 403 to a foreign Host or Origin", async () => {
    const url = served.url!;
    expect((await raw(url, { headers: json, body: INIT })).status).toBe(401);
    const wrong = { ...json, authorization: "Bearer not-a-caller-token-at-all" };
    expect((await raw(url, { headers: wrong, body: INIT })).status).toBe(401);
    const auth = { ...json, authorization: `Bearer ${ALICE}` };
    expect((await raw(url, { headers: { ...auth, host: "evil.example:80" }, body: INIT })).status).toBe(403);
    expect(
      (await raw(url, { headers: { ...auth, origin: "https://evil.example" }, body: INIT })).status,
    ).toBe(403);
    expect((await raw(url.replace("/mcp", "/other"), { headers: auth, body: INIT })).status).toBe(404);
    // A loopback Origin at this server's port is the host's own.
    const ok = await raw(url, {
      headers: { ...auth, origin: `http://localhost:${new URL(url).port}` },
      body: INIT,
    });
    expect(ok.status).toBe(200);
    await raw(url, { method: "DELETE", headers: { ...auth, "mcp-session-id": ok.session! } });
    expect(served.sessions()).toBe(0);
  });

  it("refuses an oversized body with 413 and a flood of sessions with 503", async () => {
    const auth = { ...json, authorization: `Bearer ${ALICE}` };
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(20_000) },
    });
    expect((await raw(served.url!, { headers: auth, body: big })).status).toBe(413);
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await raw(served.url!, { headers: auth, body: INIT }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 503, 503, 503, 503]);
    expect(served.sessions()).toBe(4);
    // Another caller cannot end them; their owner can.
    const bob = { ...json, authorization: `Bearer ${BOB}` };
    const sid = answers[0]!.session!;
    expect(
      (await raw(served.url!, { method: "DELETE", headers: { ...bob, "mcp-session-id": sid } })).status,
    ).toBe(404);
    for (const a of answers.slice(0, 4)) {
      await raw(served.url!, { method: "DELETE", headers: { ...auth, "mcp-session-id": a.session! } });
    }
    expect(served.sessions()).toBe(0);
    expect(upstreamCalls).toBe(0);
  });

  it("a tool outside a caller's view is neither listed nor callable, and nothing goes upstream", async () => {
    const bob = await httpHost(served.url!, "legacy", { token: BOB });
    try {
      const names = (await bob.listTools()).tools.map((t) => t.name);
      expect(names).toContain("mcp__official__echo");
      expect(names).not.toContain("mcp__official__add");
      const before = upstreamCalls;
      await expect(bob.callTool({ name: "mcp__official__add", arguments: { a: 1, b: 2 } })).rejects.toThrow();
      expect(upstreamCalls).toBe(before);
      const echo = await bob.callTool({ name: "mcp__official__echo", arguments: { message: "yo" } });
      expect(textOf(echo)).toBe("yo");
      expect(upstreamCalls).toBe(before + 1);
    } finally {
      await bob.close();
    }
  });

  it.each(["modern", "legacy"] as const)(
    "puts an ask to a %s host as an elicitation; denies what policy denies",
    async (era) => {
      const asked: Array<Record<string, unknown>> = [];
      const alice = await httpHost(served.url!, era, {
        token: ALICE,
        elicit: (params) => {
          asked.push(params);
          return { action: "accept", content: { allow: true } };
        },
      });
      try {
        const before = upstreamCalls;
        const r = await alice.callTool({ name: "mcp__official__add", arguments: { a: 20, b: 22 } });
        expect(r.structuredContent).toEqual({ sum: 42 });
        expect(asked).toHaveLength(1);
        expect(String(asked[0]!.message)).toContain("mcp__official__add");
        const denied = await alice.callTool({ name: "mcp__official__fail", arguments: {} });
        expect(denied.isError).toBe(true);
        expect(textOf(denied)).toContain("not today");
        expect(upstreamCalls).toBe(before + 1);
      } finally {
        await alice.close();
      }
      const declining = await httpHost(served.url!, era, {
        token: ALICE,
        elicit: () => ({ action: "decline" }),
      });
      const mute = await httpHost(served.url!, era, { token: ALICE });
      try {
        const before = upstreamCalls;
        expect(
          (await declining.callTool({ name: "mcp__official__add", arguments: { a: 1, b: 1 } })).isError,
        ).toBe(true);
        // No elicitation capability: the ask is refused, never silently allowed.
        const r = await mute.callTool({ name: "mcp__official__add", arguments: { a: 1, b: 1 } });
        expect(r.isError).toBe(true);
        expect(upstreamCalls).toBe(before);
      } finally {
        await declining.close();
        await mute.close();
      }
    },
  );

  it("writes one audit line per call", async () => {
    const file = join(dir, "audit.jsonl");
    await waitFor(() => readFileSync(file, "utf8").trim().split("\n").length >= 8);
    const lines = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    for (const l of lines) {
      expect(Object.keys(l).sort()).toEqual([
        "decision",
        "durationMs",
        "outcome",
        "principal",
        "server",
        "time",
        "tool",
      ]);
    }
    expect(lines).toContainEqual(
      expect.objectContaining({
        principal: "bob",
        tool: "mcp__official__add",
        outcome: "not_found",
        server: null,
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({
        principal: "alice",
        server: "official",
        tool: "add",
        decision: "ask",
        outcome: "ok",
      }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ principal: "alice", tool: "fail", decision: "deny", outcome: "denied" }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ principal: "bob", tool: "echo", decision: "allow", outcome: "ok" }),
    );
  });

  it("refuses to bind beyond loopback without callers", async () => {
    await expect(serve(hub, { transport: { type: "http", host: "0.0.0.0", port: 0 } })).rejects.toThrow(
      /callers/,
    );
  });
});
