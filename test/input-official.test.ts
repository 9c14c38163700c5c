// Answering server input against the official @modelcontextprotocol/server package
// (test/fixtures/input-official-server.mjs): sampling, form and URL elicitation and roots, in
// each era. Modern servers ask through input_required results (the client's MRTR loop); the
// legacy server's shim turns the same tools into real server-to-client requests, and its push
// tools use the 2025 API. Every flow runs over stdio and over Streamable HTTP (the fixture's
// --http mode, one server per describe block).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  Client,
  type ClientOptions,
  type HttpTransportOptions,
  type InputContext,
  type InputHandler,
  type JsonObject,
  McpClientError,
  type StdioTransportOptions,
} from "../src/index.js";
import { recordEvents } from "./support/index.js";
import { closeAll, INPUT_OFFICIAL, structured, track } from "./support/input.js";
import { startInputOfficialHttp } from "./support/input-http.js";
import { recordingLogger } from "./support/logger.js";

afterEach(closeAll);

type ServerConfig = "dual" | "modern" | "legacy";

/** What a describe block's clients connect to. */
interface Served {
  options: StdioTransportOptions | HttpTransportOptions;
  stop(): Promise<void>;
}

interface TransportCase {
  label: "stdio" | "http";
  /** Runs in beforeAll: starts what the block needs (stdio: nothing, each client spawns its own). */
  serve: (config: ServerConfig) => Promise<Served>;
}

const TRANSPORTS: TransportCase[] = [
  {
    label: "stdio",
    serve: async (config) => ({
      options: {
        type: "stdio",
        command: process.execPath,
        args: [INPUT_OFFICIAL, config],
        stderr: process.env.CONDUIT_TEST_STDERR === "inherit" ? "inherit" : "discard",
        stdinGrace: 300,
        termGrace: 300,
      },
      stop: async () => {},
    }),
  },
  {
    label: "http",
    serve: async (config) => {
      const server = await startInputOfficialHttp(config);
      return { options: { type: "http", url: server.url }, stop: server.stop };
    },
  },
];

interface EraCase {
  label: string;
  server: ServerConfig;
  protocol: ClientOptions["protocol"];
  era: "modern" | "legacy";
}

const ERAS: EraCase[] = [
  { label: "modern (modern-only server)", server: "modern", protocol: "auto", era: "modern" },
  { label: "legacy (legacy-only server)", server: "legacy", protocol: "auto", era: "legacy" },
  { label: "legacy (dual server, pinned)", server: "dual", protocol: "legacy", era: "legacy" },
];

interface Seen {
  method: string;
  params: JsonObject;
  ctx: Omit<InputContext, "signal"> & { signalIsAbortSignal: boolean };
}

/** A handler that records what it is asked and answers like a user and a model would. */
function recordingHandler(seen: Seen[], overrides: Partial<InputHandler> = {}): InputHandler {
  const keep = (method: string, params: JsonObject, ctx: InputContext) => {
    const { signal, ...rest } = ctx;
    seen.push({ method, params, ctx: { ...rest, signalIsAbortSignal: signal instanceof AbortSignal } });
  };
  return {
    sampling(params, ctx) {
      keep("sampling", params, ctx);
      const last = (params.messages as Array<{ content: { text: string } }>).at(-1)?.content.text;
      return {
        role: "assistant",
        content: { type: "text", text: `model says: ${last} (max ${params.maxTokens})` },
        model: "test-model",
        stopReason: "endTurn",
      };
    },
    elicitationModes: ["form", "url"],
    elicitation(params, ctx) {
      keep("elicitation", params, ctx);
      if (ctx.mode === "url") return { action: "accept" };
      const props = (params.requestedSchema as { properties: JsonObject }).properties;
      if ("city" in props) return { action: "accept", content: { city: "Oslo", nights: 3 } };
      if ("sure" in props) return { action: "accept", content: { sure: true } };
      return { action: "accept", content: { name: "Ada" } };
    },
    listRoots(ctx) {
      keep("roots", {}, ctx);
      return {
        roots: [
          { uri: "file:///srv/data/../projects/./app", name: "app" },
          { uri: "https://example.com/not-a-root" },
          { uri: "file://otherhost/share" },
        ],
      };
    },
    ...overrides,
  };
}

/**
 * Starts the block's server in beforeAll and stops it in afterAll (after the top-level afterEach
 * has closed the clients); the returned function gives the transport options for a client.
 */
function serveBlock(transport: TransportCase, e: EraCase): () => Served["options"] {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await transport.serve(e.server);
  }, 20_000);
  afterAll(async () => {
    await served?.stop();
  });
  return () => {
    if (!served) throw new Error("the server did not start");
    return served.options;
  };
}

