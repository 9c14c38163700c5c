/**
 * Connect to first call over HTTP (issue 26): a modern client's first call is written right behind
 * its first listing on the connection the probe warmed (HTTP/1.1 pipelining, pipeline.ts), seen
 * from the client (undici's diagnostics channels) against the official server; what the pool
 * guarantees around it, against the scripted server. The legacy era keeps its first call after
 * the listing (requests.md says why).
 */
import diagnostics from "node:diagnostics_channel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { json, result, rpcError, type ScriptedHttpServer, startScripted } from "./support/http-scripted.js";
import { type RunningServer, startOfficialHttp } from "./support/http-servers.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";

interface Sent {
  what: string;
  socket: object;
}

/** Every request undici writes to `origin` while `run` runs: method (and JSON-RPC method), socket. */
async function recordSockets(origin: string, run: () => Promise<void>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const channel = diagnostics.channel("undici:client:sendHeaders");
  const onSend = (m: unknown) => {
    const { request, socket } = m as {
      request: { origin: string; method: string; body?: unknown };
      socket: object;
    };
    if (request.origin !== origin) return;
    const body = typeof request.body === "string" ? request.body : String(request.body ?? "");
    const rpc = /"method":"([^"]+)"/.exec(body)?.[1];
    sent.push({ what: `${request.method}${rpc ? ` ${rpc}` : ""}`, socket });
  };
  channel.subscribe(onSend);
  try {
    await run();
  } finally {
    channel.unsubscribe(onSend);
  }
  return sent;
}

describe.each([
  ["dual", "modern"],
  ["modern", "modern"],
] as const)("first requests over HTTP, official %s server, %s client", (kind, era) => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startOfficialHttp(kind);
  });
  afterAll(() => server.stop());

  it("the listing and the first call go on the connection the probe warmed, the call before the listing's answer", async () => {
    const origin = new URL(server.url).origin;
    const sent = await recordSockets(origin, async () => {
      const c = new Client({ name: "first-call-http", transport: { type: "http", url: server.url } });
      try {
        await c.ready();
        expect(c.era()).toBe(era);
        const r = await c.callTool("echo", { message: "hi" });
        expect(r.content).toEqual([{ type: "text", text: "hi" }]);
      } finally {
        await c.close();
      }
    });
    const first = sent.find((s) => s.what.startsWith("POST"))!;
    expect(first.what).toBe("POST server/discover");
    for (const what of ["POST tools/list", "POST tools/call"]) {
      expect(sent.find((s) => s.what === what)?.socket).toBe(first.socket);
    }
    // Every request on one socket but the listen stream (the fixture announces list changes).
    const requests = sent.filter((s) => s.what !== "POST subscriptions/listen");
    expect(new Set(requests.map((s) => s.socket))).toEqual(new Set([first.socket]));
  });
});

describe("the first call pipelined behind its listing (scripted server)", () => {
  let server: ScriptedHttpServer | undefined;
  const { clients } = scriptedSuite("first-call-http", () => server);

  const callArguments = (s: ScriptedHttpServer) =>
    s.rpcs("tools/call").map((r) => (r.body!.params as { arguments: unknown }).arguments);

  it.each(["modern"] as const)(
    "%s: the connection dropped with both read and neither answered: the call fails and is never sent again",
    async (era) => {
      const s = await startScripted({ era });
      server = s;
      s.on(async (req, res) => {
        if (req.rpc !== "tools/list") return false;
        // Held until the call behind it has arrived, then the connection drops unanswered.
        await waitFor(() => s.rpcs("tools/call").length === 1, "the call behind the listing");
        res.socket?.destroy();
        return true;
      });
      const c = clients.create(s.url);
      await c.ready();
      const err = await c.callTool("echo", { n: 1 }).catch((e) => clients.seen(e));
      expect(err).toMatchObject({ kind: "transport", reason: "network_error" });
      s.reset();
      // Answered: a second send of the first call would have reached the server by then.
      await c.callTool("echo", { n: 2 });
      expect(callArguments(s)).toEqual([{ n: 1 }, { n: 2 }]);
    },
  );

  it("modern: a first call of a tool with x-mcp-header parameters goes out before the listing taught its headers: refused, sent again with them", async () => {
    const s = await startScripted();
    server = s;
    const tool = {
      name: "geo",
      inputSchema: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
    };
    s.on(onRpc("tools/list", (req, res) => json(res, 200, result(req.body!.id, { tools: [tool] }))));
    s.on(
      onRpc("tools/call", (req, res) => {
        // As the spec has servers do: a value in the body without its header is refused, unrun.
        if (req.headers["mcp-param-region"] !== "eu")
          return json(res, 400, rpcError(req.body!.id, -32020, "Header mismatch"));
        json(res, 200, result(req.body!.id, { content: [{ type: "text", text: "ran" }] }));
      }),
    );
    const c = clients.create(s.url);
    await c.ready();
    const r = await c.callTool("geo", { region: "eu" });
    expect(r.content).toEqual([{ type: "text", text: "ran" }]);
    const calls = s.rpcs("tools/call");
    expect(calls.map((q) => q.headers["mcp-param-region"])).toEqual([undefined, "eu"]);
    // The first listing taught the headers: the call waited for it, not for a second one.
    expect(s.rpcs("tools/list")).toHaveLength(1);
  });

  it("a server that closes the connection after each answer: the first call takes its own and is answered", async () => {
    const s = await startScripted();
    server = s;
    s.on((_req, res) => {
      res.setHeader("connection", "close");
      return false;
    });
    const c = clients.create(s.url);
    await c.ready();
    const r = await c.callTool("echo", { n: 1 });
    expect(r.isError).toBe(false);
    expect(callArguments(s)).toEqual([{ n: 1 }]);
  });
});
