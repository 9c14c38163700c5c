import { afterEach, describe, expect, it } from "vitest";
import { type ClientOptions, McpClientError } from "../src/index.js";
import { classifyProbe } from "../src/protocol/probe.js";
import { closeAll, recordEvents, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);

/** The connection:transition states a client went through, in order. */
function states(rec: ReturnType<typeof recordEvents>, client: string): string[] {
  return rec
    .of("connection:transition")
    .filter((e) => e.client === client)
    .map((e) => e.to as string);
}

describe("the stdio probe table, against a scripted server", () => {
  it("a valid DiscoverResult with a mutual modern version: modern", async () => {
    const c = scriptedClient({ probe: "ok" });
    await c.ready();
    expect(c.status()).toEqual({ state: "ready", era: "modern", version: "2026-07-28", reason: null });
    expect(c.serverInfo().serverInfo).toEqual({ name: "scripted", version: "1.0.0" });
  });

  it("-32022 naming a mutual version: discovers once more, never falls back", async () => {
    const c = scriptedClient({ probe: "rediscover" });
    await c.ready();
    expect(c.era()).toBe("modern");
    const r = await c.callTool("echo", {});
    expect(
      (r.structured as { _meta: Record<string, unknown> })._meta["io.modelcontextprotocol/protocolVersion"],
    ).toBe("2026-07-28");
  });

  it.each([
    ["unsupported", "unsupported_protocol_version"],
    ["missing-capability", "jsonrpc=-32021"],
    ["header-mismatch", "jsonrpc=-32020"],
    ["invalid", "invalid_discover_result"],
  ])("probe answer %s: the connection closes with an error", async (probe, reason) => {
    const rec = recordEvents("connection:transition");
    const c = scriptedClient({ probe });
    const err = await c.ready().catch((e) => e);
    rec.stop();
    expect(err).toBeInstanceOf(McpClientError);
    expect(err.kind).toBe("closed");
    expect(c.status().state).toBe("closed");
    expect(c.status().reason).toContain(reason);
    // The closed error keeps the cause's machine-readable reason, JSON-RPC codes included.
    if (reason.startsWith("jsonrpc=")) {
      expect(err.reason).toBe("jsonrpc_error");
      expect(err.detail).toEqual({ jsonrpc: Number(reason.slice(8)) });
    } else expect(err.reason).toBe(reason);
    expect(states(rec, "scripted")).not.toContain("initializing");
    // Requests fail at once, typed.
    await expect(c.listTools()).rejects.toMatchObject({ kind: "closed" });
  });

  it.each([
    ["not-discover", "a result that is not DiscoverResult-shaped"],
    ["method-not-found", "a JSON-RPC error (-32601)"],
    ["invalid-params", "a JSON-RPC error (-32602)"],
  ])("probe answer %s (%s): legacy", async (probe) => {
    const rec = recordEvents("connection:transition");
    const c = scriptedClient({ probe });
    await c.ready();
    rec.stop();
    expect(c.status()).toMatchObject({ state: "ready", era: "legacy", version: "2025-11-25" });
    expect(states(rec, "scripted")).toEqual(["discovering", "initializing", "ready"]);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain("echo");
  });

  it("a probe that times out: legacy, after probeTimeout, and the probe is cancelled", async () => {
    const rec = recordEvents("request:cancel");
    const c = scriptedClient({ probe: "silent" }, { probeTimeout: 200 });
    await c.ready();
    rec.stop();
    // The probe ended by its timeout (not sooner, for some other reason).
    expect(rec.of("request:cancel")).toEqual([
      expect.objectContaining({ client: "scripted", method: "server/discover", reason: "timeout" }),
    ]);
    expect(c.era()).toBe("legacy");
    const r = await c.callTool("cancellations", {});
    expect((r.structured as { cancelled: unknown[] }).cancelled).toEqual([1]);
  });

  it("the server exits during the probe: the next attempt starts with initialize", async () => {
    const rec = recordEvents("connection:transition");
    const c = scriptedClient({ probe: "exit" });
    await c.ready();
    rec.stop();
    expect(c.status()).toMatchObject({ state: "ready", era: "legacy" });
    const seen = states(rec, "scripted");
    expect(seen.indexOf("discovering")).toBeLessThan(seen.lastIndexOf("initializing"));
    expect(seen.filter((s) => s === "discovering")).toHaveLength(1);
    expect(await c.callTool("echo", {})).toMatchObject({ isError: false });
  });
});

