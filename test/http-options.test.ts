/** HTTP options validated in the constructor, and the pure pieces: header annotations, encodings, policies. */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Agent } from "undici";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { Client, HttpTransport, Secret } from "../src/index.js";
import { AddressPolicy, isCidr, isLoopbackHost, vetHost } from "../src/security/url-policy.js";
import { answerError, parseChallenges, parseRetryAfter } from "../src/transport/http/answers.js";
import {
  encodeHeaderValue,
  invalidMcpHeaderAnnotations,
  mcpHeaderAnnotations,
} from "../src/transport/http/public.js";
import { httpTestClients } from "./support/http-clients.js";
import { type ScriptedHttpServer, startScripted } from "./support/http-scripted.js";
import { silentLogger } from "./support/logger.js";

const url = "https://mcp.example.com/mcp";

function make(options: Record<string, unknown>) {
  return () => new HttpTransport(options as never);
}

describe("options are validated in the constructor", () => {
  it.each([
    [{ url: "ftp://x/mcp" }, "transport.url"],
    [{ url: "/relative" }, "transport.url"],
    [{ url: "https://user:pw@x/mcp" }, "transport.url"],
    [{ url: "https://x/mcp#frag" }, "transport.url"],
    [{ url }, null],
    [{ url, bogus: 1 }, "transport.bogus"],
    [{ url: "http://mcp.example.com/mcp", auth: { bearer: "t0ken" } }, "transport.auth"],
    [{ url: "http://127.0.0.1:1/mcp", auth: { bearer: "t0ken" } }, null],
    [{ url: "http://localhost:1/mcp", auth: { bearer: "t0ken" } }, null],
    [{ url: "http://[::1]:1/mcp", auth: { bearer: "t0ken" } }, null],
    [{ url, auth: { bearer: "has space" } }, "transport.auth.bearer"],
    [{ url, auth: { bearer: new Secret("bad\ntoken") } }, "transport.auth.bearer"],
    [{ url, auth: { bearer: "" } }, "transport.auth.bearer"],
    [{ url, auth: "token" }, "transport.auth"],
    [{ url, auth: { bearer: "t", extra: 1 } }, "transport.auth.extra"],
    [{ url, credentialId: "svc" }, "transport.credentialId"],
    [{ url, auth: { bearer: "tok" }, credentialId: "svc" }, "transport.credentialId"],
    [{ url, auth: () => null, credentialId: "svc" }, null],
    [{ url, headers: { Authorization: "x" } }, "transport.headers.Authorization"],
    [{ url, headers: { "Mcp-Session-Id": "x" } }, "transport.headers.Mcp-Session-Id"],
    [{ url, headers: { "last-event-id": "x" } }, "transport.headers.last-event-id"],
    [{ url, headers: { connection: "close" } }, "transport.headers.connection"],
    [{ url, headers: { accept: "x" } }, "transport.headers.accept"],
    [{ url, headers: { "x-a": "line\nbreak" } }, "transport.headers.x-a"],
    [{ url, headers: { "x-a": "tab\tand space ok" } }, null],
    [{ url, headers: [["x-b", new Secret("s3cret")]] }, null],
    [{ url, headers: { "bad name": "x" } }, "transport.headers"],
    [{ url, poolSize: 0 }, "transport.poolSize"],
    [{ url, transportOpts: { rejectUnauthorized: false } }, "transport.transportOpts.rejectUnauthorized"],
    [
      { url, transportOpts: { checkServerIdentity: () => undefined } },
      "transport.transportOpts.checkServerIdentity",
    ],
    [{ url, transportOpts: { minVersion: "TLSv1" } }, "transport.transportOpts.minVersion"],
    [{ url, transportOpts: { ca: "PEM", servername: "x" } }, null],
    [{ url, insecureSkipTlsVerify: true, serverUrlPolicy: "publicOnly" }, "transport.insecureSkipTlsVerify"],
    [{ url, redirect: true }, "transport.redirect"],
    [{ url, redirect: "same-origin" }, null],
    [{ url, maxMessageBytes: 0 }, "transport.maxMessageBytes"],
    [{ url, requestTimeout: -1 }, "transport.requestTimeout"],
    [{ url, listenIdleTimeout: 1.5 }, "transport.listenIdleTimeout"],
    [{ url, serverUrlPolicy: "private" }, "transport.serverUrlPolicy"],
    [{ url, allowPrivate: ["10.0.0.0/33"] }, "transport.allowPrivate[0]"],
    [{ url, allowPrivate: ["10.0.0.0/8", "fd00::/8", "192.168.1.1"] }, null],
    [{ url, resolver: "dns" }, "transport.resolver"],
    [{ url, legacySse: "sometimes" }, "transport.legacySse"],
    [{ url, dispatcher: {} }, "transport.dispatcher"],
  ])("%j", (options, key) => {
    if (key === null) {
      expect(make(options)).not.toThrow();
    } else {
      expect(make(options)).toThrow(TypeError);
      expect(make(options)).toThrow(`"${key}"`);
    }
  });

  it("a dispatcher excludes the pool options and publicOnly", () => {
    const dispatcher = new Agent();
    expect(make({ url, dispatcher })).not.toThrow();
    expect(make({ url, dispatcher, poolSize: 3 })).toThrow('"transport.poolSize"');
    expect(make({ url, dispatcher, transportOpts: {} })).toThrow('"transport.transportOpts"');
    expect(make({ url, dispatcher, serverUrlPolicy: "publicOnly" })).toThrow('"transport.dispatcher"');
    void dispatcher.close();
  });

  it("the client validates through the same rules, and takes the http transport", () => {
    expect(() => new Client({ name: "x", transport: { type: "http", url: "nope" } })).toThrow(
      '"transport.url"',
    );
    expect(() => new Client({ name: "x", transport: { type: "ftp" } as never })).toThrow('"transport.type"');
  });

  it("no secret in a validation message", () => {
    const secret = "visible-secret-token";
    try {
      new HttpTransport({ url: "http://example.com/mcp", auth: { bearer: new Secret(secret) } });
    } catch (e) {
      expect(String(e)).not.toContain(secret);
    }
  });
});

