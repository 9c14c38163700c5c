/**
 * What passes through serve around an upstream's questions (issue 29): progress after an input
 * round, logs of both eras' upstreams to both eras' hosts, roots (asked in tools/call and
 * prompts/get, list_changed forwarded), URL-mode elicitation (forwarded, never opened; declined
 * for a host that did not declare it), elicitation in resources/read. Hosts: the official client
 * (both eras), conduit-mcp's client for a 2026-07-28 host's log level (the official client's
 * 2026-07-28 era does not set one). Upstreams: test/fixtures/serve-rounds-server.mjs and the
 * official-SDK input fixture, on the official server SDK.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { nodeServer, silentLogger, waitFor } from "./support/index.js";
import { closeHost, type HostEra, httpHost, type ServedHub, serveHub, textOf } from "./support/serve.js";

const ROUNDS = fileURLToPath(new URL("./fixtures/serve-rounds-server.mjs", import.meta.url));
const INPUT = fileURLToPath(new URL("./fixtures/input-official-server.mjs", import.meta.url));
const ERAS: HostEra[] = ["modern", "legacy"];

describe("serve: rounds, logs, roots, URL elicitation", () => {
  let s: ServedHub;

  beforeAll(async () => {
    s = await serveHub({
      servers: {
        // serve's client speaks 2026-07-28 to this one (input_required rounds, per-request logs) ...
        modern: { transport: nodeServer(ROUNDS, ["dual"]), client: { protocol: "modern" } },
        // ... and 2025-11-25 to this one (server-to-client requests, session logs).
        legacy: { transport: nodeServer(ROUNDS, ["legacy"]), client: { protocol: "legacy" } },
        input: { transport: nodeServer(INPUT, ["dual"]) },
      },
    });
  }, 30_000);

  afterAll(async () => {
    await s?.close();
  });

  for (const host of ERAS) {
    for (const up of ["modern", "legacy"]) {
      it(`a ${host} host gets the progress a ${up} upstream reports after its question`, async () => {
        const h = await httpHost(s.served.url!, host, {
          elicit: () => ({ action: "accept", content: { name: "Ada" } }),
        });
        try {
          const progress: number[] = [];
          const r = await h.callTool(
            { name: `mcp__${up}__ask_then_progress`, arguments: {} },
            { onprogress: (p) => progress.push(p.progress) },
          );
          expect(textOf(r)).toBe("hello Ada");
          // The official 2026-07-28 client hears the first of a retry's notifications twice, with
          // no serve in between too (its own round driver): compared without repeats.
          expect([...new Set(progress)]).toEqual([1, 2, 3]);
        } finally {
          await closeHost(h);
        }
      });
    }
  }

  for (const up of ["modern", "legacy"]) {
    it(`a legacy host gets a ${up} upstream's log entries at the level it set`, async () => {
      const entries: Array<Record<string, unknown>> = [];
      const h = await httpHost(s.served.url!, "legacy", { onLog: (p) => entries.push(p) });
      try {
        await h.setLoggingLevel("warning");
        await h.callTool({ name: `mcp__${up}__log_twice`, arguments: {} });
        await waitFor(() => entries.length > 0, 5_000);
        await new Promise((r) => setTimeout(r, 100));
        expect(entries.map((e) => e.data)).toEqual(["a warning entry"]);
        expect(entries[0]).toMatchObject({ level: "warning", logger: up });
      } finally {
        await closeHost(h);
      }
    });

    it(`a modern host gets a ${up} upstream's log entries on its call's stream`, async () => {
      const h = new Client({
        name: "host",
        transport: { type: "http", url: s.served.url! },
        protocol: "modern",
        logger: silentLogger(),
      });
      try {
        const entries: Array<Record<string, unknown>> = [];
        h.onNotification((n) => {
          if (n.method === "notifications/message") entries.push(n.params as Record<string, unknown>);
        });
        await h.setLogLevel("warning");
        await h.callTool(`mcp__${up}__log_twice`, {});
        expect(entries.map((e) => e.data)).toEqual(["a warning entry"]);
      } finally {
        await h.close();
      }
    });
  }

  it.each(ERAS)(
    "a %s host's roots reach an upstream that asks in tools/call and prompts/get",
    async (era) => {
      const h = await httpHost(s.served.url!, era, {
        roots: () => [{ uri: "file:///tmp/project", name: "p" }],
      });
      try {
        const r = await h.callTool({ name: "mcp__input__ask_roots", arguments: {} });
        expect(r.structuredContent).toEqual({ roots: [{ uri: "file:///tmp/project", name: "p" }] });
        const p = await h.getPrompt({ name: "mcp__input__personal" });
        expect(JSON.stringify(p.messages)).toContain("roots: file:///tmp/project");
      } finally {
        await closeHost(h);
      }
    },
  );

  it("a host that declared no roots: the upstream's roots request is refused, the call fails", async () => {
    const h = await httpHost(s.served.url!, "modern");
    try {
      const r = await h.callTool({ name: "mcp__input__ask_roots", arguments: {} });
      expect(r.isError).toBe(true);
    } finally {
      await closeHost(h);
    }
  });

  it("a legacy host's roots list_changed reaches a legacy upstream", async () => {
    const h = await httpHost(s.served.url!, "legacy", { roots: () => [] });
    try {
      const before = Number(textOf(await h.callTool({ name: "mcp__legacy__roots_changed", arguments: {} })));
      await h.sendRootsListChanged();
      await waitFor(async () => {
        const now = await h.callTool({ name: "mcp__legacy__roots_changed", arguments: {} });
        return Number(textOf(now)) > before;
      }, 5_000);
    } finally {
      await closeHost(h);
    }
  });

  it.each(ERAS)("URL-mode elicitation reaches a %s host that declared it, unopened", async (era) => {
    const asked: Array<Record<string, unknown>> = [];
    const h = await httpHost(s.served.url!, era, {
      elicitUrl: true,
      elicit: (params) => {
        asked.push(params);
        return { action: "accept" };
      },
    });
    try {
      const r = await h.callTool({
        name: "mcp__input__ask_url",
        arguments: { url: "https://auth.example.com/connect?x=1" },
      });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: "url", url: "https://auth.example.com/connect?x=1" });
      expect(r.structuredContent).toEqual({ action: "accept" });
    } finally {
      await closeHost(h);
    }
  });

  it("URL-mode elicitation is declined for a host that declared only forms, and it is not asked", async () => {
    const asked: unknown[] = [];
    const h = await httpHost(s.served.url!, "modern", {
      elicit: (p) => {
        asked.push(p);
        return { action: "accept" };
      },
    });
    try {
      const r = await h.callTool({
        name: "mcp__input__ask_url",
        arguments: { url: "https://auth.example.com/x" },
      });
      expect(r.structuredContent).toEqual({ action: "decline" });
      expect(asked).toHaveLength(0);
    } finally {
      await closeHost(h);
    }
  });

  it.each(ERAS)("a %s host answers an upstream's question in resources/read", async (era) => {
    const h = await httpHost(s.served.url!, era, {
      elicit: () => ({ action: "accept", content: { sure: true } }),
    });
    try {
      const { resources } = await h.listResources();
      const uri = resources.find((r) => r.uri.endsWith("confirmed.txt"))!.uri;
      const read = await h.readResource({ uri });
      expect(JSON.stringify(read.contents)).toContain("action=accept sure=true");
    } finally {
      await closeHost(h);
    }
  });
});
