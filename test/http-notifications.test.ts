/**
 * Issue 5 over HTTP: notifications, resource subscriptions and the list cache against the official
 * @modelcontextprotocol/server (test/fixtures/notify-server.mjs --http), in both eras. Modern:
 * createMcpHandler (legacy "reject"); the client opens subscriptions/listen itself and the
 * server's changes reach it through the handler's event bus. Legacy: a sessionful transport;
 * notifications arrive on the standalone GET stream.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ServerNotification } from "../src/client/notifications/fan-out.js";
import { Client, Secret, subscribe } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { silentLogger } from "./support/logger.js";
import { type NotifyHttpServer, startNotifyHttp } from "./support/notify-http.js";

const opened: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close().catch(() => {})));
});

let counter = 0;
function httpClient(url: string, era: "modern" | "legacy", token = "alice") {
  counter += 1;
  const c = new Client({
    name: `http-notify-${era}-${process.pid}-${counter}`,
    transport: { type: "http", url, auth: { bearer: new Secret(token) } },
    logger: silentLogger(),
    requestTimeout: 10_000,
  });
  opened.push(c);
  return c;
}

/** Counts the `tools/list` requests of one client, through the public telemetry `subscribe`. */
function countToolLists(c: Client) {
  const name = c.name;
  let n = 0;
  const stop = subscribe("request:start", (e) => {
    if (e.client === name && e.method === "tools/list") n += 1;
  });
  return { count: () => n, stop };
}

describe.each(["modern", "legacy"] as const)("against the official server over HTTP, %s era", (era) => {
  let server: NotifyHttpServer;
  beforeAll(async () => {
    server = await startNotifyHttp(era);
  });
  afterAll(() => server.stop());

  it("a tool added at run time reaches listAllTools() and the cache on its own", async () => {
    const c = httpClient(server.url, era);
    const streams = server.streamsOpened();
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    const methods: unknown[] = [];
    const stop = subscribe("request:start", (e) => e.client === c.name && methods.push(e.method));
    const name = `extra_${era}`;
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["add_tool", "touch", "log"]);
    expect(c.era()).toBe(era);
    // modern: the listen stream the cached list asked for is open; legacy: the GET stream is.
    await waitFor(() => server.streamsOpened() > streams, "the server to open a notification stream");
    await c.callTool("add_tool", { name });
    await waitFor(() => c.cachedTools().some((t) => t.name === name));
    expect(seen.map((n) => n.method)).toContain("notifications/tools/list_changed");
    stop();
    // modern: the client opened subscriptions/listen itself; legacy has no such request.
    expect(methods.includes("subscriptions/listen")).toBe(era === "modern");
    expect((await c.listAllTools()).map((t) => t.name)).toContain(name);
    expect(c.tool(name).description).toBe("added #1");
    // A later client (a new session, or new per-request instances) sees the tool too.
    const later = httpClient(server.url, era);
    expect((await later.listAllTools()).map((t) => t.name)).toContain(name);
    expect((await later.callTool(name, {})).content).toEqual([{ type: "text", text: name }]);
  });

  it("a resource update reaches a subscribe()r, also through the async iterator", async () => {
    const c = httpClient(server.url, era);
    const ac = new AbortController();
    const deadline = setTimeout(() => ac.abort(), 5000);
    const iter = c.notifications({ signal: ac.signal });
    await c.subscribe("file:///watched.txt", { timeout: 5000 });
    // Modern: subscribe() resolved on the listen's acknowledgment. Legacy: this session's GET
    // stream is open (an earlier test's client may open one late: the session tells them apart).
    if (era === "legacy") await waitFor(() => server.subscriberStreamOpen(), "the GET stream");
    await c.callTool("touch", { uri: "file:///watched.txt" });
    let update: ServerNotification | undefined;
    for await (const n of iter) {
      if (n.method === "notifications/resources/updated") {
        update = n;
        break;
      }
    }
    clearTimeout(deadline);
    expect(update?.params?.uri).toBe("file:///watched.txt");
    ac.abort();
    await c.unsubscribe("file:///watched.txt");
  });

  it("after unsubscribe() a touched resource no longer reaches the client", async () => {
    const c = httpClient(server.url, era);
    const seen: ServerNotification[] = [];
    await c.subscribe("file:///watched.txt", { timeout: 5000 });
    await c.unsubscribe("file:///watched.txt");
    c.onNotification((n) => n.method === "notifications/resources/updated" && seen.push(n));
    // A resource still subscribed to: its update, sent after the touch on the same stream, is
    // the mark that anything the touch caused has arrived.
    await c.subscribe("file:///marker.txt", { timeout: 5000 });
    if (era === "legacy") await waitFor(() => server.subscriberStreamOpen(), "the GET stream");
    await c.callTool("touch", { uri: "file:///watched.txt" });
    await c.callTool("touch", { uri: "file:///marker.txt" });
    await waitFor(() => seen.length > 0, "the marker's update");
    expect(seen.map((n) => n.params?.uri)).toEqual(["file:///marker.txt"]);
  });

  it("log entries on the request's stream are delivered sanitised", async () => {
    const c = httpClient(server.url, era);
    const logs: ServerNotification[] = [];
    c.onNotification((n) => n.method === "notifications/message" && logs.push(n));
    await c.setLogLevel("debug");
    await c.callTool("log", { count: 2, text: "red\u001b[31m\u202Etext" });
    await waitFor(() => logs.length === 2);
    expect(logs[0]!.params).toEqual({ level: "warning", logger: "notify", data: { text: "redtext", i: 0 } });
  });
});

