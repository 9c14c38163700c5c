import { afterEach, describe, expect, it } from "vitest";
import {
  Client,
  type InProcessPeer,
  type InProcessServer,
  type JsonRpcMessage,
  McpClientError,
} from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";
import { waitFor } from "./support/async.js";
import { ClientPool } from "./support/clients.js";

const pool = new ClientPool();
afterEach(() => pool.closeAll());

/** Serves a FakeServer and hands its peer to the test, which can then send what it likes. */
function exposed(server: FakeServer, onOpen: (peer: InProcessPeer) => void): InProcessServer {
  return {
    serveInProcess(peer) {
      onOpen(peer);
      return server.serveInProcess(peer);
    },
  };
}

const echo = () => new FakeServer().tool("echo", { type: "object" }, ({ message }) => String(message));
const warnings: string[] = [];
const logger = { warn: (m: string) => warnings.push(m) };

describe("in-process transport against a hostile server", () => {
  it("messages that are not JSON-RPC are ignored with a warning; past maxJunkMessages the transport closes", async () => {
    let peer: InProcessPeer | undefined;
    const c = pool.create({
      name: "junk",
      transport: {
        type: "in-process",
        server: exposed(echo(), (p) => {
          peer = p;
        }),
        maxJunkMessages: 2,
      },
      logger,
      maxReconnects: 0,
    });
    await c.ready();
    peer!.send({ nonsense: true } as unknown as JsonRpcMessage);
    expect((await c.callTool("echo", { message: "a" })).content).toEqual([{ type: "text", text: "a" }]);
    expect(warnings.some((w) => w.includes("not JSON-RPC"))).toBe(true);
    for (let i = 0; i < 3; i++) peer!.send({ jsonrpc: "1.0" } as unknown as JsonRpcMessage);
    await expect.poll(() => c.status().state).toBe("closed");
    expect(c.status().reason).toMatch(/junk_output/);
  });

  it("a message JSON cannot carry (a BigInt) counts as junk, not a crash", async () => {
    const server = new FakeServer().tool("big", { type: "object" }, () => ({
      content: [{ type: "text", text: 1n as never }],
    }));
    const c = pool.create({ name: "bigint", transport: { type: "in-process", server }, logger });
    await expect(c.callTool("big", {}, { timeout: 100 })).rejects.toMatchObject({ kind: "timeout" });
  });

  it("a server whose receive() throws: a warning, and the request ends at its deadline", async () => {
    const c = pool.create({
      name: "throws",
      transport: {
        type: "in-process",
        server: {
          serveInProcess: (peer) => ({
            receive: (m) => {
              if ("method" in m && m.method === "tools/call") throw new Error("server bug");
              return echo().serveInProcess(peer).receive(m);
            },
            close: () => {},
          }),
        },
      },
      logger,
    });
    await expect(c.callTool("echo", {}, { timeout: 100 })).rejects.toMatchObject({ kind: "timeout" });
    expect(warnings.some((w) => w.includes("threw on a message"))).toBe(true);
  });

  it("a server that fails to start is a transport error (and the client retries)", async () => {
    let starts = 0;
    const c = pool.create({
      name: "start-fails",
      transport: {
        type: "in-process",
        server: {
          serveInProcess: (peer) => {
            starts += 1;
            if (starts === 1) throw new Error("not yet");
            return echo().serveInProcess(peer);
          },
        },
      },
      logger,
      backoff: () => 1,
    });
    await c.ready();
    expect(starts).toBe(2);
  });

  it("arguments JSON cannot carry are the caller's TypeError; the connection stays up", async () => {
    const c = pool.create({ name: "cycle", transport: { type: "in-process", server: echo() }, logger });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(c.callTool("echo", cyclic)).rejects.toBeInstanceOf(TypeError);
    expect((await c.callTool("echo", { message: "ok" })).content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("the server never shares an object with the client: what it sends is a copy", async () => {
    const result = { content: [{ type: "text", text: "shared?" }] };
    const server = new FakeServer().tool("same", { type: "object" }, () => result);
    const c = pool.create({ name: "copy", transport: { type: "in-process", server }, logger });
    const r = await c.callTool("same", {});
    expect(r.content).toEqual(result.content);
    expect(r.content).not.toBe(result.content);
  });

  it("an unknown tool is the server's -32602, typed as protocol", async () => {
    // callUnlistedTools: the call reaches the server, whose answer is the point here.
    const c = pool.create({
      name: "unknown",
      transport: { type: "in-process", server: echo() },
      logger,
      callUnlistedTools: true,
    });
    const err = await c.callTool("nope", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "protocol", reason: "jsonrpc_error", detail: { jsonrpc: -32602 } });
    // By default the client refuses a name its listing lacks, and sends nothing.
    const strict = pool.create({
      name: "unknown",
      transport: { type: "in-process", server: echo() },
      logger,
    });
    await expect(strict.callTool("nope", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "unknown_tool",
    });
  });
});

describe("in-process: nothing is left behind", () => {
  it("after many start/call/close cycles (a hang cancelled each time), no timer remains", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const before = timers();
    for (let i = 0; i < 20; i++) {
      const server = echo().fail("slow", { hang: true });
      server.tool("slow", { type: "object" }, () => "never");
      const c = new Client({
        name: `in-process-cycle-${i}`,
        transport: { type: "in-process", server },
        logger,
      });
      await c.callTool("echo", { message: "x" });
      await c.callTool("slow", {}, { timeout: 20 }).catch(() => {});
      await c.close();
    }
    await waitFor(() => timers() <= before, "the timers to be cleared", 5000);
  });
});
