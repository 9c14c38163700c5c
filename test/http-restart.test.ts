/**
 * A legacy HTTP server that restarts: the client must notice (its event stream is gone), start a
 * new session, and tell the new server again what the old one was told (resource subscriptions,
 * the log level). Over stdio the same holds for a reconnect.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ServerNotification } from "../src/index.js";
import { waitFor } from "./support/async.js";
import { startWatchServer } from "./support/watch-server.js";

/** The watch fixture, stopped with SIGKILL: the server goes away as in a crash. */
const start = (port = 0) => startWatchServer(port, { stopSignal: "SIGKILL" });

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

describe("a legacy HTTP server that restarts", () => {
  it("is noticed without a request; subscriptions and the log level reach the new session", async () => {
    let server = await start();
    cleanup.push(() => server.stop());
    const c = new Client({
      name: "restart",
      transport: { type: "http", url: server.url },
      protocol: "legacy",
      backoff: () => 50,
      logger: { warn: () => {} },
    });
    cleanup.push(() => c.close());
    const seen: ServerNotification[] = [];
    c.onNotification((n) => seen.push(n));
    await c.subscribe("file:///watched.txt");
    await c.setLogLevel("error");
    await waitFor(async () => (await server.stats()).logLevels.includes("error"));

    await server.stop();
    server = await start(server.port);
    // No request from the client: its event stream's loss alone must bring it back.
    await waitFor(async () => (await server.stats()).logLevels.includes("error"));
    await server.admin("touch", { uri: "file:///watched.txt" });
    await waitFor(() => seen.some((n) => n.method === "notifications/resources/updated"));
    await server.admin("log", { level: "debug", text: "too chatty" });
    await server.admin("log", { level: "error", text: "worth hearing" });
    await waitFor(() => seen.some((n) => n.method === "notifications/message"));
    expect(JSON.stringify(seen)).not.toContain("too chatty");
    expect(c.status().state).toBe("ready");
  }, 30_000);
});