describe("credentials", () => {
  it("credentialIdentity: null, a digest, an id, or unknown", () => {
    const t = new HttpTransport({ url });
    expect(t.credentialIdentity).toBeNull();
    t.setAuth({ bearer: new Secret("abc-token") });
    expect(t.credentialIdentity).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(t.credentialIdentity).not.toContain("abc-token");
    t.setAuth(() => "x", { credentialId: "reporting" });
    expect(t.credentialIdentity).toBe("id:reporting");
    t.setAuth(() => "x");
    expect(t.credentialIdentity).toBeUndefined();
    expect(() => t.setAuth({ bearer: "bad token" })).toThrow(TypeError);
    const plain = new HttpTransport({ url: "http://example.com/mcp" });
    expect(() => plain.setAuth({ bearer: "tok" })).toThrow('"auth"');
  });
});

describe("x-mcp-header annotations", () => {
  const obj = (properties: Record<string, unknown>) => ({ type: "object", properties });

  it("valid annotations: properties chains only, primitive types, unique names", () => {
    const schema = obj({
      region: { type: "string", "x-mcp-header": "Region" },
      nested: obj({ n: { type: "integer", "x-mcp-header": "N" } }),
      on: { type: ["boolean", "null"], "x-mcp-header": "On" },
      plain: { type: "string", default: { "x-mcp-header": "ignored" } },
    });
    expect(invalidMcpHeaderAnnotations(schema)).toBeNull();
    expect(mcpHeaderAnnotations(schema)).toEqual([
      { path: ["region"], name: "Region" },
      { path: ["nested", "n"], name: "N" },
      { path: ["on"], name: "On" },
    ]);
    expect(invalidMcpHeaderAnnotations(obj({ a: { type: "string" } }))).toBeNull();
    expect(invalidMcpHeaderAnnotations(undefined)).toBeNull();
  });

  it.each([
    ["empty", obj({ a: { type: "string", "x-mcp-header": "" } })],
    ["not a token", obj({ a: { type: "string", "x-mcp-header": "Bad Name" } })],
    ["control characters", obj({ a: { type: "string", "x-mcp-header": "A\r\nB" } })],
    [
      "repeated (case-insensitively)",
      obj({ a: { type: "string", "x-mcp-header": "X" }, b: { type: "string", "x-mcp-header": "x" } }),
    ],
    ["a number", obj({ a: { type: "number", "x-mcp-header": "A" } })],
    ["an object", obj({ a: { type: "object", "x-mcp-header": "A" } })],
    ["no type", obj({ a: { "x-mcp-header": "A" } })],
    ["under items", obj({ a: { type: "array", items: { type: "string", "x-mcp-header": "A" } } })],
    ["under anyOf", { anyOf: [obj({ a: { type: "string", "x-mcp-header": "A" } })] }],
    ["under $defs", { type: "object", $defs: { d: { type: "string", "x-mcp-header": "A" } } }],
    ["on the root", { type: "string", "x-mcp-header": "A" }],
    ["a non-string value", obj({ a: { type: "string", "x-mcp-header": 7 } })],
  ])("invalid: %s", (_name, schema) => {
    expect(invalidMcpHeaderAnnotations(schema)).toEqual(expect.any(String));
    expect(mcpHeaderAnnotations(schema)).toBeNull();
  });

  it("encodes values as the spec's table says", () => {
    expect(encodeHeaderValue("us-west1")).toBe("us-west1");
    expect(encodeHeaderValue("Hello, 世界")).toBe("=?base64?SGVsbG8sIOS4lueVjA==?=");
    expect(encodeHeaderValue(" padded ")).toBe("=?base64?IHBhZGRlZCA=?=");
    expect(encodeHeaderValue("line1\nline2")).toBe("=?base64?bGluZTEKbGluZTI=?=");
    expect(encodeHeaderValue("=?base64?literal?=")).toBe("=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    expect(encodeHeaderValue("a b\tc")).toBe("a b\tc");
  });
});

describe("answers", () => {
  it("parses WWW-Authenticate challenges", () => {
    expect(parseChallenges('Bearer realm="a, b", error="invalid_token", Basic realm=x')).toEqual([
      { scheme: "Bearer", params: { realm: "a, b", error: "invalid_token" } },
      { scheme: "Basic", params: { realm: "x" } },
    ]);
    expect(parseChallenges("Negotiate abc123==")).toEqual([
      { scheme: "Negotiate", params: {}, token68: "abc123==" },
    ]);
    expect(parseChallenges(["Bearer", 'DPoP algs="ES256"'])).toEqual([
      { scheme: "Bearer", params: {} },
      { scheme: "DPoP", params: { algs: "ES256" } },
    ]);
    expect(parseChallenges(undefined)).toEqual([]);
    expect(parseChallenges('Bearer realm="with \\"quote\\""')).toEqual([
      { scheme: "Bearer", params: { realm: 'with "quote"' } },
    ]);
  });

  it("parses Retry-After as seconds or a date", () => {
    expect(parseRetryAfter("120")).toBe(120);
    expect(parseRetryAfter(new Date(Date.now() + 10_500).toUTCString())).toBeGreaterThanOrEqual(9);
    expect(parseRetryAfter("soon")).toBeNull();
    expect(parseRetryAfter(undefined)).toBeNull();
  });

  it("maps statuses by the table", () => {
    expect(answerError(401, {}, undefined)).toMatchObject({
      kind: "auth",
      data: { status: 401, challenges: [] },
    });
    expect(answerError(429, { "retry-after": "3" }, undefined)).toMatchObject({
      kind: "rate_limited",
      data: { status: 429, retryAfter: 3 },
    });
    const rpc = answerError(
      404,
      {},
      JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32601, message: "no" } }),
    );
    expect(rpc).toMatchObject({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32601 },
      data: { status: 404, message: "no" },
    });
    expect(rpc.message).toBe("protocol: jsonrpc_error jsonrpc=-32601");
    expect(answerError(400, {}, "<html>")).toMatchObject({
      kind: "transport",
      reason: "http_400",
      data: { status: 400 },
    });
    expect(answerError(502, {}, undefined)).toMatchObject({ kind: "transport", data: { status: 502 } });
  });
});

