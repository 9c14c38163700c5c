// Retries only where a call certainly did not run, or where the caller opted in. Each server
// counts what reached it: the scripted HTTP server (in process), a TCP gate in front of it that
// refuses connections on cue, the scripted stdio server's request log, server-filesystem.
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GovernanceOptions, governance, sendAgainAfter } from "../src/governance/index.js";
import { certainlyNotRun } from "../src/governance/retries.js";
import { HttpTransport, McpClientError, subscribe } from "../src/index.js";
import { ECHO_TOOL, json, result, type ScriptedHttpServer, startScripted } from "./support/http-scripted.js";
import {
  ClientPool,
  FILESYSTEM_SERVER,
  nodeServer,
  recordEvents,
  rejectionOf,
  silentLogger,
  uniqueName,
  waitFor,
} from "./support/index.js";
import { scriptedTransport } from "./support/scripted.js";

const pool = new ClientPool();
afterEach(() => pool.closeAll());

let dir: string;
beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "conduit-gov-retry-")));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A TCP gate in front of a server: while shut, connections are refused (nothing reaches it). */
class Gate {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  port = 0;

  constructor(target: number) {
    this.#server = net.createServer((client) => {
      const upstream = net.connect(target, "127.0.0.1");
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on("error", () => {});
        s.on("close", () => {
          this.#sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  }

  /** Listens at once (no host: the bind happens before `listen` returns). */
  open(): void {
    this.#server.listen(this.port);
    this.port = (this.#server.address() as net.AddressInfo).port;
  }

  shut(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

/** The scripted HTTP server, with a tool list cached for a minute (the gate may be shut later). */
async function httpServer(): Promise<ScriptedHttpServer> {
  const server = await startScripted();
  server.on((req, res) => {
    if (req.rpc !== "tools/list") return false;
    json(res, 200, result(req.body?.id, { resultType: "complete", tools: [ECHO_TOOL], ttlMs: 60_000 }));
    return true;
  });
  return server;
}

function httpClient(url: string, options: GovernanceOptions, name = uniqueName("gov-retry-http")) {
  return pool.create({
    name,
    transport: { type: "http", url },
    logger: silentLogger(),
    interceptors: [governance(options)],
  });
}

describe("retries that are safe on their own", () => {
  it("the seed's backoff: 100, 200, 400, ... capped at 5 000", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map(sendAgainAfter)).toEqual([
      100, 200, 400, 800, 1600, 3200, 5000, 5000,
    ]);
  });

  it("a server that refuses the first two connections (nothing sent) answers on the third; it runs the call once", async () => {
    const server = await httpServer();
    const gate = new Gate(server.port);
    gate.open();
    const name = uniqueName("gov-refused");
    // No kept-alive sockets: every request connects, so a shut gate refuses every one.
    const c = pool.create({
      name,
      transport: {
        type: "http",
        url: `http://127.0.0.1:${gate.port}/mcp`,
        dispatcher: new Agent({ pipelining: 0 }),
      },
      logger: silentLogger(),
      backoff: () => 10,
      interceptors: [governance({})],
    });
    const rec = recordEvents({ client: name, names: ["tool_call:stop"] });
    try {
      await c.listAllTools();
      await gate.shut();
      // Refused: the call's own POST, then the first reconnect's probe. Open before the third.
      let refused = 0;
      c.onStateChange((e) => {
        if (e.to === "reconnecting" && ++refused === 2) gate.open();
      });
      const r = await c.callTool("echo", { message: "once" });
      expect(r.isError).toBe(false);
      expect(refused).toBe(2);
      expect(server.rpcs("tools/call")).toHaveLength(1);
      // The connection kept the request that never left; the governor had nothing to retry.
      expect(rec.of("tool_call:stop")[0]).toMatchObject({ status: "ok", attempts: 1 });
    } finally {
      rec.stop();
      await gate.shut().catch(() => {});
      await server.close();
    }
  });

  it("a refused connect is marked data.sent: false where the HTTP transport makes it, and counts as not run", async () => {
    const gate = new Gate(1);
    gate.open();
    const port = gate.port;
    await gate.shut(); // a port nothing listens on
    const t = new HttpTransport({ url: `http://127.0.0.1:${port}/mcp` });
    let failed!: (err: McpClientError) => void;
    const failure = new Promise<McpClientError>((resolve) => {
      failed = resolve;
    });
    await t.start({
      message: () => {},
      fail: (_id: unknown, err: McpClientError) => failed(err),
      closed: () => {},
    });
    try {
      await t.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo" } });
      const err = await failure;
      expect(err).toMatchObject({ kind: "transport", reason: "network_error" });
      expect(err.data).toEqual({ code: "ECONNREFUSED", sent: false });
      expect(certainlyNotRun(err)).toBe(true);
      // What may have been written is not: the same failure without the mark.
      expect(certainlyNotRun(new McpClientError("transport", "network_error", { code: "ECONNRESET" }))).toBe(
        false,
      );
      expect(certainlyNotRun(new McpClientError("timeout", "deadline_exceeded"))).toBe(false);
    } finally {
      await t.close();
    }
  });

  it("a 429 is retried after its Retry-After; one asking to wait past the deadline is not", async () => {
    const server = await httpServer();
    let refusals = 0;
    let retryAfter = "0";
    server.on((req, res) => {
      if (req.rpc !== "tools/call" || refusals-- <= 0) return false;
      res.writeHead(429, { "retry-after": retryAfter }).end();
      return true;
    });
    const c = httpClient(server.url, {});
    try {
      refusals = 1;
      expect((await c.callTool("echo", {})).isError).toBe(false);
      expect(server.rpcs("tools/call")).toHaveLength(2);

      refusals = 1;
      retryAfter = "3600";
      const err = (await rejectionOf(c.callTool("echo", {}, { timeout: 5_000 }))) as McpClientError;
      expect(err.kind).toBe("rate_limited");
      expect(server.rpcs("tools/call")).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it("overloaded (refused before sending) is retried", async () => {
    const stateFile = join(dir, "overloaded.log");
    const name = uniqueName("gov-overloaded");
    const c = pool.create({
      name,
      transport: scriptedTransport({ stateFile }),
      logger: silentLogger(),
      maxInFlight: 1,
      maxQueued: 0,
      interceptors: [governance({})],
    });
    await c.ready();
    const first = new AbortController();
    const hanging = c.callTool("hang", {}, { signal: first.signal });
    hanging.catch(() => {});
    const rec = recordEvents({ client: name, names: ["tool_call:retry"] });
    // The retry is announced before its backoff: free the slot then.
    const off = subscribe("tool_call:retry", (e) => {
      if (e.client === name) first.abort(new Error("done waiting"));
    });
    try {
      await expect(c.callTool("echo", {})).resolves.toMatchObject({ isError: false });
      // The seed's first delay: 100 ms.
      expect(rec.events.map((e) => [e.errorKind, e.attempt, e.delay])).toEqual([["overloaded", 2, 100]]);
      // Refused before sending, then sent: the server received it once.
      const echoes = readFileSync(stateFile, "utf8")
        .split("\n")
        .filter((l) => l === "tools/call echo");
      expect(echoes).toHaveLength(1);
    } finally {
      off();
      rec.stop();
    }
  });
});

describe("a governed call's listing refused before sending", () => {
  it("is asked again under retries (overloaded: nothing ran); the server receives the call once", async () => {
    const stateFile = join(dir, "lookup-overloaded.log");
    const name = uniqueName("gov-lookup");
    // ttlMs 0: every governed call lists the tools first, and that listing takes the one slot.
    const c = pool.create({
      name,
      transport: scriptedTransport({ stateFile, hints: [{ ttlMs: 0 }] }),
      logger: silentLogger(),
      maxInFlight: 1,
      maxQueued: 0,
      interceptors: [governance({})],
    });
    await c.ready();
    const log = () => (existsSync(stateFile) ? readFileSync(stateFile, "utf8").split("\n") : []);
    const first = new AbortController();
    const hanging = c.callTool("hang", {}, { signal: first.signal });
    hanging.catch(() => {});
    await waitFor(() => log().includes("tools/call hang"), 20_000);
    const rec = recordEvents({ client: name, names: ["tool_call:retry", "tool_call:stop"] });
    // The retry is announced before its backoff: free the slot then.
    const off = subscribe("tool_call:retry", (e) => {
      if (e.client === name) first.abort(new Error("done waiting"));
    });
    try {
      await expect(c.callTool("echo", {})).resolves.toMatchObject({ isError: false });
      expect(rec.of("tool_call:retry").map((e) => [e.errorKind, e.attempt, e.delay])).toEqual([
        ["overloaded", 2, 100],
      ]);
      // The refused listing was the first attempt; the call went out once, as the second.
      expect(rec.of("tool_call:stop").find((e) => e.toolName === "echo")).toMatchObject({
        status: "ok",
        attempts: 2,
      });
      expect(log().filter((l) => l === "tools/call echo")).toHaveLength(1);
    } finally {
      off();
      rec.stop();
    }
  });
});

describe("what may have run is sent once, unless the caller opts in", () => {
  function hangCount(stateFile: string): number {
    return existsSync(stateFile)
      ? readFileSync(stateFile, "utf8")
          .split("\n")
          .filter((l) => l === "tools/call hang").length
      : 0;
  }

  it("a call that timed out after the server received it is sent exactly once", async () => {
    const stateFile = join(dir, "timeout-once.log");
    const c = pool.create({
      name: uniqueName("gov-timeout"),
      transport: scriptedTransport({ stateFile }),
      logger: silentLogger(),
      interceptors: [governance({ retries: { attemptTimeout: 200 } })],
    });
    const err = (await rejectionOf(c.callTool("hang", {}, { timeout: 20_000 }))) as McpClientError;
    expect(err.kind).toBe("timeout");
    expect(hangCount(stateFile)).toBe(1);
  });

  it('retry: "idempotent" sends it again, within the attempts and the one deadline', async () => {
    const stateFile = join(dir, "timeout-idempotent.log");
    const name = uniqueName("gov-idempotent");
    const rec = recordEvents({ client: name, names: ["tool_call:retry", "tool_call:stop"] });
    const c = pool.create({
      name,
      transport: scriptedTransport({ stateFile }),
      logger: silentLogger(),
      interceptors: [governance({ retries: { attemptTimeout: 200, backoff: () => 10 } })],
    });
    try {
      const err = (await rejectionOf(
        c.callTool("hang", {}, { timeout: 20_000, retry: "idempotent" }),
      )) as McpClientError;
      expect(err.kind).toBe("timeout");
      expect(hangCount(stateFile)).toBe(3);
      expect(rec.of("tool_call:retry").map((e) => e.errorKind)).toEqual(["timeout", "timeout"]);
      expect(rec.of("tool_call:stop")[0]).toMatchObject({
        status: "error",
        attempts: 3,
        errorKind: "timeout",
      });
    } finally {
      rec.stop();
    }
  });

  it("a transport failure after sending is not retried", async () => {
    const server = await httpServer();
    server.on((req, res) => {
      if (req.rpc !== "tools/call") return false;
      // The server has read the request; then the connection dies before any answer.
      res.socket?.destroy();
      return true;
    });
    const c = httpClient(server.url, {});
    try {
      const err = (await rejectionOf(c.callTool("echo", {}))) as McpClientError;
      expect(err.kind).toBe("transport");
      expect((err.data as { sent?: unknown } | undefined)?.sent).toBeUndefined();
      expect(server.rpcs("tools/call")).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it("an isError result is retried only when the tool is opted in", async () => {
    const name = uniqueName("gov-iserror");
    const rec = recordEvents({ client: name, names: ["tool_call:stop"] });
    const c = pool.create({
      name,
      transport: nodeServer(FILESYSTEM_SERVER, [dir]),
      logger: silentLogger(),
      interceptors: [
        governance({
          retries: { backoff: () => 0 },
          policy: [
            { tool: "read_text_file", decision: "allow", retry: "idempotent" },
            { tool: "*", decision: "allow" },
          ],
        }),
      ],
    });
    try {
      const missing = join(dir, "missing.txt");
      expect((await c.callTool("get_file_info", { path: missing })).isError).toBe(true);
      expect((await c.callTool("read_text_file", { path: missing })).isError).toBe(true);
      expect(rec.of("tool_call:stop").map((e) => [e.isError, e.attempts])).toEqual([
        [true, 1],
        [true, 3],
      ]);
    } finally {
      rec.stop();
    }
  });
});
