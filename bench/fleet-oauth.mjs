// A small OAuth-protected MCP server for bench/fleet.mjs (a child process): one origin plays the
// MCP server (modern, scripted: tools/list names the user, tools/call answers it), its protected
// resource metadata and its authorization server (metadata, registration, authorize without a
// page, token with rotating refresh tokens). Tokens expire after `expires_in` (argv[2], s).
// GET /admin/stats answers { codeGrants, refreshGrants, lists, discovers }; POST /admin/reset.
// Prints "LISTENING <port>" when ready. (test/support/oauth-server.ts is the tests' fuller one.)
import { randomBytes } from "node:crypto";
import http from "node:http";

const expiresIn = Number(process.argv[2] ?? 3600);
let stats = { codeGrants: 0, refreshGrants: 0, lists: 0, discovers: 0, calls: 0 };
const codes = new Map();
const issued = new Map();
const refresh = new Map();
let origin = "";

const send = (res, status, body, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

function issue(user) {
  const access = `at_${randomBytes(12).toString("hex")}`;
  const rt = `rt_${randomBytes(12).toString("hex")}`;
  issued.set(access, user);
  refresh.set(rt, user);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: expiresIn,
    refresh_token: rt,
    scope: "mcp",
  };
}

const server = http.createServer(async (req, res) => {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const raw = Buffer.concat(chunks).toString("utf8");
  const u = new URL(req.url ?? "/", origin);
  switch (`${req.method} ${u.pathname}`) {
    case "GET /admin/stats":
      return send(res, 200, stats);
    case "POST /admin/reset":
      stats = { codeGrants: 0, refreshGrants: 0, lists: 0, discovers: 0, calls: 0 };
      return send(res, 200, stats);
    case "GET /.well-known/oauth-protected-resource/mcp":
      return send(res, 200, {
        resource: `${origin}/mcp`,
        authorization_servers: [origin],
        scopes_supported: ["mcp"],
      });
    case "GET /.well-known/oauth-authorization-server":
      return send(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        authorization_response_iss_parameter_supported: true,
        scopes_supported: ["mcp", "offline_access"],
      });
    case "POST /register":
      return send(res, 201, {
        client_id: `client-${randomBytes(4).toString("hex")}`,
        token_endpoint_auth_method: "none",
      });
    case "GET /authorize": {
      const code = `code_${randomBytes(12).toString("hex")}`;
      codes.set(code, u.searchParams.get("login") ?? "nobody");
      const back = new URL(u.searchParams.get("redirect_uri"));
      back.searchParams.set("code", code);
      back.searchParams.set("state", u.searchParams.get("state") ?? "");
      back.searchParams.set("iss", origin);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    case "POST /token": {
      const form = new URLSearchParams(raw);
      if (form.get("grant_type") === "authorization_code") {
        stats.codeGrants++;
        const user = codes.get(form.get("code"));
        if (!user) return send(res, 400, { error: "invalid_grant" });
        codes.delete(form.get("code"));
        return send(res, 200, issue(user));
      }
      stats.refreshGrants++;
      const user = refresh.get(form.get("refresh_token"));
      if (!user) return send(res, 400, { error: "invalid_grant" });
      refresh.delete(form.get("refresh_token")); // rotation: a refresh token works once
      return send(res, 200, issue(user));
    }
    case "POST /mcp": {
      const user = issued.get((req.headers.authorization ?? "").slice("Bearer ".length));
      const challenge = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
      if (!user) return send(res, 401, { error: "invalid_token" }, { "www-authenticate": challenge });
      const msg = JSON.parse(raw);
      const meta = { "io.modelcontextprotocol/serverInfo": { name: "bench-oauth", version: "1.0.0" } };
      const ok = (r) =>
        send(res, 200, { jsonrpc: "2.0", id: msg.id, result: { resultType: "complete", ...r, _meta: meta } });
      if (msg.method === "server/discover") {
        stats.discovers++;
        return ok({ supportedVersions: ["2026-07-28"], capabilities: { tools: {} } });
      }
      if (msg.method === "tools/list") {
        stats.lists++;
        return ok({
          tools: [{ name: "whoami", inputSchema: { type: "object" } }],
          ttlMs: 60_000,
          cacheScope: "private",
        });
      }
      if (msg.method === "tools/call") {
        stats.calls++;
        return ok({ content: [{ type: "text", text: user }] });
      }
      return send(res, 200, {
        jsonrpc: "2.0",
        id: msg.id,
        error: { code: -32601, message: "Method not found" },
      });
    }
    default:
      res.writeHead(404).end();
  }
});
server.listen(0, "127.0.0.1", () => {
  origin = `http://127.0.0.1:${server.address().port}`;
  process.stdout.write(`LISTENING ${server.address().port}\n`);
});
process.on("SIGTERM", () => process.exit(0));
