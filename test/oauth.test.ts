/**
 * Issue 16, what the conformance suite does not cover, against a scripted OAuth-protected server
 * on 127.0.0.1 (test/support/oauth-server.ts): unsafe authorization endpoints never reach the
 * redirect callback, metadata over the cap or never ending, one refresh for 20 concurrent calls,
 * principals that never share tokens or private lists, AS error bodies that echo secrets, token
 * validation, the stores, option errors, and the libraries loaded only when a form is used.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  Client,
  clientCredentials,
  FileTokenStore,
  HttpTransport,
  McpClientError,
  MemoryTokenStore,
  type OAuthOptions,
  OptionError,
  oauth,
  Secret,
  type StoredTokens,
  type TokenKey,
} from "../src/index.js";
import { type SilentLogger, silentLogger } from "./support/logger.js";
import { OAuthServer, type OAuthServerConfig } from "./support/oauth-server.js";

const REDIRECT = "http://127.0.0.1:4567/callback";
const servers: OAuthServer[] = [];
const clients: Client[] = [];
const loggers: SilentLogger[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  loggers.length = 0;
});

async function server(config: OAuthServerConfig = {}): Promise<OAuthServer> {
  const s = await new OAuthServer(config).start();
  servers.push(s);
  return s;
}

function client(
  s: OAuthServer,
  options: Partial<OAuthOptions> = {},
  transport: Record<string, unknown> = {},
): Client {
  const logger = silentLogger();
  loggers.push(logger);
  const c = new Client({
    name: "oauth-test",
    transport: {
      type: "http",
      url: s.url,
      auth: oauth({ redirect: s.browser("alice"), redirectUri: REDIRECT, ...options }),
      ...transport,
    },
    logger,
    requestTimeout: 10_000,
  });
  clients.push(c);
  return c;
}

const names = (tools: Array<{ name: string }>) => tools.map((t) => t.name);

/** Every secret the server handed out or saw must be absent from every rendering of `values`. */
/** A token store that keeps what it is given (`seen`, in order) over an in-memory one. */
function recordingStore(): { seen: StoredTokens[]; store: MemoryTokenStore } {
  const seen: StoredTokens[] = [];
  const store = new MemoryTokenStore();
  const set = store.set.bind(store);
  store.set = (k: TokenKey, t: StoredTokens) => {
    seen.push(t);
    return set(k, t);
  };
  return { seen, store };
}

function expectNoSecrets(s: OAuthServer, values: unknown[]): void {
  const secrets = [
    ...s.issued.keys(),
    ...[...s.issued.values()].map((i) => i.refresh ?? ""),
    ...s.tokenRequests.flatMap((f) => [f.get("code") ?? "", f.get("code_verifier") ?? ""]),
  ].filter((x) => x.length > 0);
  const texts: string[] = [];
  for (const v of values) {
    texts.push(String(v), JSON.stringify(v) ?? "", inspect(v, { depth: 8, showHidden: true }));
    const data = (v as { data?: unknown })?.data;
    if (data !== undefined) texts.push(inspect(data, { depth: 8 }));
  }
  for (const l of loggers) for (const line of l.lines) texts.push(line.message);
  for (const t of texts) for (const secret of secrets) expect(t).not.toContain(secret);
}

