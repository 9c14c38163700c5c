// The in-process transport serving an official McpServer when the optional peer dependency
// @modelcontextprotocol/server is not installed: its import fails as a missing package's would.
import { afterEach, expect, it, vi } from "vitest";
import { Client, type ConnectionState, McpClientError } from "../src/index.js";

vi.mock("@modelcontextprotocol/server/stdio", () => {
  const err = new Error("Cannot find package '@modelcontextprotocol/server' imported from conduit-mcp");
  (err as NodeJS.ErrnoException).code = "ERR_MODULE_NOT_FOUND";
  throw err;
});

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

it("a missing @modelcontextprotocol/server: ready() rejects at once, naming the package and the install", async () => {
  // Shaped as an McpServer: the transport needs the package to serve it.
  const server = { connect: async () => {}, close: async () => {} };
  const c = new Client({ name: "missing-peer", transport: { type: "in-process", server } });
  open.push(c);
  const states: ConnectionState[] = [];
  c.onStateChange((e) => states.push(e.to));
  const err = (await c.ready({ timeout: 10_000 }).catch((e: unknown) => e)) as McpClientError;
  expect(err).toBeInstanceOf(McpClientError);
  expect(err).toMatchObject({ kind: "closed", reason: "official_server_missing" });
  expect(err.data).toMatchObject({
    package: "@modelcontextprotocol/server",
    install: "npm install @modelcontextprotocol/server",
  });
  expect((err.data as { hint: string }).hint).toContain("npm install @modelcontextprotocol/server");
  // The message names the package and the command that installs it.
  expect(err.message).toContain("@modelcontextprotocol/server");
  expect(err.message).toContain("npm install @modelcontextprotocol/server");
  // No retry loop: closed straight from the first attempt.
  expect(states).toEqual(["closed"]);
  expect(c.status()).toMatchObject({
    state: "closed",
    reason: expect.stringContaining("transport: official_server_missing"),
  });
});
