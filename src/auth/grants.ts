/**
 * Token endpoint requests (authorization code, refresh, client credentials, JWT bearer, token
 * exchange) through oauth4webapi, sent with the transport's HTTP function, with the client
 * authentication the AS supports and DPoP when asked for. What comes back is validated and
 * wrapped: tokens are `Secret`s, `expires_in` is clamped, and an AS error contributes only its
 * `error` code.
 */
import type { webcrypto } from "node:crypto";
import type * as Jose from "jose";
import type * as OAuth from "oauth4webapi";
import { McpClientError } from "../shared/errors.js";
import { Secret } from "../shared/secret.js";
import type { ServerMetadata } from "./discovery.js";
import type { DpopKey } from "./dpop.js";
import { authError, oauthErrorCode } from "./errors.js";
import { fetchThrough } from "./fetch-adapter.js";
import { isSafeEndpoint } from "./options.js";
import type {
  AuthHttp,
  PrivateKeyInput,
  StoredClient,
  StoredTokens,
  TokenEndpointAuthMethod,
} from "./types.js";

export interface Libraries {
  oauth: typeof OAuth;
  jose: typeof Jose;
}

/**
 * `expires_in` is kept between these bounds (seconds): a zero, a negative or a century is the
 * server's mistake. The floor is twice the refresh margin, so a token is used for 30 seconds at
 * least before it is refreshed (a shorter one would be refreshed before every request).
 */
export const MIN_EXPIRES_IN = 60;
export const MAX_EXPIRES_IN = 365 * 24 * 3600;
/** A token this close to its expiry is refreshed before use. */
export const EXPIRY_MARGIN_MS = 30_000;

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * `expires_in` in seconds within the bounds, or `undefined` (unknown: the token is used until a
 * 401 refreshes it) for what is no number. A decimal string is read as its number; a JSON number
 * too large for a double (`1e400`) arrives as `Infinity` and is the ceiling.
 */
export function expiresInSeconds(value: unknown): number | undefined {
  const n =
    typeof value === "number"
      ? value
      : typeof value === "string" && DECIMAL.test(value)
        ? Number(value)
        : NaN;
  if (Number.isNaN(n)) return undefined;
  return Math.min(MAX_EXPIRES_IN, Math.max(MIN_EXPIRES_IN, Math.floor(n)));
}

/**
 * A token answer with its `expires_in` made usable before oauth4webapi reads it (it refuses a
 * negative, non-finite or non-numeric one, which would fail the login over a field the client
 * can do without): within the bounds, or removed when it is no number.
 */
async function withUsableExpiry(res: Response): Promise<Response> {
  if (!res.ok) return res;
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (
    typeof body !== "object" ||
    body === null ||
    Array.isArray(body) ||
    !Object.hasOwn(body, "expires_in")
  ) {
    return new Response(text, { status: res.status, headers: res.headers });
  }
  const record = body as Record<string, unknown>;
  const seconds = expiresInSeconds(record.expires_in);
  if (seconds === undefined) delete record.expires_in;
  else record.expires_in = seconds;
  const headers = new Headers(res.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(record), { status: res.status, headers });
}

const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

export interface GrantContext {
  libs: Libraries;
  http: AuthHttp;
  as: ServerMetadata;
  client: StoredClient;
  privateKey?: PrivateKeyInput;
  signingAlgorithm?: string;
  dpop?: DpopKey;
}

