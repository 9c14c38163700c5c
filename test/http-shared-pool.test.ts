/**
 * Clients to one origin share keep-alive connections (src/transport/http/shared-pools.ts): a
 * further client costs no socket of its own. What sharing must never change: a request carries
 * only its own client's headers and token; a client's cancellation, limit or close touches none of
 * the other's requests; the last close leaves no socket open. Clients with connect options of
 * their own (TLS settings here) keep their own connections.
 */
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { delay, waitFor } from "./support/async.js";
import { httpTestClients } from "./support/http-clients.js";
import { json, result, type ScriptedHttpServer, startScripted } from "./support/http-scripted.js";

const clients = httpTestClients("http-shared-pool");
let server: ScriptedHttpServer | undefined;

afterEach(async () => {
  await clients.closeAll();
  await server?.close();
  server = undefined;
});
afterAll(() => clients.assertNoLeak());

interface Seen {
  what: string;
  who: string | undefined;
  auth: string | undefined;
  session: string | undefined;
  socket: Socket;
}

/** Records every request the server sees: whose it says it is, its token, session and socket. */
function record(s: ScriptedHttpServer): Seen[] {
  const seen: Seen[] = [];
  s.on((req, res) => {
    const h = req.headers;
    seen.push({
      what: `${req.method} ${req.rpc ?? ""}`,
      who: h["x-client"] as string | undefined,
      auth: h.authorization as string | undefined,
      session: h["mcp-session-id"] as string | undefined,
      socket: res.socket as Socket,
    });
    return false;
  });
  return seen;
}

const sockets = (seen: Seen[]) => new Set(seen.map((u) => u.socket));

/** A client that says who it is in a header and holds a token of its own. */
function named(s: ScriptedHttpServer, who: string, transport: Record<string, unknown> = {}) {
  return clients.create(s.url, {
    auth: { bearer: `token-${who}` },
    headers: { "x-client": who },
    ...transport,
  });
}

/** Holds `tools/call`s whose arguments say `hold`, until `release(tag)`; others answer at once. */
function holdCalls(s: ScriptedHttpServer, era: "modern" | "legacy") {
  const held = new Map<string, { id: unknown; res: ServerResponse }>();
  s.on((req, res) => {
    const args = (req.body?.params as { arguments?: { hold?: string } } | undefined)?.arguments;
    if (req.rpc !== "tools/call" || args?.hold === undefined) return false;
    held.set(args.hold, { id: req.body!.id, res });
    return true;
  });
  return {
    held,
    release(tag: string) {
      const h = held.get(tag)!;
      const meta = era === "modern" ? { resultType: "complete" } : {};
      json(h.res, 200, result(h.id, { ...meta, content: [{ type: "text", text: `released ${tag}` }] }));
    },
  };
}

