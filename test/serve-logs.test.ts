/**
 * serve passes an upstream's log entries to a 2026-07-28 host on the response stream of the call
 * that asked for them (`io.modelcontextprotocol/logLevel` in its `_meta`), and to no other call.
 * The host is conduit-mcp's client (the official client's 2026-07-28 era refuses to set a level).
 * The upstream is conformance/serve-upstream.mjs (the official server SDK), whose
 * test_tool_with_logging logs three entries while its call is in flight; serve's client speaks
 * 2025 to it, so the entries reach serve as the session's notifications.
 */
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { type ServeHandle, serve } from "../src/serve/index.js";
import { silentLogger } from "./support/index.js";

const UPSTREAM = fileURLToPath(new URL("../conformance/serve-upstream.mjs", import.meta.url));
let upstream: Client;
let served: ServeHandle;
let host: Client;

beforeAll(async () => {
  const logger = silentLogger();
  upstream = new Client({
    name: "upstream",
    transport: { type: "stdio", command: process.execPath, args: [UPSTREAM, "stdio"], stderr: "discard" },
    protocol: "legacy",
    logger,
  });
  await upstream.ready();
  served = await serve(upstream, { transport: { type: "http", port: 0 }, logger });
  // The host: conduit-mcp's own client in 2026-07-28, which sends its level in every request's
  // `_meta` once set.
  host = new Client({
    name: "host",
    transport: { type: "http", url: served.url! },
    protocol: "modern",
    logger,
  });
  await host.listTools();
}, 30_000);

afterAll(async () => {
  await host?.close();
  await served?.close();
  await upstream?.close();
});

it("a modern host gets the upstream's log entries on the stream of its call, at the level it asked", async () => {
  const entries: Array<{ level: string; data: unknown }> = [];
  host.onNotification((n) => {
    if (n.method === "notifications/message") entries.push(n.params as { level: string; data: unknown });
  });
  const call = () => host.callTool("test_tool_with_logging", {});
  await host.setLogLevel("info");
  await call();
  expect(entries.map((e) => e.data)).toEqual([
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
  ]);
  expect(entries.every((e) => e.level === "info")).toBe(true);
  // Above the entries' level: none.
  await host.setLogLevel("error");
  await call();
  expect(entries).toHaveLength(3);
}, 30_000);