describe("ttlMs and cacheScope from the official server over HTTP (modern)", () => {
  const started: NotifyHttpServer[] = [];
  afterAll(() => Promise.all(started.map((s) => s.stop())));
  const start = async (hints: string[]) => {
    const s = await startNotifyHttp("modern", hints);
    started.push(s);
    return s;
  };

  it("a public list is served from the cache for its ttlMs, and refresh: true bypasses it", async () => {
    const s = await start(["60000", "public"]);
    const c = httpClient(s.url, "modern");
    const lists = countToolLists(c);
    await c.listAllTools();
    await c.listAllTools();
    expect(lists.count()).toBe(1);
    await c.listAllTools({ refresh: true });
    expect(lists.count()).toBe(2);
    lists.stop();
  });

  it("a private list is served only while the client sends the same credentials", async () => {
    const s = await start(["60000", "private"]);
    const c = httpClient(s.url, "modern");
    const lists = countToolLists(c);
    await c.listAllTools();
    await c.listAllTools();
    expect(lists.count()).toBe(1);
    await c.setAuth({ bearer: new Secret("bob") });
    await c.listAllTools();
    expect(lists.count()).toBe(2);
    await c.listAllTools();
    expect(lists.count()).toBe(2);
    lists.stop();
  });

  it("a short ttlMs expires: the list is asked for again after it", async () => {
    const s = await start(["150", "public"]);
    const c = httpClient(s.url, "modern");
    const lists = countToolLists(c);
    // The cache reads Date.now(): a fake clock (timers and sockets stay real) passes 250 ms at once.
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      await c.listAllTools();
      await c.listAllTools();
      expect(lists.count()).toBe(1);
      vi.setSystemTime(Date.now() + 250);
      await c.listAllTools();
      expect(lists.count()).toBe(2);
    } finally {
      vi.useRealTimers();
    }
    lists.stop();
  });

  it("without a hint (ttlMs 0) every listAll asks again; cachedTools still answers", async () => {
    const s = await start([]);
    const c = httpClient(s.url, "modern");
    const lists = countToolLists(c);
    await c.listAllTools();
    await c.listAllTools();
    lists.stop();
    expect(lists.count()).toBe(2);
    expect(c.cachedTools()).toHaveLength(3);
  });
});
