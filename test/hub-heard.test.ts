/**
 * A hub re-lists only the server that changed, over HTTP in both eras, against the official
 * server (test/fixtures/notify-server.mjs): a modern server's changes ride an acknowledged
 * `subscriptions/listen` stream, a legacy one's the session's GET stream. While the client hears
 * them (`listChangesHeard`), a server that said nothing is not asked again; once its stream is
 * cut, it is. tools/list requests are counted at each server.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { silentLogger } from "./support/logger.js";
import { type NotifyHttpServer, startNotifyHttp } from "./support/notify-http.js";

let running: NotifyHttpServer[] = [];
let hub: Hub | undefined;
afterEach(async () => {
  await hub?.close();
  hub = undefined;
  await Promise.all(running.map((s) => s.stop()));
  running = [];
});

/** Lets the servers' "TOOLS LIST" lines (written before each answer) reach this process. */
const settle = () => new Promise((r) => setTimeout(r, 300));

describe.each(["modern", "legacy"] as const)("a hub of HTTP servers, %s", (era) => {
  it("a list_changed on one of three re-lists that one; a cut stream re-lists its server", async () => {
    running = await Promise.all([0, 1, 2].map(() => startNotifyHttp(era)));
    const logger = silentLogger();
    hub = new Hub({
      servers: Object.fromEntries(
        running.map((s, i) => [`s${i}`, { transport: { type: "http", url: s.url } }]),
      ),
      logger,
      clientOptions: { logger, protocol: era },
    });
    const h = hub;
    const heard = (i: number) => h.client(`s${i}`).listChangesHeard("tools");
    const lists = () => running.map((s) => s.toolLists());
    await h.ready({ timeout: 20_000 });
    await h.listTools();
    await waitFor(() => [0, 1, 2].every((i) => heard(i) !== null), "every stream open");
    // A server whose first listing began before its stream was heard is asked once more (modern:
    // the listen opens with the first listing); after that, nobody.
    await h.listTools();
    await settle();
    const first = lists();
    for (const n of first) expect([1, 2]).toContain(n);
    await h.listTools();
    await h.listTools();
    await settle();
    expect(lists()).toEqual(first);

    const changes: string[] = [];
    h.onToolsChanged((c) => changes.push(`${c.serverId}:${c.reason}`));
    await h.callTool("mcp__s1__add_tool", { name: "fresh" });
    await waitFor(() => changes.includes("s1:list_changed"), "s1's list_changed");
    const names = (await h.listTools()).map((t) => t.name);
    expect(names).toContain("mcp__s1__fresh");
    await settle();
    const [a, b, c] = lists();
    expect([a, c]).toEqual([first[0], first[2]]);
    expect(b).toBeGreaterThan(first[1]!);

    // s2's stream is cut: until the client hears it again (a new token), s2 is asked.
    const before = heard(2);
    const afterChange = lists();
    await running[2]!.dropStreams();
    await waitFor(() => heard(2) !== before, "s2's stream seen lost");
    await h.listTools();
    await settle();
    expect(lists()).toEqual([afterChange[0], afterChange[1], afterChange[2]! + 1]);

    // Heard again (a reopened stream): one more listing under it, then nobody is asked.
    await waitFor(() => heard(2) !== null, "s2's stream open again", 15_000);
    await h.listTools();
    await h.listTools();
    await settle();
    const steady = lists();
    await h.listTools();
    await settle();
    expect(lists()).toEqual(steady);
    expect(steady[0]).toBe(first[0]);
  }, 60_000);
});
