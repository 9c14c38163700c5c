/**
 * Keep-alive reuse and its race. Sequential calls open no connection: the next request is made in
 * the same turn as the caller hears the previous answer, and the transport's pool gives it a socket
 * the client already holds (undici's Pool freed a socket only a loop turn after its answer, so a
 * second connection was opened). On one socket the call waits a loop turn for it; when the client
 * holds two (a legacy client whose first call went out while its refused GET was still open) calls
 * alternate, each on the socket that has been idle through a poll. Concurrent calls still get
 * parallel sockets, up to `poolSize`.
 *
 * The race: a server that closes an idle keep-alive socket (it answered and hung up, or it went
 * away) must never have the next request written onto that dead socket, where it would fail as
 * "other side closed" with no way to tell whether the server read it. The request goes on a new
 * connection (or, when nothing listens any more, never leaves and waits for the reconnection), and
 * no request is ever sent twice.
 */
import type { Socket } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { McpClientError } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { httpTestClients } from "./support/http-clients.js";
import { json, result, type ScriptedHttpServer, sse, startScripted } from "./support/http-scripted.js";

const clients = httpTestClients("http-keep-alive");
let server: ScriptedHttpServer | undefined;

afterEach(async () => {
  await clients.closeAll();
  await server?.close();
  server = undefined;
});
afterAll(() => clients.assertNoLeak());

/** Records the socket of every request the server sees, in order. */
function recordSockets(s: ScriptedHttpServer): Array<{ what: string; socket: Socket }> {
  const used: Array<{ what: string; socket: Socket }> = [];
  s.on((req, res) => {
    used.push({ what: `${req.method} ${req.rpc ?? ""}`, socket: res.socket as Socket });
    return false;
  });
  return used;
}

const distinct = (used: Array<{ socket: Socket }>) => new Set(used.map((u) => u.socket)).size;

/** A `tools/call` answer with one text block, shaped for the era. */
function textResult(era: "modern" | "legacy", id: unknown, text: string): Record<string, unknown> {
  const meta = era === "modern" ? { resultType: "complete" } : {};
  return result(id, { ...meta, content: [{ type: "text", text }] });
}

/**
 * Answers every call with keep-alive, then closes the socket as an idle-timeout would: the client
 * hears the answer and makes its next request before it can have read the FIN.
 */
function hangUpAfterEachAnswer(s: ScriptedHttpServer, era: "modern" | "legacy"): void {
  s.on((req, res) => {
    if (req.rpc !== "tools/call") return false;
    const socket = res.socket as Socket;
    res.once("finish", () => socket.destroy());
    json(res, 200, textResult(era, req.body!.id, "ok"));
    return true;
  });
}

/**
 * Answers every call and closes the socket in the same write: answer and FIN reach the client
 * together, and libuv, stopping at the short read of the answer, reads the FIN only at its next
 * poll. The client makes its next request before then.
 */
function answerWithFin(s: ScriptedHttpServer, era: "modern" | "legacy"): void {
  s.on((req, res) => {
    if (req.rpc !== "tools/call") return false;
    const body = JSON.stringify(textResult(era, req.body!.id, "ok"));
    const socket = res.socket as Socket;
    socket.end(
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: keep-alive\r\n" +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      () => socket.destroy(),
    );
    return true;
  });
}

/** The arguments of every `tools/call` the server received, in order. */
const sentArguments = (s: ScriptedHttpServer) =>
  s.rpcs("tools/call").map((r) => (r.body!.params as { arguments: unknown }).arguments);

/**
 * `n` sequential calls to a server that `closesEach` connection as it answers: each is answered,
 * sent once, and on a connection of its own (none went onto a socket the server had closed).
 */
async function expectEachCallOnItsOwnConnection(
  s: ScriptedHttpServer,
  era: "modern" | "legacy",
  closesEach: (s: ScriptedHttpServer, era: "modern" | "legacy") => void,
  n: number,
): Promise<void> {
  const used = recordSockets(s);
  closesEach(s, era);
  const c = clients.create(s.url);
  for (let i = 1; i <= n; i++) {
    const r = await c.callTool("echo", { n: i });
    expect(r.content).toEqual([{ type: "text", text: "ok" }]);
  }
  expect(sentArguments(s)).toEqual(Array.from({ length: n }, (_, i) => ({ n: i + 1 })));
  expect(distinct(used.filter((u) => u.what === "POST tools/call"))).toBe(n);
  expect(c.status().state).toBe("ready");
}

