/**
 * A shared list store is anyone's code, and anyone with write access to it can plant a value
 * (docs/fleet.md). The Redis store checks what it reads (test/hostile-redis-values.test.ts); the
 * client checks too, for every store: a stored listing no client would have written (a page that
 * is null or not an object, a page without the list, more items or pages than the client's
 * `maxListItems` / `maxListPages`) is a miss, and the server is asked. Before: a null page threw a
 * bare TypeError from listAllTools on every call, and a planted 20 000-tool listing passed
 * `maxListItems` and became the client's tool list (`echo` unknown).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type ListCacheStore, type StoredList } from "../src/index.js";
import { HTTP_OFFICIAL, type RunningServer, startHttpFixture } from "./support/http-servers.js";

let http: RunningServer;
beforeAll(async () => {
  http = await startHttpFixture(HTTP_OFFICIAL, ["dual"]);
});
afterAll(async () => {
  await http?.stop();
});

const fresh = (pages: unknown[]): StoredList =>
  ({ pages, fetchedAt: Date.now(), ttlMs: 60_000, scope: "public" }) as unknown as StoredList;
const tool = (name: string) => ({ name, inputSchema: { type: "object" } });

/** A store that holds `planted` for every tool listing and keeps nothing written to it. */
function plantedStore(planted: () => StoredList): ListCacheStore {
  return {
    get: (key) => (key.kind === "tools" ? planted() : undefined),
    set: () => {},
    delete: () => {},
    watch: () => () => {},
  };
}

const PLANTED: Record<string, () => StoredList> = {
  "a null page": () => fresh([null]),
  "a page that is a string": () => fresh(["tools"]),
  "a page without the tools": () => fresh([{ nextCursor: "x" }]),
  "tools that are not an array": () => fresh([{ tools: { echo: tool("echo") } }]),
  "20 000 tools (over maxListItems)": () =>
    fresh([{ tools: Array.from({ length: 20_000 }, (_, i) => tool(`planted_${i}`)) }]),
  "more pages than maxListPages": () =>
    fresh(Array.from({ length: 50 }, () => ({ tools: [tool("planted")] }))),
};

describe("a shared list store holding what no client wrote", () => {
  it.each(Object.keys(PLANTED))(
    "%s: a miss, the server's own tools, calls work",
    async (name) => {
      const client = new Client({
        name: "planted-store",
        transport: { type: "http", url: http.url },
        stores: { lists: plantedStore(PLANTED[name]!) },
        maxListItems: 1_000,
        maxListPages: 10,
      });
      try {
        const tools = await client.listAllTools();
        expect(tools.map((t) => t.name)).toContain("echo");
        expect(tools.some((t) => t.name.startsWith("planted"))).toBe(false);
        const result = await client.callTool("echo", { message: "hi" });
        expect(JSON.stringify(result.content)).toContain("hi");
      } finally {
        await client.close();
      }
    },
    30_000,
  );
});