describe("the URL policy", () => {
  it("checks CIDRs and loopback hosts without I/O", () => {
    expect(isCidr("10.0.0.0/8")).toBe(true);
    expect(isCidr("::1")).toBe(true);
    expect(isCidr("fd00::/129")).toBe(false);
    expect(isCidr("10.0.0.0/x")).toBe(false);
    expect(isCidr("host/8")).toBe(false);
    for (const h of ["localhost", "app.localhost", "127.0.0.1", "127.9.9.9", "[::1]", "[::ffff:127.0.0.1]"]) {
      expect(isLoopbackHost(h)).toBe(true);
    }
    for (const h of ["example.com", "10.0.0.1", "[::2]", "localhost.example.com"])
      expect(isLoopbackHost(h)).toBe(false);
  });

  it("refuses every non-public range, IPv6 forms that embed one included", async () => {
    const policy = await AddressPolicy.create([]);
    const cases: Array<[string, string | null]> = [
      ["8.8.8.8", null],
      ["2606:4700::1111", null],
      ["127.0.0.1", "loopback"],
      ["10.0.0.1", "private"],
      ["172.16.5.4", "private"],
      ["192.168.0.1", "private"],
      ["169.254.1.1", "linkLocal"],
      ["100.64.1.1", "carrierGradeNat"],
      ["224.0.0.1", "multicast"],
      ["0.0.0.0", "unspecified"],
      ["255.255.255.255", "broadcast"],
      ["::1", "loopback"],
      ["::", "unspecified"],
      ["fe80::1", "linkLocal"],
      ["fc00::1", "uniqueLocal"],
      ["ff02::1", "multicast"],
      ["::ffff:10.0.0.1", "private"],
      ["::ffff:8.8.8.8", null],
      ["64:ff9b::a00:1", "private"],
      ["2002:7f00:1::", "loopback"],
      ["not-an-ip", "invalid_address"],
    ];
    for (const [address, range] of cases)
      expect([address, policy.refusal(address)]).toEqual([address, range]);
    const allowing = await AddressPolicy.create(["10.0.0.0/8", "::1"]);
    expect(allowing.refusal("10.2.3.4")).toBeNull();
    expect(allowing.refusal("::ffff:10.2.3.4")).toBeNull();
    expect(allowing.refusal("::1")).toBeNull();
    expect(allowing.refusal("192.168.1.1")).toBe("private");
  });

  it("vets every resolved address; one refused refuses the host", async () => {
    const policy = await AddressPolicy.create([]);
    await expect(vetHost("a.test", policy, async () => ["8.8.8.8"])).resolves.toEqual(["8.8.8.8"]);
    await expect(vetHost("a.test", policy, async () => ["8.8.8.8", "10.0.0.1"])).rejects.toMatchObject({
      kind: "denied",
      reason: "server_url_policy",
    });
    await expect(vetHost("a.test", policy, async () => [])).rejects.toMatchObject({ reason: "dns_failed" });
    await expect(
      vetHost("a.test", policy, async () => {
        throw new Error("nxdomain");
      }),
    ).rejects.toMatchObject({ kind: "transport", reason: "dns_failed" });
    await expect(vetHost("[::1]", policy, async () => [])).rejects.toMatchObject({
      data: { range: "loopback" },
    });
  });
});