// What the package's stateless legacy leg says when a tool asks for input (the inputRequired shim).
const NO_SERVER_REQUESTS = /per-request legacy serving cannot receive server-to-client requests/;

/**
 * The dual server's legacy leg over HTTP is createMcpHandler's stateless fallback: each legacy
 * POST is served by a fresh McpServer over a session-less transport, so the instance that runs a
 * tool never saw the client's `initialize` (it knows no client capabilities), there is no GET
 * stream (405) and no session to route the client's answer to a server request back to it. The
 * package documents this ("per-request legacy serving cannot receive server-to-client requests"),
 * so no input flow can complete there, whatever the client does. Over stdio the same dual server
 * keeps one connection and every flow passes; over HTTP the legacy era is covered by the
 * sessionful legacy-only server. This block asserts what the package does instead, and that
 * nothing reaches the client's handler. (The client-side refusals, an http URL and an undeclared
 * capability, cannot be exercised here: no input request ever reaches the client.)
 */
function describeStatelessLegacy(transport: TransportCase, e: EraCase): void {
  describe(`${transport.label}, ${e.label}: the package's stateless legacy fallback`, () => {
    const options = serveBlock(transport, e);

    function client(seen: Seen[]): Client {
      return track(
        new Client({
          name: "official-input",
          serverId: "official",
          transport: options(),
          protocol: e.protocol,
          requestTimeout: 10_000,
          logger: recordingLogger(),
          handler: recordingHandler(seen),
        }),
      );
    }

    const SHIMMED: Array<[flow: string, tool: string, args: JsonObject]> = [
      ["sampling", "ask_sampling", { prompt: "capital of France?" }],
      ["form elicitation", "ask_form", {}],
      ["form elicitation (zod schema)", "ask_form_zod", {}],
      ["URL elicitation", "ask_url", { url: "https://mcp.example.com/connect" }],
      ["roots", "ask_roots", {}],
      ["several rounds (form, then sampling)", "ask_twice", {}],
    ];
    for (const [flow, tool, args] of SHIMMED) {
      it(`${flow} (${tool}): the package answers a tool error, the handler is never asked`, async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const r = await c.callTool(tool, args);
        expect(c.era()).toBe("legacy");
        expect(r.isError).toBe(true);
        expect((r.content[0] as { text: string }).text).toMatch(NO_SERVER_REQUESTS);
        expect(seen).toEqual([]);
      });
    }

    it("resources/read and prompts/get: the package answers -32603, the handler is never asked", async () => {
      const seen: Seen[] = [];
      const c = client(seen);
      const read = await c.readResource("file:///confirmed.txt").catch((err) => err);
      expect(read).toBeInstanceOf(McpClientError);
      expect(read).toMatchObject({ kind: "protocol", reason: "jsonrpc_error", detail: { jsonrpc: -32603 } });
      expect(read.data.message).toMatch(NO_SERVER_REQUESTS);
      const prompt = await c.getPrompt("personal").catch((err) => err);
      expect(prompt).toBeInstanceOf(McpClientError);
      expect(prompt).toMatchObject({
        kind: "protocol",
        reason: "jsonrpc_error",
        detail: { jsonrpc: -32603 },
      });
      expect(seen).toEqual([]);
    });

    it("the 2025 push API: elicitInput is refused for want of capabilities", async () => {
      const seen: Seen[] = [];
      const c = client(seen);
      const form = await c.callTool("push_form", {});
      expect(form.isError).toBe(true);
      expect((form.content[0] as { text: string }).text).toBe("Client does not support form elicitation.");
      const url = await c.callTool("push_url", { url: "https://example.com/y" });
      expect(url.isError).toBe(true);
      expect((url.content[0] as { text: string }).text).toBe("Client does not support url elicitation.");
      expect(seen).toEqual([]);
    });

    it("the 2025 push API: requestSampling and listRoots are never delivered, so the call never ends", async () => {
      // The package does not check capabilities before these two; it sends the request into a
      // session-less transport where it goes nowhere (no event stream is even opened: the POST
      // gets no response headers) and waits for an answer that cannot come. The call's own
      // timeout ends it; the client cancels it and stays usable.
      const seen: Seen[] = [];
      const c = client(seen);
      await expect(c.callTool("push_sampling", {}, { timeout: 500 })).rejects.toMatchObject({
        kind: "timeout",
      });
      await expect(c.callTool("push_roots", {}, { timeout: 500 })).rejects.toMatchObject({
        kind: "timeout",
      });
      expect(seen).toEqual([]);
      expect((await c.callTool("push_form", {})).isError).toBe(true);
    });

    it("notifyRootsChanged is sent (the package acknowledges and drops it)", async () => {
      const c = client([]);
      await c.ready();
      expect(c.notifyRootsChanged()).toBe(true);
      await c.ping();
    });
  });
}