describe.each(["modern", "legacy"] as const)("a pool shared by clients, %s", (era) => {
  it("two clients to one origin share a socket and never send each other's headers or tokens", async () => {
    const s = await startScripted({ era });
    server = s;
    const seen = record(s);
    const a = named(s, "a");
    await a.callTool("echo", {});
    // Once a's answer has freed its socket (a loop turn later), b connects and calls on it.
    await delay(20);
    const b = named(s, "b");
    for (let i = 0; i < 3; i++) await b.callTool("echo", { i });
    // Modern: one socket for both. Legacy: each client's GET stream holds one, and a third carries
    // the POSTs of both (apart, they would hold four): b opened one socket where it needed two.
    const ofA = sockets(seen.filter((u) => u.who === "a"));
    const bOwn = sockets(seen.filter((u) => u.who === "b" && !ofA.has(u.socket)));
    expect(bOwn.size).toBe(era === "modern" ? 0 : 1);
    expect(sockets(seen).size).toBe(era === "modern" ? 1 : 3);
    // Calls of both in turn: each takes the socket idle through a poll (the other's, at times).
    for (let i = 0; i < 4; i++) {
      expect((await a.callTool("echo", { i })).isError).toBe(false);
      expect((await b.callTool("echo", { i })).isError).toBe(false);
    }
    expect(sockets(seen).size).toBeLessThanOrEqual(era === "modern" ? 2 : 4);
    // Every request carries its own client's token (and session), never the other's.
    expect(seen.every((u) => u.who === "a" || u.who === "b")).toBe(true);
    for (const u of seen) expect(u.auth).toBe(`Bearer token-${u.who}`);
    if (era === "legacy") {
      const of = (who: string) =>
        new Set(seen.filter((u) => u.who === who && u.session).map((u) => u.session));
      expect(of("a").size).toBe(1);
      expect(of("b").size).toBe(1);
      expect([...of("a")][0]).not.toBe([...of("b")][0]);
    }
  });

  it("the first close keeps the shared sockets for the other; the last close leaves none", async () => {
    const s = await startScripted({ era });
    server = s;
    const seen = record(s);
    const a = named(s, "a");
    const b = named(s, "b");
    await a.callTool("echo", {});
    await b.callTool("echo", {});
    await a.close();
    // A loop turn for the connection of a's last request (its DELETE, legacy) to free.
    await delay(20);
    const before = sockets(seen);
    await b.callTool("echo", { after: "a closed" });
    const last = seen.filter((u) => u.what === "POST tools/call").at(-1)!;
    // b's call went on a socket that was open before: a's close did not end the shared one.
    expect(before.has(last.socket)).toBe(true);
    await b.close();
    await waitFor(() => [...sockets(seen)].every((sock) => sock.destroyed), "every socket closed");
  });

  it("one client's cancelled call does not disturb the other's call in flight", async () => {
    const s = await startScripted({ era });
    server = s;
    const seen = record(s);
    const holds = holdCalls(s, era);
    const a = named(s, "a");
    const b = named(s, "b");
    await a.callTool("echo", {});
    await b.callTool("echo", {});
    const controller = new AbortController();
    const aCall = a.callTool("echo", { hold: "a" }, { signal: controller.signal });
    const bCall = b.callTool("echo", { hold: "b" });
    await waitFor(() => holds.held.size === 2, "both calls at the server");
    controller.abort();
    // The caller's signal's reason, as for any aborted call.
    const err = await aCall.catch((e: unknown) => e);
    expect((err as Error).name).toBe("AbortError");
    // a's call's stream is closed; b's is not.
    await waitFor(() => holds.held.get("a")!.res.destroyed || holds.held.get("a")!.res.socket === null);
    expect(holds.held.get("b")!.res.socket?.destroyed).toBe(false);
    holds.release("b");
    expect((await bCall).content).toEqual([{ type: "text", text: "released b" }]);
    expect((await a.callTool("echo", { again: 1 })).isError).toBe(false);
    expect((await b.callTool("echo", { again: 1 })).isError).toBe(false);
    expect(seen.filter((u) => u.who === "b").every((u) => u.auth === "Bearer token-b")).toBe(true);
  });

  it("a client at its poolSize waits for its own connection, never the other client behind it", async () => {
    const s = await startScripted({ era });
    server = s;
    const holds = holdCalls(s, era);
    const a = named(s, "a", { poolSize: era === "modern" ? 1 : 2 });
    const b = named(s, "b");
    await a.callTool("echo", {});
    await b.callTool("echo", {});
    const first = a.callTool("echo", { hold: "a1" });
    await waitFor(() => holds.held.has("a1"), "a's first call at the server");
    const second = a.callTool("echo", { hold: "a2" });
    // b is not held behind a's limit: its call is answered while a's second still waits.
    expect((await b.callTool("echo", { meanwhile: true })).isError).toBe(false);
    expect(holds.held.has("a2")).toBe(false);
    holds.release("a1");
    await first;
    await waitFor(() => holds.held.has("a2"), "a's second call at the server");
    holds.release("a2");
    expect((await second).content).toEqual([{ type: "text", text: "released a2" }]);
  });

  it("closing one client while the other's call is in flight leaves that call alone", async () => {
    const s = await startScripted({ era });
    server = s;
    const holds = holdCalls(s, era);
    const a = named(s, "a");
    const b = named(s, "b");
    await a.callTool("echo", {});
    await b.callTool("echo", {});
    const bCall = b.callTool("echo", { hold: "b" });
    await waitFor(() => holds.held.has("b"), "b's call at the server");
    await a.close();
    holds.release("b");
    expect((await bCall).content).toEqual([{ type: "text", text: "released b" }]);
  });
});

it("a client with connect options of its own keeps its own connections", async () => {
  const s = await startScripted();
  server = s;
  const seen = record(s);
  const a = named(s, "a");
  // TLS options make a connector of its own (they are unused over http: but not shared).
  const b = named(s, "b", { transportOpts: { minVersion: "TLSv1.3" } });
  await a.callTool("echo", {});
  await b.callTool("echo", {});
  await a.callTool("echo", {});
  await b.callTool("echo", {});
  const of = (who: string) => sockets(seen.filter((u) => u.who === who));
  expect(of("a").size).toBe(1);
  expect(of("b").size).toBe(1);
  expect([...of("a")][0]).not.toBe([...of("b")][0]);
});
