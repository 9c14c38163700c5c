/**
 * Arguments JSON cannot carry, given to the client directly (not through a model adapter, which
 * refuses deeper than 64 levels itself): nested thousands of levels deep, a stringify overflows
 * the stack. That was `transport` / `send_failed` with "Maximum call stack size exceeded" as its
 * cause, as if the connection had failed. It is the caller's mistake: a TypeError that says so,
 * nothing sent, and the client goes on working. Over stdio and HTTP, both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";
import { officialServer } from "./support/index.js";

function nested(depth: number): unknown {
  let v: unknown = "bottom";
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

let http: RunningServer;
beforeAll(async () => {
  http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
});
afterAll(async () => {
  await http?.stop();
});

const targets = [
  ["stdio", "modern"],
  ["stdio", "legacy"],
  ["http", "modern"],
  ["http", "legacy"],
] as const;

describe("arguments nested too deep to send", () => {
  it.each(targets)(
    "%s, %s: a TypeError, and the client works on",
    async (kind, protocol) => {
      const client = new Client({
        name: "deep-params",
        transport: kind === "stdio" ? officialServer("dual") : { type: "http", url: http.url },
        protocol,
      });
      try {
        await client.ready();
        const err = await client
          .callTool("echo", { message: "x", extra: nested(20_000) })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(TypeError);
        expect((err as Error).message).toMatch(/too deeply nested or too large/);
        const ok = await client.callTool("echo", { message: "still here" });
        expect(JSON.stringify(ok.content)).toContain("still here");
      } finally {
        await client.close();
      }
    },
    30_000,
  );
});
