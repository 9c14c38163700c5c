/**
 * serve's fast path for real hosts over HTTP (src/serve/fast-host.ts, http-fast.ts): a host that
 * declared elicitation (most desktop hosts) keeps the fast path, and an upstream's question during
 * the call still reaches it: a 2026-07-28 host through the `input_required` result, a 2025 host
 * through an `elicitation/create` on the POST's event stream. Progress through the fast path; a
 * host that answers an error, never answers before the deadline, or posts a response to a request
 * never sent. Hosts: the official client, both eras; upstreams on the official server SDK.
 * `fastStats` counts the fast path's calls (the SDK path answers the same, so the count is how a
 * test tells them apart).
 */
import { fileURLToPath } from "node:url";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fastStats } from "../src/serve/fast-call.js";
import { FAST_LIMITS } from "../src/serve/fast-host.js";
import { nodeServer, OFFICIAL_SERVER, waitFor } from "./support/index.js";
import { closeHost, type HostEra, httpHost, type ServedHub, serveHub, textOf } from "./support/serve.js";

const ROUNDS = fileURLToPath(new URL("./fixtures/serve-rounds-server.mjs", import.meta.url));
const INPUT = fileURLToPath(new URL("./fixtures/input-official-server.mjs", import.meta.url));
const ERAS: HostEra[] = ["modern", "legacy"];

