/**
 * A scripted OAuth-protected MCP server on 127.0.0.1: one origin plays the MCP server (modern
 * era, `tools/list` names the user the token was issued to, cached privately), its protected
 * resource metadata, and its authorization server (metadata, DCR, authorize, token with PKCE and
 * refresh). A test bends any of it: metadata overrides, a metadata answer of its own, token
 * answers of its own. `browser(user)` is a redirect callback that logs `user` in.
 */
import { createHash, randomBytes } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DISCOVER_RESULT } from "./http-scripted.js";

export interface Issued {
  user: string;
  scope: string;
  refresh?: string;
}

export interface OAuthServerConfig {
  /** Merged into the authorization server metadata. */
  metadata?: Record<string, unknown>;
  /** Answers the AS metadata request itself (oversized, never ending...). */
  metadataResponder?: (res: ServerResponse) => void;
  /** `expires_in` of issued tokens. Default 3600. */
  expiresIn?: number;
  /** Answers the token request itself; gets the parsed form. Return false to fall through. */
  tokenResponder?: (form: URLSearchParams, res: ServerResponse) => boolean;
  /** Scopes the MCP server requires for tools/call (a 403 insufficient_scope otherwise). */
  callScope?: string;
  /** Refreshed access tokens are not accepted by the MCP server (the grant is gone). */
  forgetRefreshed?: boolean;
  /** The PRM's `authorization_servers`. Default: this server's origin. */
  authorizationServers?: string[];
  /** Every `tools/call` is refused with this status, whatever the token (an MCP server that never accepts). */
  refuseCalls?: 401 | 403;
  /** The raw JSON text of issued tokens' `expires_in` (`"1e400"`, `"\"soon\""`); wins over `expiresIn`. */
  expiresInJson?: string;
  /** A refresh token works once: refreshing spends it (a second use is `invalid_grant`). */
  rotateRefreshTokens?: boolean;
}

const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

export class OAuthServer {
  readonly #server: http.Server;
  config: OAuthServerConfig;
  port = 0;
  readonly counts = { register: 0, authorize: 0, codeGrants: 0, refreshGrants: 0, prm: 0, calls: 0 };
  /** Access tokens by value. */
  readonly issued = new Map<string, Issued>();
  /** Every authorization request's query. */
  readonly authorizeRequests: URLSearchParams[] = [];
  /** Every token request's form. */
  readonly tokenRequests: URLSearchParams[] = [];
  /** The user each MCP request's token belonged to (`null`: no or unknown token). */
  readonly mcpUsers: Array<string | null> = [];
  readonly #codes = new Map<
    string,
    { user: string; challenge: string; scope: string; redirectUri: string }
  >();
  readonly #refresh = new Map<string, Issued>();

