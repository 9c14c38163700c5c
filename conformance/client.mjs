#!/usr/bin/env node
// The client program the official MCP conformance suite drives (its "everything client" contract):
//   node conformance/client.mjs <server-url>
// with MCP_CONFORMANCE_SCENARIO (the scenario), MCP_CONFORMANCE_PROTOCOL_VERSION (the revision to
// speak) and, for some scenarios, MCP_CONFORMANCE_CONTEXT (JSON, e.g. the tool calls to make).
// It does what the scenario's mock server waits for, through this library's public API only, and
// exits 0 when every step worked. The suite judges the wire traffic; see conformance/README.md.
import { Client, clientCredentials, oauth, PROTOCOL_CHOICES } from "../dist/index.js";

const url = process.argv[2];
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const version = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const context = parseContext(process.env.MCP_CONFORMANCE_CONTEXT);

if (!url) {
  console.error("usage: node conformance/client.mjs <server-url>  (run by the conformance suite)");
  process.exit(2);
}

// The input handler: sampling answers with a fixed text; a form is accepted with no content of our
// own, so the library fills in the schema's defaults (SEP-1034); a URL is accepted (never opened);
// roots are /tmp.
const handler = {
  sampling: () => ({
    role: "assistant",
    content: { type: "text", text: "conformance answer" },
    model: "conformance-model",
    stopReason: "endTurn",
  }),
  elicitationModes: ["form", "url"],
  elicitation: (_params, ctx) =>
    ctx.mode === "url" ? { action: "accept" } : { action: "accept", content: {} },
  listRoots: () => ({ roots: [{ uri: "file:///tmp", name: "tmp" }] }),
};

/** One function per scenario; any other (auth/*, a new one) lists the tools and calls each. */
const scenarios = {
  initialize: listTools,
  tools_call: async (c) => {
    await listTools(c);
    await call(c, "add_numbers", { a: 5, b: 3 });
  },
  "request-metadata": listTools,
  "json-schema-ref-no-deref": listTools,
  "http-standard-headers": async (c) => {
    await callEveryTool(c);
    for (const r of await c.listAllResources()) await step(`read ${r.uri}`, () => c.readResource(r.uri));
    for (const p of await c.listAllPrompts()) await step(`prompt ${p.name}`, () => c.getPrompt(p.name));
  },
  "http-custom-headers": async (c) => {
    await listTools(c);
    for (const { name, arguments: args } of context.toolCalls ?? []) await call(c, name, args ?? {});
  },
  "json-schema-2020-12-preservation": async (c) => {
    const tools = await listTools(c);
    const focal = tools.find((t) => t.name === "json_schema_2020_12_tool");
    if (!focal) throw new Error("the server listed no json_schema_2020_12_tool");
    await call(c, "json_schema_echo", { schema: focal.inputSchema });
  },
};

/** List the tools and call each one (with the context's arguments for it, if any). */
async function callEveryTool(c) {
  const given = new Map((context.toolCalls ?? []).map((t) => [t.name, t.arguments]));
  for (const tool of await listTools(c)) await call(c, tool.name, given.get(tool.name) ?? {});
}

async function listTools(c) {
  const tools = await c.listAllTools();
  console.error(`tools: ${tools.map((t) => t.name).join(", ") || "(none)"}`);
  return tools;
}

async function call(c, name, args) {
  const r = await step(`call ${name}`, () => c.callTool(name, args));
  if (r) console.error(`${name}: ${r.isError ? "isError" : "ok"}`);
}

let failures = 0;
/** Runs one request; a failure is reported and counted, and the scenario goes on. */
async function step(what, fn) {
  try {
    return await fn();
  } catch (err) {
    failures++;
    console.error(`${what} failed: ${describe(err)}`);
    return undefined;
  }
}

/** An McpClientError's message names its kind and reason ("closed: unsupported_protocol_version"). */
function describe(err) {
  return err instanceof Error ? err.message : String(err);
}

function parseContext(text) {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    console.error("MCP_CONFORMANCE_CONTEXT is not JSON; ignored");
    return {};
  }
}

/**
 * The auth form for an auth/* scenario, from the scenario's context: the authorization code flow
 * by default (the redirect callback requests the authorization URL without following it and
 * returns its Location, as the suite expects of a browserless client), client credentials, workload
 * identity or enterprise-managed authorization where the scenario is about them; DPoP for the two
 * DPoP scenarios. The library does everything else (discovery, registration, PKCE, iss, step-up).
 */
function authFor(name, ctx) {
  if (!name.startsWith("auth/")) return undefined;
  const dpop = name === "auth/dpop" || name === "auth/dpop-nonce";
  switch (name) {
    case "auth/client-credentials-basic":
      return clientCredentials({ clientId: ctx.client_id, clientSecret: ctx.client_secret });
    case "auth/client-credentials-jwt":
      return clientCredentials({
        clientId: ctx.client_id,
        privateKey: ctx.private_key_pem,
        signingAlgorithm: ctx.signing_algorithm ?? "ES256",
      });
    case "auth/wif-jwt-bearer":
      return clientCredentials({ clientId: ctx.client_id, assertion: ctx.valid_jwt });
    case "auth/enterprise-managed-authorization":
      return oauth({
        clientId: ctx.client_id,
        clientSecret: ctx.client_secret,
        enterprise: {
          idpTokenEndpoint: ctx.idp_token_endpoint,
          idToken: ctx.idp_id_token,
          idpClientId: ctx.idp_client_id,
        },
      });
  }
  return oauth({
    redirectUri: "http://127.0.0.1:3000/callback",
    redirect: followOnce,
    clientName: "conduit-conformance",
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    ...(ctx.client_id
      ? { clientId: ctx.client_id, clientSecret: ctx.client_secret, issuer: ctx.issuer }
      : {}),
    ...(dpop ? { dpop: true } : {}),
  });
}

/** The "browser": requests the authorization URL and returns where the AS redirects (with the code). */
async function followOnce(authorizationUrl) {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  const location = res.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint answered ${res.status} without a redirect`);
  return new URL(location, authorizationUrl).href;
}

/** A revision this library speaks is pinned; any other (older dated ones) falls back to its era. */
function protocolFor(v) {
  if (!v) return "auto";
  // The dated choices are the revisions it speaks; the newest of them is a modern one.
  const spoken = PROTOCOL_CHOICES.filter((c) => /^\d/.test(c));
  if (spoken.includes(v)) return v;
  return v > spoken.toSorted().at(-1) ? "modern" : "legacy";
}

const client = new Client({
  name: "conduit-conformance",
  transport: {
    type: "http",
    url,
    ...(authFor(scenario, context) ? { auth: authFor(scenario, context) } : {}),
  },
  protocol: protocolFor(version),
  handler,
  requestTimeout: 20_000,
});
console.error(`scenario ${scenario || "(none)"} at ${version ?? "(no version)"} -> ${url}`);
try {
  await client.ready({ timeout: 20_000 });
  const s = client.status();
  console.error(`ready: ${s.era} ${s.version}`);
  await (scenarios[scenario] ?? callEveryTool)(client);
} catch (err) {
  failures++;
  console.error(`failed: ${describe(err)}`);
} finally {
  await client.close();
}
process.exitCode = failures ? 1 : 0;
