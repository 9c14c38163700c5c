/**
 * A stdio server whose arguments are over the system's limit (a config that expands a variable to
 * megabytes): the spawn is refused at once (E2BIG). That was reported as `handshake_failed`, as if
 * the server had been started and answered wrongly, and retried. It is the configuration's fault:
 * `spawn_failed` with `data.code`, not retried, and ready() says so at once.
 */
import { describe, expect, it } from "vitest";
import { Client, McpClientError } from "../src/index.js";

describe("stdio arguments over the system's limit", () => {
  it("spawn_failed with E2BIG, not retried", async () => {
    const client = new Client({
      name: "args-too-long",
      transport: { type: "stdio", command: process.execPath, args: ["-e", "1", "x".repeat(3_000_000)] },
    });
    try {
      const started = Date.now();
      const err = await client.ready().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpClientError);
      const cause = (err as McpClientError).cause as McpClientError;
      expect([(err as McpClientError).reason, cause?.reason]).toContain("spawn_failed");
      expect(cause?.data ?? (err as McpClientError).data).toMatchObject({ code: "E2BIG" });
      expect(client.status().state).toBe("closed");
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await client.close();
    }
  });
});
