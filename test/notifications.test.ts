import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  COALESCE_MS,
  type ListKind,
  NotificationFanOut,
  type ServerNotification,
} from "../src/client/notifications/fan-out.js";
import { Client, McpClientError } from "../src/index.js";
import { Telemetry } from "../src/telemetry/events.js";
import { waitFor } from "./support/async.js";
import {
  closeAll,
  recordEvents,
  recordingLogger,
  scriptedClient,
  scriptedTransport,
} from "./support/scripted.js";
import { WireTap } from "./support/wire-tap.js";

afterEach(closeAll);
afterEach(() => {
  vi.useRealTimers();
});

const ACK = "notifications/subscriptions/acknowledged";

/** A scripted client whose wire is tapped: `acks()` counts the listens the server acknowledged. */
function tappedClient(
  config: Record<string, unknown> = {},
  options: Parameters<typeof scriptedClient>[1] = {},
) {
  const tap = new WireTap(scriptedTransport(config));
  const c = scriptedClient(config, { transport: tap, ...options });
  return Object.assign(c, { tap, acks: () => tap.received.filter((m) => m.method === ACK).length });
}

const NOTIFY = fileURLToPath(new URL("./fixtures/notify-server.mjs", import.meta.url));
const opened: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

/** A client of the notify fixture; `tap` holds what went over the wire. */
function notifyClient(era: "modern" | "legacy", hints: string[] = []) {
  const tap = new WireTap({
    type: "stdio",
    command: process.execPath,
    args: [NOTIFY, era, ...hints],
    stderr: "discard",
  });
  const c = new Client({ name: `notify-${era}`, transport: tap, logger: recordingLogger() });
  opened.push(c);
  return Object.assign(c, { tap });
}

describe.each(["modern", "legacy"] as const)("against the official server, %s era", (era) => {
  it("a tool added at run time reaches listAllTools() and the cache on its own", async () => {
    const c = notifyClient(era);
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["add_tool", "touch", "log"]);
    expect(c.era()).toBe(era);
    // Modern: the listen stream the cached list asked for is open once the server acknowledges it.
    if (era === "modern") {
      await waitFor(() =>
        c.tap.received.some((m) => m.method === "notifications/subscriptions/acknowledged"),
      );
    }
    await c.callTool("add_tool", { name: "extra" });
    await waitFor(() => c.cachedTools().some((t) => t.name === "extra"));
    expect(seen.map((n) => n.method)).toContain("notifications/tools/list_changed");
    expect((await c.listAllTools()).map((t) => t.name)).toContain("extra");
    expect(c.tool("extra").description).toBe("added #1");
  });

  it("a resource update reaches a subscribe()r, also through the async iterator", async () => {
    const c = notifyClient(era);
    const ac = new AbortController();
    const it = c.notifications({ signal: ac.signal });
    // Connected first: the 3 s timeout is for the acknowledgment, not a slow server start.
    await c.ready({ timeout: 30_000 });
    await c.subscribe("file:///watched.txt", { timeout: 3000 });
    await c.callTool("touch", { uri: "file:///watched.txt" });
    let update: ServerNotification | undefined;
    for await (const n of it) {
      if (n.method === "notifications/resources/updated") {
        update = n;
        break;
      }
    }
    expect(update?.params?.uri).toBe("file:///watched.txt");
    ac.abort();
    await c.unsubscribe("file:///watched.txt");
  });

  it("log entries are delivered sanitised, carrying only level, logger and data", async () => {
    const c = notifyClient(era);
    const logs: ServerNotification[] = [];
    c.onNotification((n) => n.method === "notifications/message" && logs.push(n));
    await c.setLogLevel("debug");
    await c.callTool("log", { count: 2, text: "red\u001b[31m\u202Etext" });
    await waitFor(() => logs.length === 2);
    expect(logs[0]!.params).toEqual({ level: "warning", logger: "notify", data: { text: "redtext", i: 0 } });
  });
});