describe("the authorization code flow against a scripted server", () => {
  it("a 401 leads to discovery, registration, PKCE and a token; requests then carry it", async () => {
    const s = await server();
    const c = client(s);
    await c.ready(); // a listing started before the first token is held is not cached (see docs/oauth.md)
    expect(names(await c.listAllTools())).toEqual(["whoami_alice"]);
    expect(s.counts).toMatchObject({ register: 1, authorize: 1, codeGrants: 1, refreshGrants: 0 });
    const q = s.authorizeRequests[0]!;
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("resource")).toBe(s.url);
    expect(q.get("scope")).toBe("mcp offline_access");
    expect(s.tokenRequests[0]!.get("resource")).toBe(s.url);
    // After the first 401, every MCP request carried alice's token.
    expect(s.mcpUsers.slice(1).every((u) => u === "alice")).toBe(true);
    expectNoSecrets(s, [c.status(), c.cachedTools()]);
  });

  it("a 403 insufficient_scope steps up with the union of scopes; the limit ends it with kind auth", async () => {
    const s = await server({ callScope: "mcp:write" });
    const c = client(s);
    const r = await c.callTool("whoami_alice", {});
    expect(r.content).toEqual([{ type: "text", text: "alice" }]);
    expect(s.authorizeRequests.map((q) => q.get("scope"))).toEqual([
      "mcp offline_access",
      "mcp offline_access mcp:write",
    ]);

    s.config.callScope = "admin"; // every grant includes what was asked: never "admin"
    s.config.tokenResponder = (form, res) => {
      // Grant only what was granted before, so the step-up can never succeed.
      if (form.get("grant_type") !== "authorization_code") return false;
      res.writeHead(200, { "content-type": "application/json" });
      const token = `at_fixed_${s.tokenRequests.length}`;
      s.issued.set(token, { user: "alice", scope: "mcp" });
      res.end(JSON.stringify({ access_token: token, token_type: "Bearer", expires_in: 3600 }));
      return true;
    };
    const err = await c.callTool("whoami_alice", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect((err as McpClientError).kind).toBe("auth");
    const attempts = s.authorizeRequests.slice(2).map((q) => q.get("scope"));
    expect(attempts.length).toBeLessThanOrEqual(3);
    expect(attempts.every((sc) => sc?.includes("admin") && sc.includes("mcp:write"))).toBe(true);
  });
});

