/**
 * A 401 whose `WWW-Authenticate` names a `resource_metadata` URL chosen to reach what the client
 * should not: a private address (directly, as an IPv4-mapped IPv6 literal, or through a name
 * that resolves to one), plain http to a cloud metadata address, a URL with user info. Under
 * `serverUrlPolicy: "publicOnly"` none is fetched: the URL policy refuses the address before
 * any connection (`oauth_denied`, `data.reason: "server_url_policy"`), and an unsafe URL is
 * refused under any policy (`unsafe_resource_metadata_url`). Held before this file; no other
 * test sends a hostile `resource_metadata`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Client, McpClientError, oauth } from "../src/index.js";

let server: http.Server;
let challenge = "";
const seen: string[] = [];
const resolved: string[] = [];
const open: Client[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(401, { "www-authenticate": challenge, "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
  seen.length = 0;
  resolved.length = 0;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const ADDRESSES: Record<string, string[]> = {
  localhost: ["127.0.0.1"],
  "meta.internal": ["10.1.1.1"],
  "public.example": ["93.184.216.34"],
};

function client(policy: "publicOnly" | "any"): Client {
  const port = (server.address() as AddressInfo).port;
  const c = new Client({
    name: "hostile-oauth-metadata",
    requestTimeout: 5_000,
    maxReconnects: 0,
    protocol: "2026-07-28",
    transport: {
      type: "http",
      url: `http://localhost:${port}/mcp`,
      requestTimeout: 2_000,
      ...(policy === "publicOnly"
        ? {
            serverUrlPolicy: "publicOnly",
            allowPrivate: ["127.0.0.1/32"],
            resolver: async (host: string) => {
              resolved.push(host);
              return ADDRESSES[host] ?? [];
            },
          }
        : {}),
      auth: oauth({
        redirect: () => {
          throw new Error("no user here");
        },
        redirectUri: "http://127.0.0.1:9/cb",
      }),
    },
  });
  open.push(c);
  return c;
}

async function failure(p: Promise<unknown>): Promise<McpClientError> {
  const err = await p.then(
    () => new Error("expected a rejection"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpClientError);
  return err as McpClientError;
}

describe("a hostile resource_metadata under publicOnly", () => {
  it.each([
    ["a name that resolves to a private address", "https://meta.internal/prm"],
    ["a private address", "https://10.9.8.7/prm"],
    ["an IPv4-mapped IPv6 private address", "https://[::ffff:10.0.0.1]/prm"],
  ])("%s: refused by the URL policy, never fetched", async (_name, url) => {
    challenge = `Bearer resource_metadata="${url}"`;
    const err = await failure(client("publicOnly").ready());
    expect(err).toMatchObject({ kind: "auth", reason: "oauth_denied" });
    expect(err.data).toMatchObject({ reason: "server_url_policy" });
    // Only the MCP request reached a server; nothing went to the well-known URLs either.
    expect(seen).toEqual(["POST /mcp"]);
  });
});

describe("an unsafe resource_metadata, whatever the policy", () => {
  it.each([
    ["publicOnly", "http://169.254.169.254/latest/meta-data"],
    ["any", "http://169.254.169.254/latest/meta-data"],
    ["any", "https://user:secret@public.example/prm"],
  ] as const)("%s %s: unsafe_resource_metadata_url, nothing fetched", async (policy, url) => {
    challenge = `Bearer resource_metadata="${url}"`;
    const err = await failure(client(policy).ready());
    expect(err).toMatchObject({ kind: "auth", reason: "unsafe_resource_metadata_url" });
    expect(err.message).not.toContain("secret@");
    expect(seen).toEqual(["POST /mcp"]);
    expect(resolved.filter((h) => h !== "localhost")).toEqual([]);
  });
});
