// The inspector's gate with plain fetch: no token, a wrong token, a wrong Host (DNS rebinding),
// a foreign Origin, a cross-site POST without a JSON type, an oversized body, a non-loopback
// host; and the headers (CSP, nosniff) every answer carries. The page's inert rendering of a
// hostile description is checked in a real browser by inspect-browser.test.ts.
import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hub } from "../src/index.js";
import { Desk, InspectHostError, type Inspector, MAX_BODY, startInspector } from "../src/inspect/index.js";
import { silentLogger } from "./support/index.js";
import { MemoryServer } from "./support/memory-server.js";

/** A raw request: fetch will not send a forged Host header. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("inspect: the gate", () => {
  let hub: Hub;
  let inspector: Inspector;
  let base: string;
  let token: string;
  const hostile = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

  beforeAll(async () => {
    const desk = new Desk();
    const logger = silentLogger();
    hub = new Hub({
      name: "inspect-sec",
      logger,
      clientOptions: { logger, handler: desk.handler() },
      servers: {
        evil: {
          transport: new MemoryServer({
            tools: [{ name: "x", description: hostile, inputSchema: { type: "object" } }],
          }),
        },
      },
    });
    inspector = await startInspector({ hub, desk, hubName: "inspect-sec" });
    const u = new URL(inspector.url);
    base = `${u.protocol}//${u.host}`;
    token = u.searchParams.get("token")!;
  });
  afterAll(async () => {
    await inspector?.close();
    await hub?.close();
  });

  it("a request target that is no URL is refused and the inspector keeps answering", async () => {
    const u = new URL(base);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(u.port), u.hostname, () => {
        socket.write(`GET http://[ HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
      });
      let text = "";
      socket.setEncoding("utf8");
      socket.on("data", (c) => (text += c));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect((await raw(`${base}/?token=${token}`)).status).toBe(303);
  });

  it("binds loopback, with a token of 256 bits", () => {
    expect(inspector.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it("refuses a host that is not loopback, with a typed error", async () => {
    for (const host of ["0.0.0.0", "192.168.1.2", "example.com", "::"]) {
      await expect(startInspector({ hub, desk: new Desk(), hubName: "x", host })).rejects.toBeInstanceOf(
        InspectHostError,
      );
    }
  });

  it("refuses every request without the right token, static assets included", async () => {
    for (const path of [
      "/",
      "/app.js",
      "/form.js",
      "/catalog.js",
      "/tasks.js",
      "/style.css",
      "/api/servers",
      "/api/tools",
      "/api/events",
    ]) {
      expect((await fetch(base + path)).status).toBe(401);
      expect((await fetch(`${base}${path}?token=wrong`)).status).toBe(401);
      expect((await fetch(base + path, { headers: { cookie: "conduit_inspect=wrong" } })).status).toBe(401);
    }
    for (const [path, body] of [
      ["/api/call", { id: "a", name: "mcp__evil__x", arguments: {} }],
      ["/api/resource", { serverId: "s", uri: "file:///etc/passwd" }],
      ["/api/prompt", { serverId: "s", name: "p" }],
      ["/api/task", { name: "mcp__evil__x" }],
      ["/api/task/cancel", { taskId: "t" }],
    ] as const) {
      const post = await fetch(base + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(post.status).toBe(401);
    }
  });

  it("sets an HttpOnly, SameSite=Strict cookie from the first load, then takes the cookie", async () => {
    const first = await fetch(inspector.url, { redirect: "manual" });
    expect(first.status).toBe(303);
    const cookie = first.headers.get("set-cookie")!;
    // Named per port: a second inspector in the same browser keeps its own (hostile-inspect-cookies).
    expect(cookie).toContain(`conduit_inspect_${new URL(base).port}=${token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(first.headers.get("location")).toBe("/");
    const page = await fetch(`${base}/`, { headers: { cookie: `conduit_inspect=${token}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    const csp = page.headers.get("content-security-policy")!;
    for (const d of [
      "default-src 'self'",
      "script-src 'self'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ]) {
      expect(csp).toContain(d);
    }
    expect(csp).not.toContain("unsafe-inline");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("refuses a wrong Host (DNS rebinding) and a foreign Origin, with the right token", async () => {
    const headers = { cookie: `conduit_inspect=${token}` };
    const port = new URL(base).port;
    const rebound = await raw(`${base}/api/tools`, { headers: { ...headers, host: `evil.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.headers["content-security-policy"]).toBeDefined();
    expect((await raw(`${base}/api/tools`, { headers: { ...headers, host: "127.0.0.1:1" } })).status).toBe(
      403,
    );
    expect(
      (await fetch(`${base}/api/servers`, { headers: { ...headers, origin: "http://evil.example" } })).status,
    ).toBe(403);
    expect((await fetch(`${base}/api/servers`, { headers: { ...headers, origin: "null" } })).status).toBe(
      403,
    );
    expect(
      (await fetch(`${base}/api/servers`, { headers: { ...headers, "sec-fetch-site": "cross-site" } }))
        .status,
    ).toBe(403);
    expect((await fetch(`${base}/api/servers`, { headers: { ...headers, origin: base } })).status).toBe(200);
    expect(
      (await raw(`${base}/api/servers`, { headers: { ...headers, host: `localhost:${port}` } })).status,
    ).toBe(200);
  });

  it("takes state-changing requests only as JSON POSTs, within the body limit", async () => {
    const cookie = `conduit_inspect=${token}`;
    const call = JSON.stringify({ id: "form1", name: "mcp__evil__x", arguments: {} });
    // What a cross-site form could send: a simple content type (no preflight).
    for (const type of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const res = await fetch(`${base}/api/call`, {
        method: "POST",
        headers: { cookie, "content-type": type },
        body: call,
      });
      expect(res.status).toBe(415);
    }
    expect((await fetch(`${base}/api/call?id=1`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${base}/api/call`, { method: "PUT", headers: { cookie } })).status).toBe(405);
    const big = await raw(`${base}/api/call`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ pad: "x".repeat(MAX_BODY) }),
    });
    expect(big.status).toBe(413);
    const ok = await fetch(`${base}/api/call`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: call,
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ result: expect.objectContaining({ isError: false }) });
  });

  it("serves a hostile description only as JSON data (the page inserts it as text)", async () => {
    const res = await fetch(`${base}/api/tools`, { headers: { cookie: `conduit_inspect=${token}` } });
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = (await res.json()) as { tools: Array<{ description: string }> };
    expect(body.tools[0]!.description).toBe(hostile);
  });
});