describe("a server that never accepts: at most 3 new credentials and 4 sends for one call", () => {
  for (const status of [401, 403] as const) {
    it(`every tools/call answered ${status}: 3 new tokens at most, the call sent 4 times at most, then kind auth`, async () => {
      const s = await server();
      const c = client(s);
      await c.ready();
      const tokensBefore = s.tokenRequests.length;
      s.config.refuseCalls = status;
      const err = await c.callTool("whoami_alice", {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(McpClientError);
      expect((err as McpClientError).kind).toBe("auth");
      const newTokens = s.tokenRequests.length - tokensBefore;
      expect(newTokens).toBeGreaterThanOrEqual(1);
      expect(newTokens).toBeLessThanOrEqual(3);
      expect(s.counts.calls).toBeLessThanOrEqual(4);
      expect(s.counts.calls).toBe(newTokens + 1);
      expectNoSecrets(s, [err]);
    });
  }
});

describe("authorization endpoints that are not https never reach the redirect callback", () => {
  for (const endpoint of [
    "javascript:alert(document.cookie)",
    "file:///etc/passwd",
    "open -a Calculator https://example.com",
    "$(touch /tmp/conduit-pwned)",
    "http://auth.example.com/authorize",
  ]) {
    it(JSON.stringify(endpoint), async () => {
      const s = await server({ metadata: { authorization_endpoint: endpoint } });
      const redirect = vi.fn(async (_url: string) => REDIRECT);
      const c = client(s, { redirect });
      const err = await c.ready().catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: "auth", reason: "unsafe_authorization_endpoint" });
      expect(redirect).not.toHaveBeenCalled();
      expect(s.counts.authorize).toBe(0);
      expect(existsSync("/tmp/conduit-pwned")).toBe(false);
    });
  }

  it("an AS without S256 in code_challenge_methods_supported is refused before the callback", async () => {
    const s = await server({ metadata: { code_challenge_methods_supported: ["plain"] } });
    const redirect = vi.fn(async (_url: string) => REDIRECT);
    const err = await client(s, { redirect })
      .ready()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", reason: "pkce_s256_not_supported" });
    expect(redirect).not.toHaveBeenCalled();
  });

  it("a redirect callback that never resolves fails the flow after redirectTimeout; the next attempt asks again", async () => {
    const s = await server();
    let calls = 0;
    const redirect = (url: string) =>
      ++calls === 1 ? new Promise<string>(() => {}) : s.browser("alice")(url);
    const c = client(s, { redirect, redirectTimeout: 200 });
    const err = await c.ready().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", reason: "redirect_timeout" });
    await c.reconnect();
    expect(names(await c.listAllTools())).toEqual(["whoami_alice"]);
    expect(calls).toBe(2);
  });

  it("the OAuth layer has no way to spawn or open anything", () => {
    const dir = fileURLToPath(new URL("../src/auth/", import.meta.url));
    for (const f of readdirSync(dir)) {
      const text = readFileSync(join(dir, f), "utf8");
      expect(text, f).not.toMatch(/child_process|\bspawn\(|\bexec(File)?(Sync)?\(|\bopen\(/);
    }
  });
});

describe("metadata the client must not wait on or swallow", () => {
  it("authorization server metadata over the size cap fails with message_too_large", async () => {
    const big = JSON.stringify({ issuer: "x", pad: "a".repeat(2 * 1024 * 1024) });
    const s = await server({
      metadataResponder: (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(big);
      },
    });
    const redirect = vi.fn(async (_url: string) => REDIRECT);
    const err = await client(s, { redirect })
      .ready()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", reason: "oauth_message_too_large" });
    expect(redirect).not.toHaveBeenCalled();
  });

  it("metadata that never ends fails with timeout within requestTimeout", async () => {
    const s = await server({
      metadataResponder: (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"issuer": "');
        const t = setInterval(() => res.write("a"), 20);
        res.on("close", () => clearInterval(t));
      },
    });
    const c = client(s, {}, { requestTimeout: 300 });
    const err = await c.ready({ timeout: 8_000 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", reason: "oauth_timeout" });
  });
});

describe("tokens: refresh, principals, stores", () => {
  it("20 concurrent calls with an expired token make one refresh; the private list survives it", async () => {
    const s = await server();
    const c = client(s);
    await c.ready();
    expect(names(await c.listAllTools())).toEqual(["whoami_alice"]);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 2 * 3600 * 1000); // every token is now expired
    const results = await Promise.all(Array.from({ length: 20 }, () => c.callTool("whoami_alice", {})));
    expect(results.every((r) => (r.content as Array<{ text: string }>)[0]!.text === "alice")).toBe(true);
    expect(s.counts.refreshGrants).toBe(1);
    expect(s.counts.authorize).toBe(1);
    // The refresh kept the identity: alice's private list is still served from the cache.
    expect(names(c.cachedTools())).toEqual(["whoami_alice"]);
  });

  it("two principals sharing a store never see each other's tokens or private lists", async () => {
    const s = await server();
    const store = new MemoryTokenStore();
    const alice = client(s, { principal: "alice", store, redirect: s.browser("alice") });
    const bob = client(s, { principal: "bob", store, redirect: s.browser("bob") });
    await alice.ready();
    expect(names(await alice.listAllTools())).toEqual(["whoami_alice"]);
    expect(names(alice.cachedTools())).toEqual(["whoami_alice"]);
    const before = s.mcpUsers.length;
    expect(names(await bob.listAllTools())).toEqual(["whoami_bob"]);
    // bob's client sent no token, then only bob's: alice's token was never offered.
    expect(s.mcpUsers.slice(before).filter((u) => u !== null)).not.toContain("alice");
    expect(s.counts.authorize).toBe(2);

    // alice's client switches to bob: the private list goes; bob's stored tokens are used
    // without a new authorization.
    await alice.setAuth(
      oauth({ principal: "bob", store, redirect: s.browser("mallory"), redirectUri: REDIRECT }),
    );
    expect(() => alice.cachedTools()).toThrow(/not_cached/);
    expect(names(await alice.listAllTools())).toEqual(["whoami_bob"]);
    expect(s.counts.authorize).toBe(2);
  });

  it("a 401 to a held token refreshes it once, without asking the user again", async () => {
    const s = await server();
    const c = client(s);
    await c.ready();
    s.issued.clear(); // the server forgets every access token (the refresh tokens stay valid)
    expect(names(await c.listAllTools())).toEqual(["whoami_alice"]);
    expect(s.counts).toMatchObject({ authorize: 1, refreshGrants: 1 });
  });

  it("a refreshed token that is refused too re-authorizes (one refresh, then the user)", async () => {
    const s = await server();
    const c = client(s);
    await c.ready();
    s.issued.clear();
    s.config.forgetRefreshed = true;
    expect(names(await c.listAllTools())).toEqual(["whoami_alice"]);
    expect(s.counts).toMatchObject({ authorize: 2, refreshGrants: 1 });
  });

  it("serverUrlPolicy publicOnly vets the authorization server's host too", async () => {
    const s = await server({ authorizationServers: ["http://as.localhost:9"] });
    const c = client(
      s,
      {},
      {
        serverUrlPolicy: "publicOnly",
        allowPrivate: ["127.0.0.1/32"],
        resolver: async (host: string) => (host === "as.localhost" ? ["10.1.2.3"] : ["127.0.0.1"]),
      },
    );
    const err = await c.ready().catch((e: unknown) => e);
    expect(err).toMatchObject({
      kind: "auth",
      reason: "oauth_denied",
      data: { reason: "server_url_policy" },
    });
    expect(s.counts.prm).toBe(1);
  });

  it("a file store keeps tokens for a later client, readable by its owner only (0600)", async () => {
    const s = await server();
    const path = join(mkdtempSync(join(tmpdir(), "conduit-oauth-")), "tokens.json");
    const first = client(s, { store: new FileTokenStore(path) });
    await first.listAllTools();
    await first.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const redirect = vi.fn(async (_url: string) => REDIRECT);
    const second = client(s, { store: new FileTokenStore(path), redirect });
    expect(names(await second.listAllTools())).toEqual(["whoami_alice"]);
    expect(redirect).not.toHaveBeenCalled();
    expect(s.counts.authorize).toBe(1);
  });

  it("an AS error body echoing the code, verifier and secrets reaches no error, log or dump", async () => {
    const s = await server({
      tokenResponder: (form, res) => {
        res.writeHead(400, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: "invalid_grant",
            error_description: `bad ${form.get("code")} for ${form.get("code_verifier")} (${form.toString()})`,
          }),
        );
        return true;
      },
    });
    const c = client(s);
    const err = await c.ready().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", reason: "token_request_failed" });
    expect((err as McpClientError).data).toEqual({ status: 400, error: "invalid_grant" });
    expect(s.tokenRequests[0]!.get("code")).toMatch(/^code_/);
    expectNoSecrets(s, [err, (err as Error).cause, c.status()]);
  });

  it("client credentials: a secret the AS echoes in its error reaches no error or log", async () => {
    const secret = `cs_${"9".repeat(24)}`;
    const s = await server({
      metadata: { token_endpoint_auth_methods_supported: ["client_secret_post"] },
      tokenResponder: (form, res) => {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            error: "invalid_client",
            error_description: `no such secret ${form.get("client_secret")}`,
          }),
        );
        return true;
      },
    });
    const logger = silentLogger();
    const c = new Client({
      name: "oauth-cc",
      transport: {
        type: "http",
        url: s.url,
        auth: clientCredentials({ clientId: "svc", clientSecret: secret }),
      },
      logger,
    });
    clients.push(c);
    const err = await c.ready().catch((e: unknown) => e);
    expect(err).toMatchObject({
      kind: "auth",
      reason: "token_request_failed",
      data: { status: 401, error: "invalid_client" },
    });
    expect(s.tokenRequests[0]!.get("client_secret")).toBe(secret);
    expect(s.tokenRequests[0]!.get("grant_type")).toBe("client_credentials");
    expect(s.tokenRequests[0]!.get("resource")).toBe(s.url);
    for (const t of [
      String(err),
      JSON.stringify(err),
      inspect(err, { depth: 8, showHidden: true }),
      ...logger.lines.map((l) => l.message),
    ]) {
      expect(t).not.toContain(secret);
    }
    // Refused once, not retried: a second request fails without another token request.
    await expect(c.listAllTools()).rejects.toMatchObject({ kind: "auth" });
    expect(s.tokenRequests).toHaveLength(1);
  });

  it("an access token that is not visible ASCII is kind auth, reason invalid_token", async () => {
    const s = await server({
      tokenResponder: (_form, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ access_token: "bad token\u0001", token_type: "Bearer" }));
        return true;
      },
    });
    const err = await client(s)
      .ready()
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: "auth", reason: "invalid_token" });
  });

  it("expires_in is clamped (a century is a year at most)", async () => {
    const s = await server({ expiresIn: 100 * 365 * 24 * 3600 });
    const { seen, store } = recordingStore();
    await client(s, { store }).listAllTools();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.accessToken).toBeInstanceOf(Secret);
    expect(seen[0]!.expiresAt! - Date.now()).toBeLessThanOrEqual(366 * 24 * 3600 * 1000);
    expect(JSON.stringify(seen[0])).not.toContain("at_");
  });
});