/** The client authentication for the token endpoint. */
export async function clientAuthFor(ctx: GrantContext): Promise<OAuth.ClientAuth> {
  const { oauth, jose } = ctx.libs;
  const c = ctx.client;
  switch (c.tokenEndpointAuthMethod) {
    case "client_secret_basic": {
      const secret = c.clientSecret;
      if (!secret) throw authError("client_secret_missing");
      // RFC 6749 2.3.1 form-encodes both parts; oauth4webapi also escapes the unreserved "-",
      // "." and "_", which servers that do not decode (several do not) then refuse.
      return (_as, client, _body, headers) => {
        const pair = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret.reveal())}`;
        headers.set("authorization", `Basic ${Buffer.from(pair).toString("base64")}`);
      };
    }
    case "client_secret_post":
      if (!c.clientSecret) throw authError("client_secret_missing");
      return oauth.ClientSecretPost(c.clientSecret.reveal());
    case "private_key_jwt": {
      const key = ctx.privateKey;
      if (key === undefined) throw authError("private_key_missing");
      let cryptoKey: webcrypto.CryptoKey;
      if (typeof key === "string" || key instanceof Secret) {
        try {
          cryptoKey = await jose.importPKCS8(
            key instanceof Secret ? key.reveal() : key,
            ctx.signingAlgorithm ?? "ES256",
          );
        } catch {
          throw authError("invalid_private_key");
        }
      } else {
        cryptoKey = key;
      }
      return oauth.PrivateKeyJwt(cryptoKey);
    }
    default:
      return oauth.None();
  }
}

/**
 * Which client authentication to use: the registration's own method when the AS lists it (or
 * lists nothing), else the strongest the AS lists that this client can do.
 */
export function pickAuthMethod(
  as: ServerMetadata,
  has: { secret: boolean; privateKey: boolean },
  registered?: TokenEndpointAuthMethod,
): TokenEndpointAuthMethod {
  const supported = as.token_endpoint_auth_methods_supported;
  const can = (m: TokenEndpointAuthMethod) =>
    m === "none" ||
    (m === "private_key_jwt" ? has.privateKey : m.startsWith("client_secret") ? has.secret : false);
  if (registered && can(registered) && (!supported || supported.includes(registered))) return registered;
  if (!supported) return has.privateKey ? "private_key_jwt" : has.secret ? "client_secret_basic" : "none";
  for (const m of ["private_key_jwt", "client_secret_basic", "client_secret_post", "none"] as const) {
    if (supported.includes(m) && can(m)) return m;
  }
  return has.secret ? "client_secret_basic" : "none";
}

function requestOptions(ctx: GrantContext, extra?: Record<string, string>): Record<PropertyKey, unknown> {
  const { oauth } = ctx.libs;
  return {
    [oauth.customFetch]: fetchThrough(ctx.http),
    // The URL policy is ours (https, or http to loopback, checked before each request).
    [oauth.allowInsecureRequests]: true,
    ...(ctx.dpop ? { DPoP: ctx.dpop.handle } : {}),
    ...(extra ? { additionalParameters: extra } : {}),
  };
}

function asFor(ctx: GrantContext): OAuth.AuthorizationServer {
  const endpoint = ctx.as.token_endpoint;
  if (typeof endpoint !== "string" || !isSafeEndpoint(endpoint)) throw authError("unsafe_token_endpoint");
  return ctx.as as unknown as OAuth.AuthorizationServer;
}

/** Runs one token request (and its processing); a DPoP nonce challenge from the AS is retried once. */
async function tokenRequest(
  ctx: GrantContext,
  send: () => Promise<Response>,
  process: (res: Response) => Promise<OAuth.TokenEndpointResponse>,
): Promise<OAuth.TokenEndpointResponse> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await process(await withUsableExpiry(await send()));
    } catch (err) {
      if (attempt === 0 && ctx.dpop && ctx.libs.oauth.isDPoPNonceError(err)) continue;
      throw tokenError(ctx.libs.oauth, err);
    }
  }
}

/** An AS's refusal as `kind: "auth"`: its `error` code and status only. */
export function tokenError(oauth: typeof OAuth, err: unknown): McpClientError {
  if (err instanceof McpClientError) return err;
  if (err instanceof oauth.ResponseBodyError) {
    const code = oauthErrorCode(err.error);
    return authError("token_request_failed", { status: err.status, ...(code ? { error: code } : {}) });
  }
  if (err instanceof oauth.UnsupportedOperationError) return authError("unsupported_token_type");
  return authError("invalid_token_response");
}

/** The token endpoint's answer as what a store keeps. */
export function toStored(
  res: OAuth.TokenEndpointResponse,
  client: StoredClient,
  requestedScope: string | undefined,
  now = Date.now(),
): StoredTokens {
  const access = res.access_token;
  if (typeof access !== "string" || !VISIBLE_ASCII.test(access)) throw authError("invalid_token");
  const refresh =
    typeof res.refresh_token === "string" && VISIBLE_ASCII.test(res.refresh_token)
      ? res.refresh_token
      : undefined;
  const type = String(res.token_type).toLowerCase();
  if (type !== "bearer" && type !== "dpop") throw authError("unsupported_token_type");
  const expiresIn = expiresInSeconds(res.expires_in);
  return {
    accessToken: new Secret(access),
    ...(refresh ? { refreshToken: new Secret(refresh) } : {}),
    tokenType: type === "dpop" ? "DPoP" : "Bearer",
    ...(expiresIn !== undefined ? { expiresAt: now + expiresIn * 1000 } : {}),
    ...(requestedScope ? { scope: requestedScope } : {}),
    client,
  };
}

/** What every token request names: the library, the authorization server, the client and its authentication. */
async function tokenParties(ctx: GrantContext) {
  return {
    oauth: ctx.libs.oauth,
    as: asFor(ctx),
    client: { client_id: ctx.client.clientId },
    auth: await clientAuthFor(ctx),
  };
}

export async function authorizationCodeGrant(
  ctx: GrantContext,
  callback: URLSearchParams,
  redirectUri: string,
  verifier: Secret,
  resource: string,
  scope: string | undefined,
): Promise<StoredTokens> {
  const { oauth, as, client, auth } = await tokenParties(ctx);
  const res = await tokenRequest(
    ctx,
    () =>
      oauth.authorizationCodeGrantRequest(
        as,
        client,
        auth,
        callback,
        redirectUri,
        verifier.reveal(),
        requestOptions(ctx, { resource }),
      ),
    (r) => oauth.processAuthorizationCodeResponse(as, client, r),
  );
  return toStored(res, ctx.client, scope);
}

export async function refreshGrant(
  ctx: GrantContext,
  refreshToken: Secret,
  resource: string,
  scope: string | undefined,
): Promise<StoredTokens> {
  const { oauth, as, client, auth } = await tokenParties(ctx);
  const res = await tokenRequest(
    ctx,
    () =>
      oauth.refreshTokenGrantRequest(
        as,
        client,
        auth,
        refreshToken.reveal(),
        requestOptions(ctx, { resource }),
      ),
    (r) => oauth.processRefreshTokenResponse(as, client, r),
  );
  const stored = toStored(res, ctx.client, scope);
  // An AS may keep the refresh token (no new one in the answer): keep using the old one.
  return stored.refreshToken ? stored : { ...stored, refreshToken };
}

export async function clientCredentialsGrant(
  ctx: GrantContext,
  resource: string,
  scope: string | undefined,
): Promise<StoredTokens> {
  const { oauth, as, client, auth } = await tokenParties(ctx);
  const params: Record<string, string> = { resource, ...(scope ? { scope } : {}) };
  const res = await tokenRequest(
    ctx,
    () => oauth.clientCredentialsGrantRequest(as, client, auth, params, requestOptions(ctx)),
    (r) => oauth.processClientCredentialsResponse(as, client, r),
  );
  return toStored(res, ctx.client, scope);
}

export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ID_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id_token";
export const ID_JAG_TYPE = "urn:ietf:params:oauth:token-type:id-jag";

/** RFC 7523 JWT bearer grant: workload identity, and the second step of enterprise-managed authorization. */
export async function jwtBearerGrant(
  ctx: GrantContext,
  assertion: Secret,
  resource: string,
  scope: string | undefined,
): Promise<StoredTokens> {
  const { oauth, as, client, auth } = await tokenParties(ctx);
  const params: Record<string, string> = {
    assertion: assertion.reveal(),
    resource,
    ...(scope ? { scope } : {}),
  };
  const res = await tokenRequest(
    ctx,
    () => oauth.genericTokenEndpointRequest(as, client, auth, JWT_BEARER, params, requestOptions(ctx)),
    (r) => oauth.processGenericTokenEndpointResponse(as, client, r),
  );
  return toStored(res, ctx.client, scope);
}

/**
 * RFC 8693 token exchange at the user's identity provider: their ID token for an ID-JAG whose
 * audience is the MCP server's authorization server (SEP-990).
 */
export async function exchangeForIdJag(
  libs: Libraries,
  http: AuthHttp,
  idp: { tokenEndpoint: string; clientId: string; clientSecret?: Secret },
  idToken: Secret,
  audience: string,
  resource: string,
  scope: string | undefined,
): Promise<Secret> {
  const { oauth } = libs;
  if (!isSafeEndpoint(idp.tokenEndpoint)) throw authError("unsafe_token_endpoint");
  const as = { issuer: new URL(idp.tokenEndpoint).origin, token_endpoint: idp.tokenEndpoint };
  const client = { client_id: idp.clientId };
  const auth = idp.clientSecret ? oauth.ClientSecretPost(idp.clientSecret.reveal()) : oauth.None();
  const params: Record<string, string> = {
    subject_token: idToken.reveal(),
    subject_token_type: ID_TOKEN_TYPE,
    requested_token_type: ID_JAG_TYPE,
    audience,
    resource,
    ...(scope ? { scope } : {}),
  };
  const ctx = {
    libs,
    http,
    as: as as ServerMetadata,
    client: { clientId: client.client_id, tokenEndpointAuthMethod: "none" as const },
  };
  let res: OAuth.TokenEndpointResponse;
  try {
    res = await oauth.processGenericTokenEndpointResponse(
      as,
      client,
      await withUsableExpiry(
        await oauth.genericTokenEndpointRequest(
          as,
          client,
          auth,
          TOKEN_EXCHANGE,
          params,
          requestOptions(ctx),
        ),
      ),
      { recognizedTokenTypes: { n_a: () => {} } },
    );
  } catch (err) {
    throw tokenError(oauth, err);
  }
  const jag = res.access_token;
  if (typeof jag !== "string" || !VISIBLE_ASCII.test(jag)) throw authError("invalid_token");
  if ((res as { issued_token_type?: unknown }).issued_token_type !== ID_JAG_TYPE) {
    throw authError("unexpected_issued_token_type");
  }
  return new Secret(jag);
}