describe("ttlMs and cacheScope from the official server (modern)", () => {
  it("a list is served from the cache for its ttlMs, and refresh: true bypasses it", async () => {
    const rec = recordEvents("request:start");
    const c = notifyClient("modern", ["60000", "public"]);
    await c.listAllTools();
    await c.listAllTools();
    const lists = () =>
      rec.of("request:start").filter((e) => e.client === "notify-modern" && e.method === "tools/list");
    expect(lists()).toHaveLength(1);
    await c.listAllTools({ refresh: true });
    expect(lists()).toHaveLength(2);
    rec.stop();
  });

  it("ttlMs 0 (the default) means every listAll asks again; cachedTools still answers", async () => {
    const rec = recordEvents("request:start");
    const c = notifyClient("modern");
    await c.listAllTools();
    await c.listAllTools();
    rec.stop();
    expect(
      rec.of("request:start").filter((e) => e.client === "notify-modern" && e.method === "tools/list"),
    ).toHaveLength(2);
    expect(c.cachedTools()).toHaveLength(3);
  });
});

describe("list_changed coalescing (fake timers)", () => {
  function fanOut() {
    const changed: ListKind[] = [];
    const delivered: ServerNotification[] = [];
    const f = new NotificationFanOut({
      logRateLimit: { perSecond: 10, burst: 20 },
      telemetry: new Telemetry(() => ({ client: "t", serverId: "t", transport: "stdio", era: null })),
      warn: () => {},
      listChanged: (kind) => changed.push(kind),
    });
    f.subscribe((n) => delivered.push(n));
    return { f, changed, delivered };
  }
  const tools = "notifications/tools/list_changed";

  it("the first at once; the rest of the window as one, when the window ends", () => {
    vi.useFakeTimers();
    const { f, changed, delivered } = fanOut();
    f.receive(tools, { i: 0 });
    expect(delivered).toEqual([{ method: tools, params: { i: 0 } }]);
    for (let i = 1; i < 500; i++) f.receive(tools, { i });
    vi.advanceTimersByTime(COALESCE_MS - 1);
    expect(delivered).toHaveLength(1);
    vi.advanceTimersByTime(1);
    // The trailing one is the newest of the window.
    expect(delivered).toEqual([
      { method: tools, params: { i: 0 } },
      { method: tools, params: { i: 499 } },
    ]);
    expect(changed).toEqual(["tools", "tools"]);
    // Delivering the trailing one opened a new window: one more waits for its end.
    f.receive(tools, { i: 500 });
    expect(delivered).toHaveLength(2);
    vi.advanceTimersByTime(COALESCE_MS);
    expect(delivered.at(-1)).toEqual({ method: tools, params: { i: 500 } });
    // A quiet window closes with nothing to send; the next one is delivered at once again.
    vi.advanceTimersByTime(COALESCE_MS);
    expect(delivered).toHaveLength(3);
    f.receive(tools, { i: 501 });
    expect(delivered).toHaveLength(4);
    f.close();
  });

  it("each list kind has its own window; close() drops a pending trailing one", () => {
    vi.useFakeTimers();
    const { f, delivered } = fanOut();
    f.receive(tools, {});
    f.receive("notifications/prompts/list_changed", {});
    expect(delivered.map((n) => n.method)).toEqual([tools, "notifications/prompts/list_changed"]);
    f.receive(tools, { late: true });
    f.close();
    vi.advanceTimersByTime(COALESCE_MS * 2);
    expect(delivered).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("notifications from a scripted server", () => {
  it("list_changed bursts are coalesced: the first at once, the rest as one trailing notification", async () => {
    // The window's timing is the fake-timer test below; this one runs the whole road.
    for (const protocol of ["modern", "legacy"] as const) {
      const c = tappedClient({}, { protocol });
      let seen = 0;
      c.onNotification((n) => n.method === "notifications/tools/list_changed" && seen++);
      await c.listAllTools();
      // Modern: the burst rides the listen stream once the server has acknowledged it.
      if (protocol === "modern") await waitFor(() => c.acks() > 0, "the listen to be acknowledged");
      await c.callTool("flood", { kind: "tools", count: 500 });
      // The whole burst came before the call's result (one ordered pipe), inside one window: one
      // so far, and nothing arrives after the trailing one to open a third.
      expect(seen).toBe(1);
      await waitFor(() => seen === 2, "the trailing list_changed");
    }
  });

  it("log floods are rate-limited (log:dropped each), and memory stays flat", async () => {
    const rec = recordEvents("log:dropped");
    const c = scriptedClient({}, { logRateLimit: { perSecond: 10, burst: 20 } });
    let logs = 0;
    c.onNotification((n) => n.method === "notifications/message" && logs++);
    await c.ready();
    const heap0 = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    await c.callTool("flood", { kind: "logs", count: 5000, text: "x".repeat(100) });
    // Every entry is either delivered or dropped.
    await waitFor(() => logs + rec.of("log:dropped").length === 5000, "all 5000 entries");
    rec.stop();
    // The bucket passes its burst plus what refills while the flood lasts (longer on a busy machine).
    const refilled = Math.ceil(((performance.now() - t0) / 1000) * 10);
    expect(logs).toBeGreaterThanOrEqual(20);
    expect(logs).toBeLessThanOrEqual(20 + refilled);
    expect(logs).toBeLessThan(1000);
    expect(rec.of("log:dropped").length).toBe(5000 - logs);
    expect(process.memoryUsage().heapUsed - heap0).toBeLessThan(50 * 1024 * 1024);
  });

  it("a slow iterator consumer loses the oldest entries, with a count", async () => {
    const rec = recordEvents("notification");
    const c = scriptedClient();
    const it = c.notifications({ bufferSize: 10 });
    await c.callTool("flood", { kind: "other", count: 50 });
    await waitFor(
      () => rec.of("notification").filter((e) => e.method === "notifications/other").length === 50,
    );
    rec.stop();
    const first = await it.next();
    expect(it.dropped).toBe(40);
    expect((first.value as ServerNotification).params?.i).toBe(40);
    await it.return?.();
  });

  it("hostile strings are sanitised everywhere they surface; levels outside RFC 5424 become info", async () => {
    const c = scriptedClient();
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.callTool("flood", {
      kind: "logs",
      count: 1,
      level: "apocalypse",
      logger: "l\u001b]0;x\u0007og",
      text: "\u200Bhi\u2028there",
    });
    await c.callTool("flood", { kind: "other", method: "notifications/custom\u001b[2J", text: "a\u0000b" });
    await waitFor(() => seen.length >= 2);
    const log = seen.find((n) => n.method === "notifications/message")!;
    expect(log.params).toEqual({ level: "info", logger: "log", data: { text: "hi\nthere", i: 0 } });
    const other = seen.find((n) => n.method.startsWith("notifications/custom"))!;
    expect(other.method).toBe("notifications/custom");
    expect(other.params?.text).toBe("ab");
  });

  it("a cursor cycle caches nothing", async () => {
    const c = scriptedClient({ pages: "cycle" });
    await expect(c.listAllTools()).rejects.toMatchObject({ kind: "pagination_cycle" });
    expect(() => c.cachedTools()).toThrow(
      expect.objectContaining({ kind: "not_found", reason: "not_cached" }),
    );
  });

  it("cachedTools and tool never ask the server, and say not_cached before the first listing", async () => {
    const rec = recordEvents("request:start");
    const c = scriptedClient();
    await c.ready();
    expect(() => c.cachedTools()).toThrow(McpClientError);
    expect(() => c.tool("echo")).toThrow(expect.objectContaining({ reason: "not_cached" }));
    await c.listAllTools();
    const before = rec.events.length;
    expect(c.tool("echo").name).toBe("echo");
    expect(() => c.tool("nope")).toThrow(expect.objectContaining({ kind: "not_found" }));
    expect(rec.events.length).toBe(before);
    rec.stop();
  });

  it("mixed public and private pages make a private list; the smallest ttlMs wins", async () => {
    // The cache reads Date.now(): a fake clock (timers stay real) passes the 100 ms at once.
    vi.useFakeTimers({ toFake: ["Date"] });
    const rec = recordEvents("request:start", "cache:refresh:stop");
    const tools = [
      { name: "a", inputSchema: { type: "object" } },
      { name: "b", inputSchema: { type: "object" } },
    ];
    const c = scriptedClient({
      tools,
      pages: "two",
      hints: [
        { ttlMs: 60_000, cacheScope: "public" },
        { ttlMs: 100, cacheScope: "private" },
      ],
    });
    await c.listAllTools();
    await c.listAllTools();
    const lists = () => rec.of("request:start").filter((e) => e.method === "tools/list").length;
    expect(lists()).toBe(2); // two pages, then served fresh
    vi.setSystemTime(Date.now() + 150);
    await c.listAllTools();
    expect(lists()).toBe(4); // the 100 ms page expired the whole list
    expect(rec.of("cache:refresh:stop")[0]).toMatchObject({ status: "ok", count: 2, pages: 2, rejected: 0 });
    rec.stop();
  });

  it("negative or non-integer ttlMs means 0; ttlMs over maxCacheTtl is clamped", async () => {
    vi.useFakeTimers({ toFake: ["Date"] }); // the cache's clock (see above)
    const rec = recordEvents("request:start");
    const bad = scriptedClient({ hints: [{ ttlMs: -5, cacheScope: "public" }] }, { serverId: "bad" });
    await bad.listAllTools();
    await bad.listAllTools();
    const clamped = scriptedClient(
      { hints: [{ ttlMs: 10_000_000, cacheScope: "public" }] },
      { serverId: "clamped", maxCacheTtl: 100 },
    );
    await clamped.listAllTools();
    vi.setSystemTime(Date.now() + 150);
    await clamped.listAllTools();
    rec.stop();
    const count = (id: string) =>
      rec.of("request:start").filter((e) => e.serverId === id && e.method === "tools/list").length;
    expect(count("bad")).toBe(2);
    expect(count("clamped")).toBe(2);
  });

  it("a changed tool definition between listings emits tool:definition_changed and tells subscribers", async () => {
    const rec = recordEvents("tool:definition_changed");
    const c = scriptedClient();
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.listAllTools();
    await c.callTool("swap", {});
    await c.listAllTools({ refresh: true });
    rec.stop();
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["echo"]);
    expect(seen).toContainEqual({ method: "conduit-mcp/tool_definition_changed", params: { name: "echo" } });
  });

  it("the same definitions with their keys in another order are no change; a real change still is", async () => {
    const rec = recordEvents("tool:definition_changed");
    const c = scriptedClient({
      tools: [
        {
          name: "echo",
          description: "Echoes",
          inputSchema: { type: "object", properties: { a: {}, b: {} } },
        },
      ],
    });
    await c.listAllTools();
    await c.callTool("reorder", {});
    await c.listAllTools({ refresh: true });
    expect(rec.of("tool:definition_changed")).toEqual([]);
    await c.callTool("swap", {});
    await c.listAllTools({ refresh: true });
    rec.stop();
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["echo"]);
  });

  it("one refresh at a time, shared; a caller that stops waiting still fills the cache", async () => {
    const rec = recordEvents("request:start");
    const c = scriptedClient({ hints: [{ ttlMs: 60_000, cacheScope: "public" }] });
    await c.ready();
    const ac = new AbortController();
    const calls = [c.listAllTools({ signal: ac.signal }), c.listAllTools(), c.listAllTools()];
    ac.abort(new Error("gone"));
    const results = await Promise.allSettled(calls);
    expect(results[0]).toMatchObject({ status: "rejected" });
    expect(results[1]).toMatchObject({ status: "fulfilled" });
    expect(rec.of("request:start").filter((e) => e.method === "tools/list")).toHaveLength(1);
    rec.stop();
    expect(c.cachedTools().length).toBe(3);
  });

  it("the cache is stale after the connection is lost", async () => {
    const rec = recordEvents("request:start");
    const c = scriptedClient({ hints: [{ ttlMs: 60_000, cacheScope: "public" }] }, { backoff: () => 10 });
    await c.listAllTools();
    await c.callTool("exit", {}).catch(() => {});
    await c.ready();
    expect(c.cachedTools()).toHaveLength(3); // still there to read
    await c.listAllTools();
    rec.stop();
    expect(rec.of("request:start").filter((e) => e.method === "tools/list")).toHaveLength(2);
  });
});

describe("modern listen streams", () => {
  it("the client opens a listen for what its consumers want and the server advertises", async () => {
    const c = tappedClient();
    await c.ready();
    const listens = async () =>
      (
        (await c.callTool("listens", {})).structured as {
          listens: Array<{ filter: Record<string, unknown> }>;
        }
      ).listens;
    expect(await listens()).toEqual([]); // nobody wants anything yet
    await c.listAllTools();
    await waitFor(() => c.acks() === 1, "the first listen's acknowledgment");
    expect((await listens()).at(-1)!.filter).toEqual({ toolsListChanged: true });
    const off = c.onNotification(() => {});
    await waitFor(() => c.acks() === 2, "the wider listen's acknowledgment");
    expect((await listens()).at(-1)!.filter).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    });
    await c.subscribe("file:///a.txt");
    expect((await listens()).at(-1)!.filter).toMatchObject({ resourceSubscriptions: ["file:///a.txt"] });
    off();
  });

  it("a listen the server ends is reopened after the backoff, with the same filter", async () => {
    const c = tappedClient({}, { backoff: () => 20 });
    await c.listAllTools();
    const listens = async () =>
      ((await c.callTool("listens", {})).structured as { listens: Array<{ id: number; filter: unknown }> })
        .listens;
    await waitFor(() => c.acks() === 1, "the listen's acknowledgment");
    const before = await listens();
    expect(before).toHaveLength(1);
    await c.callTool("endlisten", {});
    await waitFor(() => c.acks() === 2, "the reopened listen's acknowledgment");
    const after = await listens();
    expect(after).toHaveLength(2);
    expect(after[1]!.filter).toEqual(before[0]!.filter);
    expect(after[1]!.id).not.toBe(before[0]!.id);
  });

  it("filter changes replace the listen: the old ones close once the new one is acknowledged", async () => {
    const c = scriptedClient();
    await c.listAllTools();
    for (let i = 0; i < 8; i++) await c.subscribe(`file:///r${i}.txt`);
    const all = (
      (await c.callTool("listens", {})).structured as {
        listens: Array<{ filter: { resourceSubscriptions?: string[] } }>;
      }
    ).listens;
    // One listen per filter change, each a superset of the last.
    expect(all.at(-1)!.filter.resourceSubscriptions).toHaveLength(8);
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.callTool("touch", { uri: "file:///r7.txt" });
    // A later notification on the newest listen: anything the touch caused came before it.
    await c.callTool("flood", { kind: "other", count: 1 });
    await waitFor(() => seen.some((n) => n.method === "notifications/other"), "the later notification");
    // Delivered once: older listens were closed once the newest was acknowledged.
    expect(seen.filter((n) => n.method === "notifications/resources/updated")).toHaveLength(1);
    const ids = (
      (await c.callTool("listens", {})).structured as { listens: Array<{ id: number }> }
    ).listens.map((l) => l.id);
    const { cancelled } = (await c.callTool("cancellations", {})).structured as { cancelled: number[] };
    expect(ids.slice(0, -1).every((id) => cancelled.includes(id))).toBe(true);
    expect(cancelled).not.toContain(ids.at(-1));
  });

  it("never more than four listens at once, even when acknowledgments are slow", async () => {
    const c = scriptedClient({ ackDelay: 300 });
    await c.ready();
    // Eight filter changes in a row, each opening a listen before the last one was acknowledged.
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => c.subscribe(`file:///slow${i}.txt`).catch(() => {})),
    );
    const { listens, maxOpen } = (await c.callTool("listens", {})).structured as {
      listens: unknown[];
      maxOpen: number;
    };
    expect(listens.length).toBeGreaterThan(4);
    expect(maxOpen).toBeLessThanOrEqual(4);
  });

  it("subscribe() fails with subscription_not_acknowledged when the ack leaves the URI out", async () => {
    const c = scriptedClient({ honor: false });
    await expect(c.subscribe("file:///a.txt")).rejects.toMatchObject({
      kind: "protocol",
      reason: "subscription_not_acknowledged",
    });
  });

  it("listens are reopened after a reconnect, and subscriptions survive it", async () => {
    const c = tappedClient({}, { backoff: () => 10 });
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.subscribe("file:///a.txt");
    const acks = c.acks();
    await c.callTool("exit", {}).catch(() => {});
    await c.ready();
    // The new server acknowledged the reopened listen: its touch carries that listen's id.
    await waitFor(() => c.acks() > acks, "the reopened listen's acknowledgment");
    await c.callTool("touch", { uri: "file:///a.txt" });
    await waitFor(() => seen.some((n) => n.method === "notifications/resources/updated"));
  });

  it.each(["modern", "legacy"])(
    "%s: a server without resources.subscribe refuses subscribe()",
    async (era) => {
      const official = fileURLToPath(new URL("./fixtures/official-server.mjs", import.meta.url));
      const c = new Client({
        name: "no-subscribe",
        transport: { type: "stdio", command: process.execPath, args: [official, era], stderr: "discard" },
      });
      opened.push(c);
      await expect(c.subscribe("file:///readme.md")).rejects.toMatchObject({
        kind: "protocol",
        reason: "subscriptions_not_supported",
      });
    },
  );

  it("legacy subscribe sends resources/subscribe, and updates reach subscribers", async () => {
    const c = scriptedClient({}, { protocol: "legacy" });
    await c.subscribe("file:///a.txt");
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.callTool("touch", { uri: "file:///a.txt" });
    await waitFor(() => seen.length > 0);
    expect(seen[0]).toEqual({ method: "notifications/resources/updated", params: { uri: "file:///a.txt" } });
  });
});
