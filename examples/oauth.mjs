// OAuth against a scripted protected server, all in this process on 127.0.0.1:
//   npm run build && node examples/oauth.mjs
// The server answers 401 until it sees a token its authorization server issued; the client
// discovers the AS from the 401, registers, sends the "user" to the authorization URL (here a
// fetch that reads the redirect, as a browser would follow it), exchanges the code, and lists.
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { Client, MemoryTokenStore, oauth } from "../dist/index.js";

const codes = new Map(); // code -> PKCE challenge
const tokens = new Set();
const server = http.createServer(async (req, res) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  const base = `http://127.0.0.1:${server.address().port}`;
  const url = new URL(req.url, base);
  const json = (status, value, headers = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value));
  };
  switch (`${req.method} ${url.pathname}`) {
    case "GET /.well-known/oauth-protected-resource/mcp":
      return json(200, { resource: `${base}/mcp`, authorization_servers: [base] });
    case "GET /.well-known/oauth-authorization-server":
      return json(200, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        code_challenge_methods_supported: ["S256"],
        response_types_supported: ["code"],
      });
    case "POST /register":
      return json(201, { client_id: "example-client" });
    case "GET /authorize": {
      const code = randomBytes(8).toString("hex");
      codes.set(code, url.searchParams.get("code_challenge"));
      const back = new URL(url.searchParams.get("redirect_uri"));
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state"));
      return res.writeHead(302, { location: back.href }).end();
    }
    case "POST /token": {
      const form = new URLSearchParams(body);
      const challenge = createHash("sha256")
        .update(form.get("code_verifier") ?? "")
        .digest("base64url");
      if (codes.get(form.get("code")) !== challenge) return json(400, { error: "invalid_grant" });
      const token = randomBytes(16).toString("hex");
      tokens.add(token);
      return json(200, { access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    case "POST /mcp": {
      if (!tokens.has((req.headers.authorization ?? "").slice(7))) {
        return json(
          401,
          {},
          {
            "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          },
        );
      }
      const msg = JSON.parse(body);
      if (msg.method === "server/discover") {
        return json(200, {
          jsonrpc: "2.0",
          id: msg.id,
          result: {
            supportedVersions: ["2026-07-28"],
            capabilities: { tools: {} },
            _meta: { "io.modelcontextprotocol/serverInfo": { name: "protected", version: "1.0.0" } },
          },
        });
      }
      return json(200, {
        jsonrpc: "2.0",
        id: msg.id,
        result: { resultType: "complete", tools: [{ name: "secret_tool", inputSchema: { type: "object" } }] },
      });
    }
  }
  res.writeHead(404).end();
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));

const client = new Client({
  name: "oauth-example",
  transport: {
    type: "http",
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    auth: oauth({
      redirectUri: "http://127.0.0.1:8976/callback",
      // A browser would follow the redirect to your callback; here we read it directly.
      redirect: async (authorizationUrl) => {
        const res = await fetch(authorizationUrl, { redirect: "manual" });
        return res.headers.get("location");
      },
      store: new MemoryTokenStore(),
    }),
  },
});
try {
  const tools = await client.listAllTools();
  console.log(tools.map((t) => t.name).join(", "));
} finally {
  await client.close();
  server.close();
}
