/**
 * conduit-mcp/redis without its optional peer: the `redis` package is loaded by dynamic import
 * only when a URL is given, and its absence is a typed error naming the package and the install
 * command. The import is made to fail as Node fails it for a package that is not installed.
 */
import { describe, expect, it, vi } from "vitest";

vi.mock("redis", () => {
  const err = new Error("Cannot find package 'redis' imported from conduit-mcp/redis") as Error & {
    code?: string;
  };
  err.code = "ERR_MODULE_NOT_FOUND";
  throw err;
});

describe("redisStores without the redis package", () => {
  it("fails unavailable/dependency_missing, naming the package and how to install it", async () => {
    const { McpClientError } = await import("../src/index.js");
    const { redisStores } = await import("../src/redis/index.js");
    const err = await redisStores({ url: "redis://127.0.0.1:1" }, { prefix: "missing" }).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({
      kind: "unavailable",
      reason: "dependency_missing",
      detail: { package: "redis", install: "npm install redis" },
    });
    expect(String(err.message)).toMatch(/redis/);
    expect(String(err.message)).toMatch(/npm install redis/);
    // The import's own failure is kept (vitest wraps the loader's error in one of its own).
    expect(err.cause).toBeInstanceOf(Error);
  });

  it("a store given a client of its own never imports the package", async () => {
    const { redisStores } = await import("../src/redis/index.js");
    const client = new Proxy({}, { get: () => undefined });
    // Whatever it makes of this odd client, it is not dependency_missing.
    const err = await Promise.resolve()
      .then(() => redisStores({ client: client as never }, { prefix: "own" }))
      .then((s) => s.close())
      .catch((e) => e);
    expect((err as { reason?: string } | undefined)?.reason).not.toBe("dependency_missing");
  });
});