describe("expires_in the server gets wrong: never a failed login, a refresh storm or a timer overflow", () => {
  const YEAR_MS = 365 * 24 * 3600 * 1000;
  // raw JSON text of expires_in -> the lifetime the client keeps (ms; undefined: unknown)
  const cases: Array<[string, number | undefined]> = [
    ["-5", 60_000],
    ["0", 60_000],
    ["1e20", YEAR_MS],
    ["1e400", YEAR_MS],
    ['"soon"', undefined],
    ['"600"', 600_000],
  ];
  for (const [raw, lifetime] of cases) {
    it(`expires_in ${raw}: logs in, keeps ${lifetime ?? "no expiry"}, one refresh per 30 s at most over 2 minutes of calls`, async () => {
      const warnings: Error[] = [];
      const onWarning = (w: Error) => warnings.push(w);
      process.on("warning", onWarning);
      try {
        vi.useFakeTimers({ toFake: ["Date"] });
        const s = await server({ expiresInJson: raw });
        const { seen, store } = recordingStore();
        const c = client(s, { store });
        await c.ready();
        const issuedAt = Date.now();
        expect(seen).toHaveLength(1);
        expect(seen[0]!.expiresAt === undefined ? undefined : seen[0]!.expiresAt - issuedAt).toBe(lifetime);
        // 40 calls 3 s apart on the client's clock: 2 minutes.
        for (let i = 0; i < 40; i++) {
          vi.setSystemTime(Date.now() + 3_000);
          expect((await c.callTool("whoami_alice", {})).content).toEqual([{ type: "text", text: "alice" }]);
        }
        // The code grant, then one refresh per 30 s at most (a token is used 30 s before its refresh).
        expect(s.counts.codeGrants).toBe(1);
        expect(s.counts.refreshGrants).toBeLessThanOrEqual(120_000 / 30_000);
        expect(s.counts.authorize).toBe(1);
      } finally {
        process.off("warning", onWarning);
      }
      expect(warnings.filter((w) => w.name === "TimeoutOverflowWarning")).toEqual([]);
    });
  }
});