  constructor(config: OAuthServerConfig = {}) {
    this.config = config;
    this.#server = http.createServer((req, res) => void this.#handle(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get url(): string {
    return `${this.origin}/mcp`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** A redirect callback that plays `user`'s browser: asks /authorize and returns its Location. */
  browser(user: string, seen?: string[]): (authorizationUrl: string) => Promise<string> {
    return async (authorizationUrl) => {
      seen?.push(authorizationUrl);
      const res = await fetch(`${authorizationUrl}&login=${encodeURIComponent(user)}`, {
        redirect: "manual",
      });
      const location = res.headers.get("location");
      if (!location) throw new Error(`authorize answered ${res.status}`);
      return location;
    };
  }

  metadata(): Record<string, unknown> {
    return {
      issuer: this.origin,
      authorization_endpoint: `${this.origin}/authorize`,
      token_endpoint: `${this.origin}/token`,
      registration_endpoint: `${this.origin}/register`,
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      authorization_response_iss_parameter_supported: true,
      scopes_supported: ["mcp", "mcp:write", "offline_access"],
      ...this.config.metadata,
    };
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const u = new URL(req.url ?? "/", this.origin);
    res.on("error", () => {});
    switch (`${req.method} ${u.pathname}`) {
      case "GET /.well-known/oauth-protected-resource/mcp":
        this.counts.prm++;
        return send(res, 200, {
          resource: this.url,
          authorization_servers: this.config.authorizationServers ?? [this.origin],
          scopes_supported: ["mcp"],
        });
      case "GET /.well-known/oauth-authorization-server":
        if (this.config.metadataResponder) return this.config.metadataResponder(res);
        return send(res, 200, this.metadata());
      case "POST /register":
        this.counts.register++;
        return send(res, 201, {
          client_id: `client-${this.counts.register}`,
          token_endpoint_auth_method: "none",
        });
      case "GET /authorize":
        return this.#authorize(u.searchParams, res);
      case "POST /token":
        return this.#token(new URLSearchParams(raw), res);
      case "POST /mcp":
        return this.#mcp(req, raw, res);
      default:
        res.writeHead(404).end();
    }
  }

  #authorize(q: URLSearchParams, res: ServerResponse): void {
    this.counts.authorize++;
    this.authorizeRequests.push(q);
    const code = `code_${randomBytes(12).toString("hex")}`;
    this.#codes.set(code, {
      user: q.get("login") ?? "nobody",
      challenge: q.get("code_challenge") ?? "",
      scope: q.get("scope") ?? "",
      redirectUri: q.get("redirect_uri") ?? "",
    });
    const back = new URL(q.get("redirect_uri") ?? "http://127.0.0.1/");
    back.searchParams.set("code", code);
    if (q.get("state")) back.searchParams.set("state", q.get("state")!);
    back.searchParams.set("iss", this.origin);
    res.writeHead(302, { location: back.href }).end();
  }

  #issue(user: string, scope: string): Record<string, unknown> {
    const access = `at_${randomBytes(12).toString("hex")}`;
    const refresh = `rt_${randomBytes(12).toString("hex")}`;
    const entry = { user, scope, refresh };
    this.issued.set(access, entry);
    this.#refresh.set(refresh, entry);
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: this.config.expiresIn ?? 3600,
      refresh_token: refresh,
      ...(scope ? { scope } : {}),
    };
  }

  /** A token answer, with `expires_in` written as `expiresInJson` says when set. */
  #sendTokens(res: ServerResponse, body: Record<string, unknown>): void {
    const raw = this.config.expiresInJson;
    if (raw === undefined) return send(res, 200, body);
    const { expires_in: _, ...rest } = body;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`${JSON.stringify(rest).slice(0, -1)},"expires_in":${raw}}`);
  }

  #token(form: URLSearchParams, res: ServerResponse): void {
    this.tokenRequests.push(form);
    if (this.config.tokenResponder?.(form, res)) return;
    const grant = form.get("grant_type");
    if (grant === "authorization_code") {
      this.counts.codeGrants++;
      const c = this.#codes.get(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const s256 = createHash("sha256").update(verifier).digest("base64url");
      if (!c || c.challenge !== s256 || c.redirectUri !== form.get("redirect_uri")) {
        return send(res, 400, { error: "invalid_grant" });
      }
      this.#codes.delete(form.get("code")!);
      return this.#sendTokens(res, this.#issue(c.user, c.scope));
    }
    if (grant === "refresh_token") {
      this.counts.refreshGrants++;
      const e = this.#refresh.get(form.get("refresh_token") ?? "");
      if (!e) return send(res, 400, { error: "invalid_grant" });
      if (this.config.rotateRefreshTokens) this.#refresh.delete(form.get("refresh_token") ?? "");
      const answer = this.#issue(e.user, e.scope);
      if (this.config.forgetRefreshed) this.issued.delete(answer.access_token as string);
      return this.#sendTokens(res, answer);
    }
    send(res, 400, { error: "unsupported_grant_type" });
  }

  #mcp(req: IncomingMessage, raw: string, res: ServerResponse): void {
    const auth = req.headers.authorization ?? "";
    const token = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    const who = this.issued.get(token);
    this.mcpUsers.push(who?.user ?? null);
    const challenge = `Bearer resource_metadata="${this.origin}/.well-known/oauth-protected-resource/mcp"`;
    if (!who) return send(res, 401, { error: "invalid_token" }, { "www-authenticate": challenge });
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return send(res, 400, {});
    }
    const id = msg.id;
    const meta = { "io.modelcontextprotocol/serverInfo": { name: "oauth-scripted", version: "1.0.0" } };
    const ok = (r: Record<string, unknown>) =>
      send(res, 200, { jsonrpc: "2.0", id, result: { resultType: "complete", ...r, _meta: meta } });
    switch (msg.method) {
      case "server/discover":
        return send(res, 200, { jsonrpc: "2.0", id, result: DISCOVER_RESULT });
      case "tools/list":
        return ok({
          tools: [{ name: `whoami_${who.user}`, inputSchema: { type: "object" } }],
          ttlMs: 60_000,
          cacheScope: "private",
        });
      case "tools/call": {
        this.counts.calls++;
        const refuse = this.config.refuseCalls;
        if (refuse === 401)
          return send(res, 401, { error: "invalid_token" }, { "www-authenticate": challenge });
        if (refuse === 403) {
          return send(
            res,
            403,
            { error: "insufficient_scope" },
            { "www-authenticate": `${challenge}, error="insufficient_scope", scope="mcp"` },
          );
        }
        const need = this.config.callScope;
        if (need && !need.split(" ").every((s) => who.scope.split(" ").includes(s))) {
          return send(
            res,
            403,
            { error: "insufficient_scope" },
            { "www-authenticate": `${challenge}, error="insufficient_scope", scope="${need}"` },
          );
        }
        return ok({ content: [{ type: "text", text: who.user }] });
      }
      default:
        return send(res, 200, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
    }
  }
}