describe.each(["modern", "legacy"] as const)("keep-alive, %s", (era) => {
  it("sequential calls answered by event streams reuse one socket", async () => {
    const s = await startScripted({ era });
    server = s;
    const used = recordSockets(s);
    s.on((req, res) => {
      if (req.rpc !== "tools/call") return false;
      // The response event, then the end of the stream: as real servers answer.
      sse(res, [{ data: textResult(era, req.body!.id, `call ${used.length}`) }]);
      return true;
    });
    const c = clients.create(s.url);
    await c.callTool("echo", { message: "first" });
    const afterFirst = distinct(used);
    for (let i = 2; i <= 6; i++) {
      const r = await c.callTool("echo", { message: String(i) });
      expect(r.content).toEqual([{ type: "text", text: `call ${used.length}` }]);
    }
    const calls = used.filter((u) => u.what === "POST tools/call");
    expect(calls).toHaveLength(6);
    // Nothing after the first call opened a connection; the later calls share one socket.
    expect(distinct(used)).toBe(afterFirst);
    expect(distinct(calls.slice(1))).toBe(1);
    if (era === "modern") {
      // The probe (a JSON body) and every call: one socket in all.
      expect(afterFirst).toBe(1);
    } else {
      // The standalone GET stream holds one (it stays open); the handshake, the probe's refusal
      // and the calls share the other.
      expect(used.find((u) => u.what === "GET ")).toBeDefined();
      expect(afterFirst).toBe(2);
    }
  });

  it("a server that hangs up after each answer: every next call goes on a new connection, sent once", async () => {
    server = await startScripted({ era });
    await expectEachCallOnItsOwnConnection(server, era, hangUpAfterEachAnswer, 4);
  });

  it("a server that sends its answer and FIN together: the next call waits for the FIN and goes on a new connection", async () => {
    server = await startScripted({ era });
    await expectEachCallOnItsOwnConnection(server, era, answerWithFin, 6);
  });
});

describe("keep-alive, legacy server without a GET stream", () => {
  /**
   * A legacy server that refuses the standalone GET stream (405), as stateless servers do, but only
   * once the first call has arrived: the GET holds its socket until then, so the call goes on
   * another and the client holds two (without the hold that depends on which comes first).
   */
  async function withoutGetStream(): Promise<ScriptedHttpServer> {
    const s = await startScripted({ era: "legacy" });
    let callSeen = false;
    let refuse: (() => void) | undefined;
    s.on((req, res) => {
      if (req.method === "GET") {
        const no = () => res.writeHead(405, { allow: "POST" }).end();
        if (callSeen) no();
        else refuse = no;
        return true;
      }
      if (req.rpc === "tools/call" && !callSeen) {
        callSeen = true;
        refuse?.();
      }
      return false;
    });
    return s;
  }

  it("sequential calls alternate on the two sockets the client holds, and open no connection", async () => {
    const s = await withoutGetStream();
    server = s;
    const used = recordSockets(s);
    const c = clients.create(s.url);
    await c.callTool("echo", { n: 0 });
    const afterFirst = distinct(used);
    // The refused GET's socket and the first call's: two.
    expect(afterFirst).toBe(2);
    for (let i = 1; i <= 6; i++) await c.callTool("echo", { n: i });
    const calls = used.filter((u) => u.what === "POST tools/call").slice(1);
    expect(calls).toHaveLength(6);
    expect(distinct(used)).toBe(afterFirst);
    // Each call takes the socket that answered the call before the last one (settled since),
    // not the one whose answer was just read.
    for (let i = 1; i < calls.length; i++) expect(calls[i]!.socket).not.toBe(calls[i - 1]!.socket);
    expect(s.rpcs("tools/call")).toHaveLength(7);
  });

  it("a server that hangs up after each answer: every next call goes on a new connection, sent once", async () => {
    server = await withoutGetStream();
    await expectEachCallOnItsOwnConnection(server, "legacy", hangUpAfterEachAnswer, 4);
  });

  it("a server that closes the idle socket as it answers on the other: no call goes on the closed one", async () => {
    const s = await withoutGetStream();
    server = s;
    const used = recordSockets(s);
    const c = clients.create(s.url);
    await c.callTool("echo", { n: 0 });
    await c.callTool("echo", { n: 1 });
    const closed = new Set<Socket>();
    s.on((req, res) => {
      if (req.rpc !== "tools/call") return false;
      // Close every other socket the client holds (idle: settled, the next call's choice), then
      // answer: the FIN reaches the client before the answer it makes the next call from.
      for (const u of used) {
        if (u.socket === res.socket || closed.has(u.socket)) continue;
        closed.add(u.socket);
        u.socket.destroy();
      }
      json(res, 200, textResult("legacy", req.body!.id, "ok"));
      return true;
    });
    // A call written on a closed socket would fail ("other side closed"): each is answered.
    for (let i = 2; i <= 5; i++) {
      const r = await c.callTool("echo", { n: i });
      expect(r.content).toEqual([{ type: "text", text: "ok" }]);
    }
    expect(closed.size).toBeGreaterThan(0);
    expect(sentArguments(s)).toEqual([0, 1, 2, 3, 4, 5].map((n) => ({ n })));
    expect(c.status().state).toBe("ready");
  });
});