describe("options", () => {
  const url = "https://mcp.example.com/mcp";
  const cb = async (): Promise<string> => REDIRECT;
  it.each([
    [() => oauth({ redirectUri: REDIRECT } as OAuthOptions), /oauth\.redirect/],
    [() => oauth({ redirect: cb } as OAuthOptions), /oauth\.redirectUri/],
    [() => oauth({ redirect: cb, redirectUri: "http://example.com/cb" }), /redirectUri/],
    [
      () => oauth({ redirect: cb, redirectUri: REDIRECT, clientMetadataUrl: "http://x/y" }),
      /clientMetadataUrl/,
    ],
    [
      () => oauth({ redirect: cb, redirectUri: REDIRECT, bogus: 1 } as OAuthOptions),
      /unknown option "oauth\.bogus"/,
    ],
    [() => clientCredentials({ clientId: "c" }), /clientCredentials/],
    [() => clientCredentials({ clientId: "c", clientSecret: "s", privateKey: "-----BEGIN" }), /privateKey/],
    [
      () => oauth({ enterprise: { idpTokenEndpoint: "https://idp/t", idToken: "x", idpClientId: "i" } }),
      /clientId/,
    ],
  ])("%s throws an OptionError naming the option", (make, message) => {
    expect(make).toThrow(message);
    expect(make).toThrow(OptionError);
  });

  it.each([
    [{ oauth: { redirect: cb, redirectUri: REDIRECT } }, /oauth\(\{ \.\.\. \}\) from "conduit-mcp"/],
    [{ clientCredentials: { clientId: "c", clientSecret: "s" } }, /clientCredentials\(\{ \.\.\. \}\)/],
  ])("the object form of 0.x %j is refused, naming the function that replaced it", (auth, message) => {
    const make = () => new HttpTransport({ url, auth: auth as never });
    expect(make).toThrow(message);
    expect(make).toThrow(OptionError);
  });

  it("an oauth() value is validated once, when made: a later change to the options object does not reach it", async () => {
    const options: OAuthOptions = { redirect: cb, redirectUri: REDIRECT };
    const auth = oauth(options);
    (options as Record<string, unknown>).redirectUri = "http://example.com/cb"; // would fail the check
    expect(() => new HttpTransport({ url, auth })).not.toThrow();
    // And it shows no option (a clientSecret may be among them) when logged as JSON.
    expect(JSON.parse(JSON.stringify(clientCredentials({ clientId: "c", clientSecret: "hush" })))).toEqual({
      kind: "oauth",
      grant: "clientCredentials",
      principal: "default",
    });
  });

  it("an OAuth form is refused over http to a non-loopback host", () => {
    expect(
      () =>
        new HttpTransport({
          url: "http://mcp.example.com/mcp",
          auth: clientCredentials({ clientId: "c", clientSecret: "s" }),
        }),
    ).toThrow(/credentials need https/);
  });
});

