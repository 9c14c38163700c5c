/**
 * The list cache over HTTP, against the official @modelcontextprotocol/server (modern) on
 * 127.0.0.1 whose tools/list depends on the bearer token of the request (every user sees "echo"
 * and a "whoami_<user>" of their own) and carries the cache hints the test configures. Covers
 * issue 5: clients with different tokens never see each other's private lists; cacheScope and the
 * identity of the credentials; setAuth; auth functions with and without credentialId; and the
 * token (a Secret) showing in no error, log line or telemetry event.
 */
import { createHash, randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  Client,
  type ClientOptions,
  type HttpAuth,
  HttpTransport,
  type Logger,
  McpClientError,
  Secret,
  subscribe,
  type Tool,
} from "../src/index.js";
import { EVENT_NAMES } from "../src/telemetry/index.js";
import { waitFor } from "./support/async.js";
import { type RunningServer, startHttpFixture } from "./support/http-servers.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/http-cache-server.mjs", import.meta.url));

// ---- tokens: the fixture's users are named by the token, "tok_<user>_<secret part>" ----------

const tokenValue = (user: string) => `tok_${user}_${randomBytes(18).toString("hex")}`;
const VALUES = {
  alice: tokenValue("alice"),
  bob: tokenValue("bob"),
  carol: tokenValue("carol"),
  /** Not of the fixture's form: the server answers 401. */
  rejected: `bad_${randomBytes(18).toString("hex")}`,
};
const TOKENS = {
  alice: new Secret(VALUES.alice),
  bob: new Secret(VALUES.bob),
  carol: new Secret(VALUES.carol),
  rejected: new Secret(VALUES.rejected),
};
/** Every token value and the part after the user's name: none may show anywhere. */
const SECRET_STRINGS = Object.values(VALUES).flatMap((v) => [v, v.slice(v.lastIndexOf("_") + 1)]);

const sha256 = (s: string) => `sha256:${createHash("sha256").update(s).digest("hex")}`;

// ---- the server --------------------------------------------------------------------------------

type Scope = "private" | "public" | "mixed" | "paged-public";
interface Stats {
  lists: Record<string, number>;
  pages: Array<{ user: string; cursor: string | null }>;
  requests: number;
  unauthorized: number;
}

let server: RunningServer | undefined;
let origin: string;
let url: string;

async function startServer(): Promise<void> {
  server = await startHttpFixture(FIXTURE, []);
  origin = server.origin;
  url = server.url;
}

function stopServer(): Promise<void> {
  return server?.stop() ?? Promise.resolve();
}

async function configure(c: { scope?: Scope; ttlMs?: number; delayMs?: number }): Promise<void> {
  const res = await fetch(`${origin}/admin/config`, { method: "POST", body: JSON.stringify(c) });
  expect(res.status).toBe(200);
}

async function stats(): Promise<Stats> {
  return (await fetch(`${origin}/admin/stats`)).json() as Promise<Stats>;
}

// ---- what the tests record: every event, every log line, every error seen ----------------------

const events: Array<Record<string, unknown>> = [];
const unsubscribers = EVENT_NAMES.map((name) => subscribe(name, (e) => void events.push(e)));

interface RecordingLogger extends Logger {
  lines: string[];
}
const loggers: RecordingLogger[] = [];
function recordingLogger(): RecordingLogger {
  const lines: string[] = [];
  const logger: RecordingLogger = {
    lines,
    debug: (m) => void lines.push(`debug ${m}`),
    info: (m) => void lines.push(`info ${m}`),
    warn: (m) => void lines.push(`warn ${m}`),
    error: (m) => void lines.push(`error ${m}`),
  };
  loggers.push(logger);
  return logger;
}

const errors: unknown[] = [];
/** Keeps `err` for the leak check and hands it back. */
function seen<T>(err: T): T {
  errors.push(err);
  return err;
}

/** Every way an error can be looked at. */
function errorTexts(err: unknown): string[] {
  const out = [String(err), inspect(err, { depth: null, showHidden: true })];
  if (err instanceof Error) {
    out.push(err.message, err.stack ?? "");
    if (err.cause !== undefined) out.push(inspect(err.cause, { depth: null }));
  }
  try {
    out.push(JSON.stringify(err) ?? "");
  } catch {
    // A cycle: inspect above covered it.
  }
  if (err instanceof McpClientError) out.push(JSON.stringify(err.data ?? null), String(err.reason));
  return out;
}

