/**
 * Credentials as values (issue 25, "Seams are values"): the HTTP transport's `auth` takes an
 * `AuthProviderFactory` (`oauth({...})`, or one of your own) and nothing is registered anywhere.
 * This file imports the client and auth/oauth.ts directly, never the package entry (vitest gives
 * each file its own module graph): the OAuth flow working here is the proof that no import side
 * effect installs it.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { oauth } from "../src/auth/oauth.js";
import { Client } from "../src/client/client.js";
import { Secret } from "../src/shared/secret.js";
import type { AuthProvider, AuthProviderFactory } from "../src/transport/credentials.js";
import { silentLogger } from "./support/logger.js";
import { OAuthServer } from "./support/oauth-server.js";

const servers: OAuthServer[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function protectedServer(): Promise<OAuthServer> {
  const s = await new OAuthServer().start();
  servers.push(s);
  return s;
}

function clientOf(s: OAuthServer, auth: AuthProviderFactory): Client {
  const c = new Client({
    name: "values",
    transport: { type: "http", url: s.url, auth },
    logger: silentLogger(),
  });
  clients.push(c);
  return c;
}

/** A credential source of one's own: no token until the server's 401, then `token`. */
function handedToken(token: string, log: string[]): AuthProviderFactory {
  return {
    kind: "handed",
    newTransportState: () => {
      log.push("state");
      return { made: log.length };
    },
    async createProvider(ctx) {
      log.push(`provider for ${ctx.serverUrl.pathname} with ${JSON.stringify(ctx.state)}`);
      let held: Secret | null = null;
      const provider: AuthProvider = {
        token: async () => (held ? { authorization: new Secret(`Bearer ${held.reveal()}`) } : null),
        challenged: async (event) => {
          log.push(`challenged ${event.status}`);
          if (held) return false;
          held = new Secret(token);
          return true;
        },
        identity: () => (held ? `handed:${token}` : null),
      };
      return provider;
    },
  };
}

describe("auth as a value", () => {
  it("oauth({...}) works without the package entry ever being imported (nothing to register)", async () => {
    const s = await protectedServer();
    const c = clientOf(
      s,
      oauth({ redirect: s.browser("alice"), redirectUri: "http://127.0.0.1:4567/callback" }),
    );
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["whoami_alice"]);
    expect(s.counts.authorize).toBe(1);
  });

  it("a factory of one's own is asked for a provider, answers the 401, and names the cache identity", async () => {
    const s = await protectedServer();
    s.issued.set("carol-token", { user: "carol", scope: "" });
    const log: string[] = [];
    const c = clientOf(s, handedToken("carol-token", log));
    await c.ready(); // a listing started before the first token is held is not cached (docs/oauth.md)
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["whoami_carol"]);
    // The private listing is kept under the provider's identity.
    expect(c.cachedTools().map((t) => t.name)).toEqual(["whoami_carol"]);
    expect(log).toEqual(["state", 'provider for /mcp with {"made":1}', "challenged 401"]);

    // setAuth with another value of the same kind: a new provider, the transport's state kept.
    s.issued.set("dave-token", { user: "dave", scope: "" });
    await c.setAuth(handedToken("dave-token", log));
    expect((await c.listAllTools()).map((t) => t.name)).toEqual(["whoami_dave"]);
    expect(log.slice(3)).toEqual(['provider for /mcp with {"made":1}', "challenged 401"]);
  });

  it("a factory that throws something other than an McpClientError fails the request as kind auth", async () => {
    const s = await protectedServer();
    const c = clientOf(s, {
      kind: "broken",
      createProvider: async () => {
        throw new Error("no keys here");
      },
    });
    await expect(c.ready()).rejects.toMatchObject({ kind: "auth", reason: "oauth_failed" });
  });
});

describe("the package entry", () => {
  it("no source file widens a type by declaration merging or installs a plug-in", () => {
    const src = fileURLToPath(new URL("../src/", import.meta.url));
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.filter((f) =>
      /^\s*declare module\b|\bregister\w*Plugin\(/m.test(readFileSync(join(src, f), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));
  it.skipIf(!existsSync(dist))("importing it changes no global state and registers nothing", () => {
    const script = `
      const globals = () => Reflect.ownKeys(globalThis).map(String).sort();
      const listeners = () => process.eventNames().map((n) => String(n) + ":" + process.listenerCount(n)).sort();
      const before = { globals: globals(), listeners: listeners(), env: JSON.stringify(process.env) };
      const m = await import(${JSON.stringify(dist)});
      const after = { globals: globals(), listeners: listeners(), env: JSON.stringify(process.env) };
      console.log(JSON.stringify({ before, after, oauth: typeof m.oauth, names: Object.keys(m) }));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
    const { before, after, oauth: made, names } = JSON.parse(out.trim().split("\n").pop()!);
    expect(after).toEqual(before);
    expect(made).toBe("function");
    expect(names.filter((n: string) => /register|plugin/i.test(n))).toEqual([]);
  });
});