describe("a version the client did not offer, or none", () => {
  // Each fails ready() at once with the protocol reason (a long deadline proves nothing waits for
  // it), and the server is started once: the server's verdict is not asked again.
  it.each([
    ["discover answered without supportedVersions", { probe: "no-versions" }, {}, "invalid_discover_result"],
    [
      "discover listing only a version we do not speak",
      { probe: "foreign-versions" },
      {},
      "no_mutual_version",
    ],
    [
      "initialize answered with another version",
      { era: "legacy", initialize: "bad-version" },
      {},
      "unsupported_protocol_version",
    ],
    [
      "a pinned legacy version answered with another",
      { initialize: "bad-version" },
      { protocol: "2025-06-18" },
      "unsupported_protocol_version",
    ],
  ])("%s: ready() fails with protocol, not timeout", async (_name, config, options, reason) => {
    const c = scriptedClient(config, {
      ...(options as Partial<ClientOptions>),
      requestTimeout: 60_000,
      probeTimeout: 60_000,
    });
    const err = await c.ready({ timeout: 60_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ kind: "closed", reason });
    expect((err as McpClientError).cause).toMatchObject({ kind: "protocol", reason });
    expect(c.status()).toMatchObject({ state: "closed" });
  });
});

describe("the protocol option", () => {
  it('"modern" never falls back: legacy evidence closes the connection', async () => {
    const c = scriptedClient({ era: "legacy" }, { protocol: "modern" });
    await expect(c.ready()).rejects.toMatchObject({ kind: "closed" });
    expect(c.status().reason).toContain("legacy_server");
  });

  it('"legacy" goes straight to initialize', async () => {
    const rec = recordEvents("connection:transition");
    const c = scriptedClient({ probe: "exit" }, { protocol: "legacy" });
    await c.ready();
    rec.stop();
    expect(states(rec, "scripted")).toEqual(["initializing", "ready"]);
    expect(c.status()).toMatchObject({ era: "legacy", version: "2025-11-25" });
  });

  it("a pinned legacy version is the one requested and required", async () => {
    const c = scriptedClient({}, { protocol: "2025-06-18" });
    await c.ready();
    expect(c.status()).toMatchObject({ era: "legacy", version: "2025-06-18" });
    const bad = scriptedClient({ initialize: "bad-version" }, { protocol: "legacy" });
    await expect(bad.ready()).rejects.toMatchObject({ kind: "closed" });
    expect(bad.status().reason).toContain("unsupported_protocol_version");
  });

  it("a pinned modern version answered -32022 naming that version asks once more", async () => {
    const c = scriptedClient({ probe: "rediscover" }, { protocol: "2026-07-28" });
    await c.ready();
    expect(c.status()).toMatchObject({ state: "ready", era: "modern", version: "2026-07-28" });
    const never = scriptedClient({ probe: "unsupported" }, { protocol: "2026-07-28" });
    await expect(never.ready()).rejects.toMatchObject({
      kind: "closed",
      reason: "unsupported_protocol_version",
    });
  });

  it("a pinned modern version discovers without a fallback", async () => {
    const c = scriptedClient({}, { protocol: "2026-07-28" });
    await c.ready();
    expect(c.status()).toMatchObject({ era: "modern", version: "2026-07-28" });
  });

  it('prior: "legacy" skips the probe once; refused, it probes on the same connection', async () => {
    const rec = recordEvents("connection:transition");
    const legacy = scriptedClient({}, { prior: "legacy" });
    await legacy.ready();
    expect(legacy.era()).toBe("legacy");
    expect(states(rec, "scripted")).toEqual(["initializing", "ready"]);
    rec.stop();

    const modernOnly = scriptedClient({ era: "modern" }, { prior: "legacy" });
    await modernOnly.ready();
    expect(modernOnly.status()).toMatchObject({ state: "ready", era: "modern" });

    const refusing = scriptedClient({ initialize: "refuse" }, { prior: "legacy" });
    await refusing.ready();
    expect(refusing.era()).toBe("modern");
  });

  it("a ready modern connection that gets -32022 re-discovers and retries that request once", async () => {
    const c = scriptedClient({ stale32022: 1 });
    await c.ready();
    const r = await c.callTool("echo", {});
    expect(r.isError).toBe(false);
    // Twice in a row: retried once, then the error is the caller's.
    const twice = scriptedClient({ stale32022: 2 });
    await expect(twice.callTool("echo", {})).rejects.toMatchObject({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32022 },
    });
    expect((await twice.callTool("echo", {})).isError).toBe(false);
  });

  it("the handshake is bounded by requestTimeout when the server never answers initialize", async () => {
    const c = scriptedClient(
      { initialize: "silent" },
      { protocol: "legacy", requestTimeout: 300, maxReconnects: 0 },
    );
    await expect(c.ready({ timeout: 5000 })).rejects.toMatchObject({ kind: "closed" });
    expect(c.status().reason).toContain("timeout");
  });
});