for (const transport of TRANSPORTS) {
  for (const e of ERAS) {
    if (transport.label === "http" && e.server === "dual" && e.era === "legacy") {
      describeStatelessLegacy(transport, e);
      continue;
    }
    describe(`${transport.label}, ${e.label}`, () => {
      const options = serveBlock(transport, e);

      function client(seen: Seen[], extra: Partial<ClientOptions> = {}): Client {
        return track(
          new Client({
            name: "official-input",
            serverId: "official",
            transport: options(),
            protocol: e.protocol,
            requestTimeout: 10_000,
            logger: recordingLogger(),
            handler: recordingHandler(seen),
            assigns: { user: "client-default" },
            ...extra,
          }),
        );
      }

      it("sampling: the handler answers, maxTokens is clamped to 4 096, ctx says who asks", async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const r = await c.callTool(
          "ask_sampling",
          { prompt: "capital of France?" },
          { assigns: { user: "u1" } },
        );
        expect(c.era()).toBe(e.era);
        expect(r.isError).toBe(false);
        expect(structured(r).result).toMatchObject({
          role: "assistant",
          model: "test-model",
          content: { type: "text", text: "model says: capital of France? (max 4096)" },
        });
        expect(structured(r).requestState).toBe("sampling-state-1");
        expect(seen).toHaveLength(1);
        expect(seen[0]!.params.maxTokens).toBe(4096);
        expect(seen[0]!.ctx).toMatchObject({
          client: "official-input",
          serverId: "official",
          era: e.era,
          assigns: { user: "u1" },
          signalIsAbortSignal: true,
        });
        // Legacy: tied to the one call in flight. Modern: always null.
        if (e.era === "modern") expect(seen[0]!.ctx.relatedRequestId).toBeNull();
        else expect(typeof seen[0]!.ctx.relatedRequestId).toBe("number");
      });

      it("form elicitation: defaults the user left out are filled in; fields are described", async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const r = await c.callTool("ask_form", {});
        expect(structured(r)).toEqual({
          action: "accept",
          content: { name: "Ada", age: 30, color: "green", subscribe: false },
        });
        expect(seen[0]!.ctx).toMatchObject({
          mode: "form",
          assigns: { user: "client-default" },
          fields: {
            name: { sensitiveSuspected: false },
            age: { sensitiveSuspected: false },
            color: { sensitiveSuspected: false },
            subscribe: { sensitiveSuspected: false },
          },
        });
      });

      it("form elicitation with a schema the package built from zod", async () => {
        const seen: Seen[] = [];
        const r = await client(seen).callTool("ask_form_zod", {});
        expect(structured(r)).toEqual({ action: "accept", content: { city: "Oslo", nights: 3 } });
        expect(Object.keys(seen[0]!.ctx.fields ?? {})).toEqual(["city", "nights", "pet", "email"]);
      });

      it("URL elicitation: shown, never opened, with its host and warnings", async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const r = await c.callTool("ask_url", { url: "https://xn--exmple-cua.example/connect?step=1" });
        expect(structured(r)).toEqual({ action: "accept" });
        expect(seen[0]!.ctx).toMatchObject({
          mode: "url",
          url: "https://xn--exmple-cua.example/connect?step=1",
          host: "xn--exmple-cua.example",
          idn: true,
          // stdio reports no origin and none was configured; over HTTP the origin is the server's
          // (http://127.0.0.1:<port>), which this URL's is not.
          originMismatch: true,
        });
      });

      it("URL elicitation: the server's origin (elicitation.origin) clears originMismatch", async () => {
        const seen: Seen[] = [];
        const c = client(seen, { elicitation: { origin: "https://mcp.example.com" } });
        await c.callTool("ask_url", { url: "https://mcp.example.com/connect" });
        expect(seen[0]!.ctx).toMatchObject({ host: "mcp.example.com", idn: false, originMismatch: false });
      });

      it("URL elicitation: an http URL is refused before the callback runs", async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const outcome = await c.callTool("ask_url", { url: "http://example.com/x" }).catch((err) => err);
        expect(seen).toHaveLength(0);
        if (e.era === "modern") {
          expect(outcome).toBeInstanceOf(McpClientError);
          expect(outcome).toMatchObject({ kind: "protocol", reason: "url_not_allowed" });
          expect(outcome.data).toMatchObject({ key: "visit", code: -32602 });
        } else {
          // The package's shim turns the client's -32602 into a tool error.
          expect(outcome.isError).toBe(true);
          expect(outcome.content[0].text).toMatch(/https/);
        }
        // The client keeps working.
        expect((await c.callTool("ask_roots", {})).isError).toBe(false);
      });

      it("roots: only local file:// URIs are sent, with . and .. resolved", async () => {
        const seen: Seen[] = [];
        const r = await client(seen).callTool("ask_roots", {});
        expect(structured(r)).toEqual({ roots: [{ uri: "file:///srv/projects/app", name: "app" }] });
        expect(seen.map((s) => s.method)).toEqual(["roots"]);
      });

      it("several rounds in one call: a form, then sampling, requestState echoed each time", async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const rec = recordEvents({ client: "official-input", names: ["tool_call:stop", "request:stop"] });
        try {
          const r = await c.callTool("ask_twice", {});
          expect(structured(r)).toEqual({ state: "round-2:Ada", greeting: "model says: Greet Ada (max 10)" });
          expect(seen.map((s) => s.method)).toEqual(["elicitation", "sampling"]);
          const stop = rec.of("tool_call:stop");
          expect(stop).toHaveLength(1);
          // Modern: three requests (two answered input_required results). Legacy: one call.
          expect(stop[0]!.rounds).toBe(e.era === "modern" ? 3 : 1);
          expect(rec.of("request:stop").filter((x) => x.method === "tools/call")).toHaveLength(
            e.era === "modern" ? 3 : 1,
          );
        } finally {
          rec.stop();
        }
      });

      it("resources/read and prompts/get ask too", async () => {
        const seen: Seen[] = [];
        const c = client(seen);
        const read = await c.readResource("file:///confirmed.txt");
        expect((read.contents as JsonObject[])[0]).toMatchObject({ text: "action=accept sure=true" });
        const prompt = await c.getPrompt("personal");
        expect((prompt.messages as Array<{ content: { text: string } }>)[0]!.content.text).toBe(
          "roots: file:///srv/projects/app",
        );
        expect(seen.map((s) => s.method)).toEqual(["elicitation", "roots"]);
      });

      it("a capability the client did not declare is never asked for", async () => {
        const c = track(
          new Client({
            name: "official-input",
            transport: options(),
            protocol: e.protocol,
            logger: recordingLogger(),
            handler: { listRoots: () => ({ roots: [] }) },
          }),
        );
        const outcome = await c.callTool("ask_sampling", { prompt: "x" }).catch((err) => err);
        if (e.era === "modern") {
          // The package checks the request's declared capabilities itself.
          expect(outcome).toMatchObject({
            kind: "protocol",
            reason: "jsonrpc_error",
            detail: { jsonrpc: -32021 },
          });
        } else {
          expect(outcome.isError).toBe(true);
        }
        expect((await c.callTool("ask_roots", {})).structured).toEqual({ roots: [] });
      });

      if (e.era === "legacy") {
        it("the 2025 push API: elicitInput, requestSampling, listRoots, URL mode", async () => {
          const seen: Seen[] = [];
          const c = client(seen);
          expect(structured(await c.callTool("push_form", {}))).toEqual({
            action: "accept",
            content: { name: "Ada", age: 30, color: "green", subscribe: false },
          });
          expect(structured(await c.callTool("push_sampling", {}))).toMatchObject({
            content: { text: "model says: hello (max 4096)" },
          });
          expect(structured(await c.callTool("push_roots", {}))).toEqual({
            roots: [{ uri: "file:///srv/projects/app", name: "app" }],
          });
          expect(structured(await c.callTool("push_url", { url: "https://example.com/y" }))).toEqual({
            action: "accept",
          });
          expect(seen.map((s) => s.method)).toEqual(["elicitation", "sampling", "roots", "elicitation"]);
          expect(seen.every((s) => typeof s.ctx.relatedRequestId === "number")).toBe(true);
        });

        it("notifyRootsChanged reaches a legacy server", async () => {
          const seen: Seen[] = [];
          const c = client(seen);
          await c.ready();
          expect(c.notifyRootsChanged()).toBe(true);
          // Roots still answer afterwards.
          expect((await c.callTool("push_roots", {})).isError).toBe(false);
        });
      } else {
        it("notifyRootsChanged is a no-op in the modern era", async () => {
          const c = client([]);
          await c.ready();
          expect(c.notifyRootsChanged()).toBe(false);
        });
      }
    });
  }
}