describe("serve's fast path for hosts that can be asked (HTTP)", () => {
  let s: ServedHub;
  const audit: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    s = await serveHub(
      {
        servers: {
          modern: { transport: nodeServer(ROUNDS, ["dual"]), client: { protocol: "modern" } },
          legacy: { transport: nodeServer(ROUNDS, ["legacy"]), client: { protocol: "legacy" } },
          input: { transport: nodeServer(INPUT, ["dual"]) },
          official: { transport: nodeServer(OFFICIAL_SERVER, ["dual"]) },
        },
      },
      { audit: (e) => void audit.push(e as unknown as Record<string, unknown>) },
    );
  }, 30_000);

  afterAll(async () => {
    await s?.close();
  });

  for (const era of ERAS) {
    it(`a ${era} host with elicitation gets an upstream's question during a fast call`, async () => {
      const asked: Array<Record<string, unknown>> = [];
      const h = await httpHost(s.served.url!, era, {
        elicit: (p) => {
          asked.push(p);
          return { action: "accept", content: { name: "Ada" } };
        },
        sample: () => ({ role: "assistant", content: { type: "text", text: "x" }, model: "m" }),
      });
      try {
        const before = fastStats.calls;
        const r = await h.callTool({ name: "mcp__input__ask_form", arguments: {} });
        expect(asked).toHaveLength(1);
        expect(asked[0]).toMatchObject({ message: "Who are you?" });
        expect(r.structuredContent).toMatchObject({ action: "accept", content: { name: "Ada" } });
        // 2025: the whole call on the fast path; 2026-07-28: its first round (the retry, carrying
        // inputResponses, is the SDK's).
        expect(fastStats.calls - before).toBe(1);

        // Both eras' upstreams, with progress after the question.
        for (const up of ["modern", "legacy"]) {
          const progress: number[] = [];
          const at = fastStats.calls;
          const p = await h.callTool(
            { name: `mcp__${up}__ask_then_progress`, arguments: {} },
            { onprogress: (x) => progress.push(x.progress) },
          );
          expect(textOf(p)).toBe("hello Ada");
          // The official 2026-07-28 client hears the first of a retry's notifications twice (its
          // own round driver): compared without repeats.
          expect([...new Set(progress)]).toEqual([1, 2, 3]);
          expect(fastStats.calls - at).toBe(1);
        }
      } finally {
        await closeHost(h);
      }
    });

    it(`a ${era} host gets progress through the fast path`, async () => {
      const h = await httpHost(s.served.url!, era, {
        elicit: () => ({ action: "decline" }),
        roots: () => [{ uri: "file:///tmp/p", name: "p" }],
      });
      try {
        const seen: number[] = [];
        const before = fastStats.calls;
        const r = await h.callTool(
          { name: "mcp__official__slow", arguments: { steps: 3, every: 20 } },
          { onprogress: (p) => void seen.push(p.progress) },
        );
        expect(textOf(r)).toBe("done after 3");
        expect(seen).toEqual([1, 2, 3]);
        expect(fastStats.calls - before).toBe(1);
        // Without a message for the host on the way the answer is plain JSON, still fast.
        const sum = await h.callTool({ name: "mcp__official__add", arguments: { a: 2, b: 3 } });
        expect(sum.structuredContent).toEqual({ sum: 5 });
        expect(fastStats.calls - before).toBe(2);
      } finally {
        await closeHost(h);
      }
    });
  }

  it("a 2025 host that answers an error: the call is a tool error, the upstream request let go", async () => {
    const h = await httpHost(s.served.url!, "legacy", {
      elicit: () => {
        throw new Error("no screen here");
      },
    });
    try {
      const r = await h.callTool({ name: "mcp__input__ask_form", arguments: {} });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/Fulfilling input required by 'tools\/call' failed/);
      const again = await h.callTool({ name: "mcp__official__add", arguments: { a: 1, b: 1 } });
      expect(again.structuredContent).toEqual({ sum: 2 });
    } finally {
      await closeHost(h);
    }
  });

  it("a 2025 host that never answers: the call fails at the deadline and the upstream request ends", async () => {
    const saved = FAST_LIMITS.answerTimeout;
    FAST_LIMITS.answerTimeout = 300;
    let asked = 0;
    const h = await httpHost(s.served.url!, "legacy", {
      elicit: () => {
        asked++;
        return new Promise<never>(() => {});
      },
    });
    try {
      const lines = audit.length;
      const started = Date.now();
      const r = await h.callTool({ name: "mcp__input__ask_form", arguments: {} });
      expect(asked).toBe(1);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/did not answer in time/);
      expect(Date.now() - started).toBeLessThan(10_000);
      // The upstream request the question left waiting was cancelled (its audit line is written
      // when it ends), not kept for the five minutes a parked question waits.
      await waitFor(() => audit.slice(lines).some((e) => e.tool === "ask_form"), 5_000);
      const again = await h.callTool({ name: "mcp__official__add", arguments: { a: 1, b: 2 } });
      expect(again.structuredContent).toEqual({ sum: 3 });
    } finally {
      FAST_LIMITS.answerTimeout = saved;
      await closeHost(h);
    }
  });

  it("a 2025 session posting responses to requests never sent, or no JSON: refused, and it keeps serving", async () => {
    const h = await httpHost(s.served.url!, "legacy", { elicit: () => ({ action: "decline" }) });
    try {
      const sid = (h.transport as StreamableHTTPClientTransport).sessionId!;
      const post = (body: string) =>
        fetch(s.served.url!, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-session-id": sid,
            "mcp-protocol-version": "2025-11-25",
          },
          body,
        });
      for (const id of ["conduit-999999", 424242, "x"]) {
        const res = await post(JSON.stringify({ jsonrpc: "2.0", id, result: { action: "accept" } }));
        expect(res.status).toBeLessThan(300);
        await res.text();
      }
      const bad = await post("{not json");
      expect(bad.status).toBe(400);
      await bad.text();
      const r = await h.callTool({ name: "mcp__input__ask_form", arguments: {} });
      expect(r.structuredContent).toMatchObject({ action: "decline" });
    } finally {
      await closeHost(h);
    }
  });

  it("a 2026-07-28 call whose Mcp-Name header does not match its body is the SDK's to refuse", async () => {
    const envelope = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    };
    const post = (name: string, id: number) =>
      fetch(s.served.url!, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": name,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "mcp__official__add", arguments: { a: 1, b: 2 }, _meta: envelope },
        }),
      });
    const before = fastStats.calls;
    const wrong = await post("mcp__official__echo", 1);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: { code: number } }).error.code).toBe(-32020);
    expect(fastStats.calls).toBe(before);
    const right = await post(" mcp__official__add ", 2);
    expect(right.status).toBe(200);
    expect(
      ((await right.json()) as { result: { structuredContent: unknown } }).result.structuredContent,
    ).toEqual({
      sum: 3,
    });
    expect(fastStats.calls).toBe(before + 1);
  });
});