describe("import cost", () => {
  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
  it.skipIf(!existsSync(dist))("oauth4webapi and jose load when an OAuth form is used, not at import", () => {
    const log = join(mkdtempSync(join(tmpdir(), "conduit-imports-")), "log");
    const hooks = `import { appendFileSync } from "node:fs";
      export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r; }`;
    const script = `
      import { register } from "node:module";
      import { readFileSync } from "node:fs";
      register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hooks)}));
      const read = () => { try { return readFileSync(${JSON.stringify(log)}, "utf8"); } catch { return ""; } };
      const heavy = () => read().split("\\n").filter((u) => /oauth4webapi|\\/jose\\//.test(u)).length;
      const { HttpTransport, clientCredentials } = await import(${JSON.stringify(dist)});
      const t = new HttpTransport({ url: "http://127.0.0.1:9/mcp", auth: clientCredentials({ clientId: "c", clientSecret: "s" }) });
      const constructed = heavy();
      await t.start({ message() {}, fail() {}, closed() {} });
      const started = heavy();
      await t.close();
      console.log(JSON.stringify({ constructed, started }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    const { constructed, started } = JSON.parse(out.trim().split("\n").pop()!);
    expect(constructed).toBe(0);
    expect(started).toBeGreaterThan(0);
  });
});