describe("import cost", () => {
  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
  it.skipIf(!existsSync(dist))(
    "undici, eventsource-parser and ipaddr.js load when an HTTP transport starts, not at import",
    () => {
      const script = `
      import { createRequire } from "node:module";
      const req = createRequire(import.meta.url);
      const loaded = () => Object.keys(req.cache).filter((k) => /undici|ipaddr|eventsource-parser/.test(k)).length;
      const { HttpTransport } = await import(${JSON.stringify(dist)});
      const before = loaded();
      const t = new HttpTransport({ url: "http://127.0.0.1:9/mcp" });
      const constructed = loaded();
      await t.start({ message() {}, fail() {}, closed() {} });
      const started = loaded();
      await t.close();
      console.log(JSON.stringify({ before, constructed, started }));`;
      const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
      const { before, constructed, started } = JSON.parse(out);
      expect(before).toBe(0);
      expect(constructed).toBe(0);
      expect(started).toBeGreaterThan(0);
    },
  );
});

describe("pool and start", () => {
  let server: ScriptedHttpServer;
  const clients = httpTestClients("http-options");
  afterEach(async () => {
    await clients.closeAll();
    await server?.close();
  });
  afterAll(() => {
    clients.assertNoLeak();
    clients.events.stop();
  });

  it("a dispatcher the user passes carries the requests", async () => {
    server = await startScripted();
    const agent = new Agent({ connections: 2 });
    let dispatched = 0;
    const counting = agent.compose((dispatch) => (opts, handler) => {
      dispatched += 1;
      return dispatch(opts, handler);
    });
    const c = clients.create(server.url, { dispatcher: counting });
    await c.ready();
    await c.callTool("echo", {});
    expect(dispatched).toBeGreaterThanOrEqual(2);
    await c.close();
    // The transport does not close a dispatcher it does not own.
    expect(agent.closed).toBe(false);
    await agent.close();
  });

  it("insecureSkipTlsVerify warns whenever the transport starts", async () => {
    server = await startScripted();
    const logger = silentLogger();
    const c = clients.create(server.url, { insecureSkipTlsVerify: true }, { logger });
    await c.ready();
    expect(logger.warnings.some((w) => w.includes("insecureSkipTlsVerify"))).toBe(true);
    const before = logger.warnings.length;
    await c.reconnect();
    await c.ready();
    expect(logger.warnings.length).toBeGreaterThan(before);
  });

  it("restarts after a close (reconnect) and keeps working", async () => {
    server = await startScripted();
    const c = clients.create(server.url);
    await c.ready();
    await c.reconnect();
    await c.ready();
    expect((await c.callTool("echo", { message: "again" })).isError).toBe(false);
  });
});