function expectNoSecret(texts: string[], where: string): void {
  for (const text of texts) {
    for (const s of SECRET_STRINGS) {
      if (text.includes(s)) throw new Error(`a token shows in ${where}: ${text.slice(0, 300)}`);
    }
  }
}

// ---- clients -----------------------------------------------------------------------------------

const open = new Set<Client>();
let counter = 0;

/** A client of the fixture; `auth` defaults to alice's token. */
function client(
  label: string,
  transport: HttpTransport | { auth?: HttpAuth; credentialId?: string } = { auth: { bearer: TOKENS.alice } },
  options: Partial<ClientOptions> = {},
): Client {
  counter += 1;
  const c = new Client({
    name: `http-cache-${label}-${counter}`,
    transport: transport instanceof HttpTransport ? transport : { type: "http", url, ...transport },
    logger: recordingLogger(),
    requestTimeout: 10_000,
    ...options,
  });
  open.add(c);
  return c;
}

/** tools/list requests this client made (each page is one), from `request:start`. */
const listRequests = (c: Client) =>
  events.filter((e) => e.event === "request:start" && e.client === c.name && e.method === "tools/list")
    .length;

const names = (tools: Tool[]) => tools.map((t) => t.name).sort();

function expectNotCached(c: Client): void {
  let caught: unknown;
  try {
    c.cachedTools();
  } catch (err) {
    caught = seen(err);
  }
  expect(caught).toBeInstanceOf(McpClientError);
  expect(caught).toMatchObject({ kind: "not_found", reason: "not_cached" });
}

beforeAll(startServer);
afterAll(async () => {
  for (const u of unsubscribers) u();
  await stopServer();
});
beforeEach(async () => {
  await configure({ scope: "private", ttlMs: 60_000, delayMs: 0 });
  await fetch(`${origin}/admin/reset`, { method: "POST" });
});
afterEach(async () => {
  await Promise.all([...open].map((c) => c.close()));
  open.clear();
});

// ---- the tests ---------------------------------------------------------------------------------

