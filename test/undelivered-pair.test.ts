/**
 * Requests that never left because nothing could be connected to wait for the next connection
 * (docs/http.md, docs/reconnects.md). Several sent at once to an HTTP server that just went away: the first one's
 * failure closed the transport, and the others (pending on it, though they had not left) were
 * failed with it instead of waiting. All now wait and all are answered once the server is back.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";

let http: RunningServer | undefined;
afterAll(async () => {
  await http?.stop();
});

describe("requests that never left, several at once", () => {
  it.each(["modern", "legacy"] as const)(
    "%s: all wait for the server to come back",
    async (protocol) => {
      http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
      const port = http.port;
      const client = new Client({
        name: "undelivered-pair",
        transport: { type: "http", url: http.url },
        protocol,
        requestTimeout: 20_000,
        backoff: () => 100,
      });
      try {
        await client.ready();
        await client.listAllTools();
        await http.stop();
        http = undefined;
        const calls = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => client.callTool("echo", { message: `m${i}` }));
        for (const c of calls) c.catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 300));
        http = await startHttpFixture(HTTP_OFFICIAL, ["dual", String(port)]);
        const results = await Promise.allSettled(calls);
        expect(results.map((r) => r.status)).toEqual(calls.map(() => "fulfilled"));
      } finally {
        await client.close();
        await http?.stop();
        http = undefined;
      }
    },
    40_000,
  );
});