describe("keep-alive races, modern", () => {
  it("concurrent calls get parallel sockets, never more than poolSize", async () => {
    const s = await startScripted();
    server = s;
    const used = recordSockets(s);
    const held: Array<() => void> = [];
    s.on((req, res) => {
      if (req.rpc !== "tools/call") return false;
      // Held until the test has seen as many calls as the pool allows at once.
      held.push(() => json(res, 200, result(req.body!.id, { resultType: "complete", content: [] })));
      return true;
    });
    const c = clients.create(s.url, { poolSize: 3 });
    await c.ready();
    const calls = Array.from({ length: 5 }, (_, i) => c.callTool("echo", { n: i }));
    await waitFor(() => held.length === 3, "three calls at the server");
    // The pool is full: the other two wait for a socket, not for a fourth connection.
    for (const answer of held.splice(0)) answer();
    await waitFor(() => held.length === 2, "the last two calls at the server");
    for (const answer of held.splice(0)) answer();
    await Promise.all(calls);
    const callSockets = distinct(used.filter((u) => u.what === "POST tools/call"));
    expect(callSockets).toBe(3);
    expect(distinct(used)).toBe(3);
    expect(s.rpcs("tools/call")).toHaveLength(5);
  });

  it("a server that went away: the next request on the idle socket never leaves, waits, and is sent once", async () => {
    const s = await startScripted();
    server = s;
    const port = s.port;
    const c = clients.create(s.url, {}, { backoff: () => 20, requestTimeout: 15_000 });
    await c.callTool("echo", { n: 0 });
    await s.close();
    server = undefined;
    // Made in the same turn as the close was heard: the idle socket's FIN is still unread.
    const call = c.callTool("echo", { n: 1 });
    await waitFor(() => c.status().state === "reconnecting", "the client reconnecting");
    const back = await startScripted({}, port);
    server = back;
    const r = await call;
    expect(r.structured).toMatchObject({ arguments: { n: 1 } });
    expect(back.rpcs("tools/call")).toHaveLength(1);
    expect(s.rpcs("tools/call")).toHaveLength(1);
  });

  it("a request the server read before dropping the connection fails and is not sent again", async () => {
    const s = await startScripted();
    server = s;
    const c = clients.create(s.url);
    // The socket is reused: the probe went on it first.
    await c.ready();
    s.on((req, res) => {
      if (req.rpc !== "tools/call") return false;
      // Read, then the connection dropped with no answer: it may have been acted on.
      res.socket?.destroy();
      return true;
    });
    const err = await c.callTool("echo", { n: 1 }).catch((e) => clients.seen(e));
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "transport", reason: "network_error" });
    expect(err.data?.sent).toBeUndefined();
    // The next call is answered: by then a second send of the first would have reached the server.
    s.reset();
    await c.callTool("echo", { n: 2 });
    expect(s.rpcs("tools/call").map((r) => (r.body!.params as { arguments: unknown }).arguments)).toEqual([
      { n: 1 },
      { n: 2 },
    ]);
  });
});