describe("two users against one server", () => {
  it("clients with different bearer tokens never see each other's private lists", async () => {
    const alice = client("alice", { auth: { bearer: TOKENS.alice } });
    const bob = client("bob", { auth: { bearer: TOKENS.bob } });

    const [a, b] = await Promise.all([alice.listAllTools(), bob.listAllTools()]);
    expect(names(a)).toEqual(["echo", "whoami_alice"]);
    expect(names(b)).toEqual(["echo", "whoami_bob"]);

    // Asked again, interleaved: each is served its own list from its own cache.
    for (let i = 0; i < 3; i++) {
      expect(names(await bob.listAllTools())).toEqual(["echo", "whoami_bob"]);
      expect(names(await alice.listAllTools())).toEqual(["echo", "whoami_alice"]);
      expect(names(alice.cachedTools())).toEqual(["echo", "whoami_alice"]);
      expect(names(bob.cachedTools())).toEqual(["echo", "whoami_bob"]);
    }
    expect(() => alice.tool("whoami_bob")).toThrow(expect.objectContaining({ reason: "unknown_tool" }));
    expect(() => bob.tool("whoami_alice")).toThrow(expect.objectContaining({ reason: "unknown_tool" }));
    expect(alice.tool("whoami_alice").name).toBe("whoami_alice");

    // One tools/list each: everything after the first listing came from the cache.
    expect(listRequests(alice)).toBe(1);
    expect(listRequests(bob)).toBe(1);
    expect((await stats()).lists).toEqual({ alice: 1, bob: 1 });

    // And each one's calls reach the server as that user.
    expect((await alice.callTool("whoami_alice", {})).content).toEqual([{ type: "text", text: "alice" }]);
    expect((await bob.callTool("whoami_bob", {})).content).toEqual([{ type: "text", text: "bob" }]);
  });

  it("a public list is cached per client too: another client never gets it", async () => {
    await configure({ scope: "public" });
    const alice = client("alice-public", { auth: { bearer: TOKENS.alice } });
    const bob = client("bob-public", { auth: { bearer: TOKENS.bob } });
    expect(names(await alice.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expectNotCached(bob);
    expect(names(await bob.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(names(await alice.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect([listRequests(alice), listRequests(bob)]).toEqual([1, 1]);
  });
});

describe("cacheScope and the identity of the credentials", () => {
  it("a public page and a private page make a private list: setAuth deletes it", async () => {
    await configure({ scope: "mixed" });
    const c = client("mixed");
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(2); // two pages
    // Cached (for alice's token): served without asking.
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(2);

    await c.setAuth({ bearer: TOKENS.bob });
    expectNotCached(c);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(4);
    expect((await stats()).pages).toEqual([
      { user: "alice", cursor: null },
      { user: "alice", cursor: "page-2" },
      { user: "bob", cursor: null },
      { user: "bob", cursor: "page-2" },
    ]);
  });

  it("a listing asked for while setAuth is under way is fetched with the new credentials", async () => {
    await configure({ scope: "private", delayMs: 200 });
    const c = client("during-setAuth");
    // Connected first, so alice's request goes out as soon as it starts (not after a reconnect).
    await c.ready({ timeout: 20_000 });
    const first = c.listAllTools().catch((e) => e); // alice's walk, slow
    await waitFor(() => listRequests(c) >= 1);
    const switching = c.setAuth({ bearer: TOKENS.bob });
    const second = await c.listAllTools();
    await switching;
    expect(names(second)).toEqual(["echo", "whoami_bob"]);
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_bob"]);
    expect(await first).toMatchObject({ kind: "transport" }); // alice's walk was cut by the reconnect
  });

  it("two pages that both say public make a public list, which setAuth keeps", async () => {
    await configure({ scope: "paged-public" });
    const c = client("paged-public");
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(2);

    await c.setAuth({ bearer: TOKENS.bob });
    // The server called the whole list public: it stays, readable under the new credentials.
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    // setAuth reconnected, which marks every list stale: the next listing asks, with bob's token.
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(4);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(4);
  });

  it("a private list is cached with the SHA-256 of the bearer token, served only while that token is sent", async () => {
    const t = new HttpTransport({ url, auth: { bearer: TOKENS.alice } });
    expect(t.credentialIdentity).toBe(sha256(VALUES.alice));
    const c = client("identity", t);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(1);

    // The same token in another Secret is the same identity: still served, without asking.
    t.setAuth({ bearer: new Secret(VALUES.alice) });
    expect(t.credentialIdentity).toBe(sha256(VALUES.alice));
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(1);

    // The transport now sends bob's token (replaced under the client, which deleted nothing):
    // alice's list is not served to it.
    t.setAuth({ bearer: TOKENS.bob });
    expect(t.credentialIdentity).toBe(sha256(VALUES.bob));
    expectNotCached(c);
    expect(() => c.tool("whoami_alice")).toThrow(expect.objectContaining({ reason: "not_cached" }));
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(2);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(2);

    // Back to alice's token: bob's list is not served to her either.
    t.setAuth({ bearer: TOKENS.alice });
    expectNotCached(c);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(3);

    // No credentials at all: a different identity again.
    t.setAuth(null);
    expect(t.credentialIdentity).toBeNull();
    expectNotCached(c);
    expect((await stats()).lists).toEqual({ alice: 2, bob: 1 });
  });

  // BUG (reported): the identity a walk is cached under is read when the walk starts, while each
  // page is sent with the credentials of its own moment. Credentials replaced on the transport
  // between two pages leave a list holding the new user's private page cached for the old user.
  it("a walk whose credentials change between pages is not cached for the first ones", async () => {
    await configure({ scope: "mixed", delayMs: 300 }); // the first page answers after 300 ms
    const t = new HttpTransport({ url, auth: { bearer: TOKENS.alice } });
    const c = client("between-pages", t);
    await c.ready();
    const walk = c.listAllTools();
    await waitFor(async () => (await stats()).pages.length > 0, "the first page to reach the server");
    t.setAuth({ bearer: TOKENS.bob }); // page 1 went as alice; page 2 goes as bob
    await walk;
    expect((await stats()).pages).toEqual([
      { user: "alice", cursor: null },
      { user: "bob", cursor: "page-2" },
    ]);

    t.setAuth({ bearer: TOKENS.alice });
    const cached = (() => {
      try {
        return names(c.cachedTools());
      } catch {
        return [];
      }
    })();
    expect(cached).not.toContain("whoami_bob"); // fails: ["echo", "whoami_bob"]
    expect(names(await c.listAllTools())).not.toContain("whoami_bob");
  });

  it("client.setAuth deletes private lists before it returns", async () => {
    const c = client("setauth-private");
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);

    const pending = c.setAuth({ bearer: TOKENS.bob });
    expectNotCached(c); // already, before the promise settles
    await pending;
    expectNotCached(c);
    expect(() => c.tool("whoami_alice")).toThrow(expect.objectContaining({ kind: "not_found" }));

    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(2);

    // Even the same token again: the list of "the old credentials" goes.
    await c.setAuth({ bearer: new Secret(VALUES.bob) });
    expectNotCached(c);
    expect((await stats()).lists).toEqual({ alice: 1, bob: 1 });
  });

  it("client.setAuth keeps public lists", async () => {
    await configure({ scope: "public" });
    const c = client("setauth-public");
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    const pending = c.setAuth({ bearer: TOKENS.bob });
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    await pending;
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    expect(c.tool("whoami_alice").name).toBe("whoami_alice");
    expect(listRequests(c)).toBe(1);
    // Kept, but stale (setAuth reconnected): the next listing asks again, as bob.
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(2);
    expect(c.status().state).toBe("ready");
  });

  it("an invalid token given to setAuth throws a TypeError without the token, and changes nothing", async () => {
    const c = client("setauth-invalid");
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    const bad = new Secret(`${VALUES.bob} trailing`);
    const err = seen(await c.setAuth({ bearer: bad }).catch((e: unknown) => e));
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toContain("auth.bearer");
    expectNoSecret(errorTexts(err), "the TypeError of setAuth");
    // The credentials and the private list are what they were.
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    expect(names(await c.listAllTools({ refresh: true }))).toEqual(["echo", "whoami_alice"]);
  });
});

describe("auth functions", () => {
  it("with credentialId, private lists are cached per that id", async () => {
    let calls = 0;
    const as = (token: Secret) => () => {
      calls += 1;
      return token;
    };
    const t = new HttpTransport({ url, auth: as(TOKENS.alice), credentialId: "user-alice" });
    expect(t.credentialIdentity).toBe("id:user-alice");
    const c = client("fn-id", t);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    const afterFirst = calls;
    expect(afterFirst).toBeGreaterThan(0);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(1);
    expect(calls).toBe(afterFirst); // served from the cache: no request, no token asked for

    // Another function with the same id is the same identity: the list is still served.
    t.setAuth(as(TOKENS.alice), { credentialId: "user-alice" });
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(1);

    // Another id: not served.
    t.setAuth(as(TOKENS.bob), { credentialId: "user-bob" });
    expect(t.credentialIdentity).toBe("id:user-bob");
    expectNotCached(c);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_bob"]);
    expect(listRequests(c)).toBe(2);

    // Through the client: deleted at once, then cached for the new id.
    await c.setAuth(as(TOKENS.carol), { credentialId: "user-carol" });
    expectNotCached(c);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_carol"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_carol"]);
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_carol"]);
    expect(listRequests(c)).toBe(3);
    expect((await stats()).lists).toEqual({ alice: 1, bob: 1, carol: 1 });
  });

  it("without credentialId, private lists are never served from the cache", async () => {
    const c = client("fn-private", { auth: () => TOKENS.alice });
    for (let i = 1; i <= 3; i++) {
      expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
      expect(listRequests(c)).toBe(i);
      expectNotCached(c);
    }
    expect(() => c.tool("echo")).toThrow(expect.objectContaining({ reason: "not_cached" }));

    // Two pages, one of them private: a private list, never cached either.
    await configure({ scope: "mixed" });
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(7);
    expectNotCached(c);
    expect((await stats()).lists).toEqual({ alice: 7 });
  });

  it("without credentialId, public lists are served from the cache", async () => {
    await configure({ scope: "public" });
    const c = client("fn-public", { auth: () => TOKENS.alice });
    for (let i = 0; i < 3; i++) {
      expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    }
    expect(names(c.cachedTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(1);

    await configure({ scope: "paged-public" });
    expect(names(await c.listAllTools({ refresh: true }))).toEqual(["echo", "whoami_alice"]);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(3);
  });

  it("a private list cached for a bearer token is not served once the transport sends an unnamed function's", async () => {
    const t = new HttpTransport({ url, auth: { bearer: TOKENS.alice } });
    const c = client("bearer-to-fn", t);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    t.setAuth(() => TOKENS.alice);
    expect(t.credentialIdentity).toBeUndefined();
    expectNotCached(c);
    expect(names(await c.listAllTools())).toEqual(["echo", "whoami_alice"]);
    expect(listRequests(c)).toBe(2);
    expectNotCached(c);
  });
});

describe("the tokens never show", () => {
  it("in the errors of a rejected token, an invalid token and a failing auth function", async () => {
    // The server answers 401 to this token.
    const rejected = client("rejected", { auth: { bearer: TOKENS.rejected } }, { maxReconnects: 0 });
    const e1 = seen(await rejected.listAllTools().catch((e: unknown) => e));
    expect(e1).toBeInstanceOf(McpClientError);
    expect((e1 as McpClientError).kind).toBe("auth");
    expect((await stats()).unauthorized).toBeGreaterThan(0);

    // A function that gives a token the transport cannot send (it carries a space).
    const invalid = client(
      "invalid",
      { auth: () => new Secret(`${VALUES.alice} ${VALUES.bob}`), credentialId: "x" },
      { maxReconnects: 0 },
    );
    const e2 = seen(await invalid.listAllTools().catch((e: unknown) => e));
    expect(e2).toBeInstanceOf(McpClientError);

    // A function that fails, with the token in its own message.
    const failing = client(
      "failing",
      {
        auth: () => {
          throw new Error(`could not refresh ${VALUES.carol}`);
        },
      },
      { maxReconnects: 0 },
    );
    const e3 = seen(await failing.listAllTools().catch((e: unknown) => e));
    expect(e3).toBeInstanceOf(McpClientError);

    // And a setAuth to a rejected token on a working client.
    const c = client("to-rejected");
    await c.listAllTools();
    await c.setAuth({ bearer: TOKENS.rejected });
    const e4 = seen(await c.listAllTools().catch((e: unknown) => e));
    expect(e4).toBeInstanceOf(McpClientError);
    expectNotCached(c);

    // A token that stops working once connected: the request fails with auth and the challenge.
    let current = TOKENS.alice;
    const expiring = client("expiring", { auth: () => current, credentialId: "alice" });
    await expiring.listAllTools();
    current = TOKENS.rejected;
    const e5 = seen(await expiring.listAllTools({ refresh: true }).catch((e: unknown) => e));
    expect(e5).toMatchObject({ kind: "auth", reason: "unauthorized", data: { status: 401 } });

    expect([e1, e2, e3, e4].map((e) => (e as McpClientError).reason)).toEqual([
      "unauthorized",
      "invalid_token",
      "auth_function_failed",
      "unauthorized",
    ]);
    for (const [i, e] of [e1, e2, e3, e4, e5].entries()) expectNoSecret(errorTexts(e), `error ${i + 1}`);
    for (const l of loggers) expectNoSecret(l.lines, "a log line");
  });

  it("in any error, log line or telemetry event of this file", () => {
    // The recorder saw the traffic of the tests above.
    const mine = events.filter((e) => String(e.client).startsWith("http-cache-"));
    const kinds = new Set(mine.map((e) => e.event));
    for (const k of ["request:start", "request:stop", "cache:refresh:start", "cache:refresh:stop"]) {
      expect(kinds).toContain(k);
    }
    expect(kinds).toContain("connection:transition");
    expect(errors.length).toBeGreaterThan(10);
    expect(loggers.length).toBeGreaterThan(10);

    expectNoSecret(
      events.map((e) => JSON.stringify(e)),
      "a telemetry event",
    );
    expectNoSecret(
      events.map((e) => inspect(e, { depth: null })),
      "a telemetry event",
    );
    for (const l of loggers) expectNoSecret(l.lines, "a log line");
    for (const e of errors) expectNoSecret(errorTexts(e), "an error");
  });
});