describe("classifyProbe (the table as a function)", () => {
  const err = (code: number, data?: unknown) =>
    new McpClientError("protocol", "jsonrpc_error", { message: "x", data }, { detail: { jsonrpc: code } });
  const discover = { supportedVersions: ["2026-07-28"], capabilities: {} };

  it.each(["stdio", "in_process", "http"])("%s: valid DiscoverResult is modern; -32022 rows", (kind) => {
    expect(classifyProbe(kind, { result: discover })).toEqual({ verdict: "modern", version: "2026-07-28" });
    expect(classifyProbe(kind, { error: err(-32022, { supported: ["2026-07-28"] }) })).toEqual({
      verdict: "rediscover",
      version: "2026-07-28",
    });
    expect(classifyProbe(kind, { error: err(-32022, { supported: ["2030-01-01"] }) }).verdict).toBe("error");
    expect(classifyProbe(kind, { error: err(-32021) }).verdict).toBe("error");
    expect(classifyProbe(kind, { error: err(-32020) }).verdict).toBe("error");
    expect(classifyProbe(kind, { result: { supportedVersions: [], capabilities: {} } }).verdict).toBe(
      "error",
    );
    expect(classifyProbe(kind, { result: { tools: [] } }).verdict).toBe("legacy");
  });

  it("stdio and in-process: any other error or a timeout is legacy; a vanished server reconnects", () => {
    for (const kind of ["stdio", "in_process"]) {
      expect(classifyProbe(kind, { error: err(-32601) }).verdict).toBe("legacy");
      expect(classifyProbe(kind, { error: err(-32000) }).verdict).toBe("legacy");
      expect(classifyProbe(kind, { error: new McpClientError("timeout", "deadline_exceeded") }).verdict).toBe(
        "legacy",
      );
      expect(classifyProbe(kind, { error: new McpClientError("transport", "server_exited") }).verdict).toBe(
        "reconnect",
      );
    }
  });

  it("http rows", () => {
    // The reasons the HTTP transport gives each status (answers.ts); the verdict reads kind and status.
    const byStatus = (status: number) =>
      status === 401
        ? "unauthorized"
        : status === 403
          ? "forbidden"
          : status === 429
            ? "http_429"
            : `http_${status}`;
    const http = (kind: "auth" | "transport" | "rate_limited", status: number, code?: number) =>
      code === undefined
        ? new McpClientError(kind, byStatus(status), { status })
        : new McpClientError("protocol", "jsonrpc_error", { status }, { detail: { jsonrpc: code } });
    expect(classifyProbe("http", { error: http("auth", 401) }).verdict).toBe("error");
    expect(classifyProbe("http", { error: http("auth", 403) }).verdict).toBe("error");
    for (const s of [408, 500, 503])
      expect(classifyProbe("http", { error: http("transport", s) }).verdict).toBe("retry");
    expect(classifyProbe("http", { error: http("rate_limited", 429) }).verdict).toBe("retry");
    expect(classifyProbe("http", { error: new McpClientError("transport", "network_error") }).verdict).toBe(
      "retry",
    );
    expect(classifyProbe("http", { error: new McpClientError("timeout", "deadline_exceeded") }).verdict).toBe(
      "retry",
    );
    for (const s of [400, 404, 405])
      expect(classifyProbe("http", { error: http("transport", s) }).verdict).toBe("legacy");
    expect(classifyProbe("http", { error: http("transport", 400, -32601) }).verdict).toBe("legacy");
    expect(classifyProbe("http", { error: err(-32601) }).verdict).toBe("legacy");
  });
});
