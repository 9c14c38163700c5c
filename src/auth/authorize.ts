/**
 * The front-channel half of the authorization code flow: the authorization URL (PKCE S256,
 * `state`, `resource`, `scope`), handed to the application's `redirect` callback, and the
 * callback URL it resolves with, validated (state; `iss` per RFC 9207) before the code goes
 * anywhere. The library never opens the URL itself.
 */
import type * as OAuth from "oauth4webapi";
import { McpClientError } from "../shared/errors.js";
import { Secret } from "../shared/secret.js";
import type { ServerMetadata } from "./discovery.js";
import { authError, oauthErrorCode } from "./errors.js";
import { isSafeEndpoint } from "./options.js";

/**
 * Hands the authorization URL to the application's `redirect` callback and waits, at most
 * `limit` ms, for the callback URL: a user who never comes back must not hold every later
 * request behind this flow.
 */
export async function awaitRedirect(
  redirect: (authorizationUrl: string) => string | URL | Promise<string | URL>,
  authorizationUrl: string,
  limit: number,
): Promise<string | URL> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve().then(() => redirect(authorizationUrl)),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(authError("redirect_timeout")), limit);
        timer.unref();
      }),
    ]);
  } catch (err) {
    // The application's own auth error (a CLI saying "log in first") is passed on as it is.
    if (McpClientError.is(err, "auth")) throw err;
    throw authError("redirect_failed", undefined, err);
  } finally {
    clearTimeout(timer);
  }
}

export interface AuthorizationRequest {
  url: string;
  verifier: Secret;
  state: Secret;
}

/**
 * Builds the authorization URL. The endpoint must be https (http only to a loopback host): a
 * `javascript:`, `file:` or any other scheme, or a string that is not a URL, never reaches the
 * application's callback. An AS that does not list S256 is refused (PKCE is mandatory).
 */
export async function authorizationRequest(
  oauth: typeof OAuth,
  as: ServerMetadata,
  p: { clientId: string; redirectUri: string; resource: string; scope: string | undefined },
): Promise<AuthorizationRequest> {
  const endpoint = as.authorization_endpoint;
  if (typeof endpoint !== "string" || !isSafeEndpoint(endpoint))
    throw authError("unsafe_authorization_endpoint");
  if (!as.code_challenge_methods_supported?.includes("S256")) throw authError("pkce_s256_not_supported");
  const verifier = new Secret(oauth.generateRandomCodeVerifier());
  const state = new Secret(oauth.generateRandomState());
  const url = new URL(endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", p.clientId);
  url.searchParams.set("redirect_uri", p.redirectUri);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(verifier.reveal()));
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", state.reveal());
  url.searchParams.set("resource", p.resource);
  if (p.scope) url.searchParams.set("scope", p.scope);
  return { url: url.href, verifier, state };
}

/**
 * Validates the URL the callback resolved with: same redirect URI, `iss` as RFC 9207 and the
 * MCP spec's table say (advertised and missing, or present and not exactly the issuer: reject;
 * an error response with a wrong `iss` is not acted on either), then `state`. Returns the
 * parameters for the token request.
 */
export function validateCallback(
  oauth: typeof OAuth,
  as: ServerMetadata,
  clientId: string,
  callback: string | URL,
  redirectUri: string,
  state: Secret,
): { params: URLSearchParams; code: Secret } {
  let url: URL;
  try {
    url = new URL(String(callback));
  } catch {
    throw authError("invalid_callback_url");
  }
  const expected = new URL(redirectUri);
  if (url.origin !== expected.origin || url.pathname !== expected.pathname)
    throw authError("callback_url_mismatch");
  const params = url.searchParams;
  const iss = params.get("iss");
  if (iss === null && as.authorization_response_iss_parameter_supported === true)
    throw authError("iss_missing");
  if (iss !== null && iss !== as.issuer) throw authError("iss_mismatch");
  const denied = oauthErrorCode(params.get("error"));
  if (params.has("error")) throw authError("authorization_denied", denied ? { error: denied } : undefined);
  const raw = params.get("code");
  // The code is a secret from here on: anything that echoes it is scrubbed.
  const code = raw ? new Secret(raw) : undefined;
  let checked: URLSearchParams;
  try {
    checked = oauth.validateAuthResponse(
      as as unknown as OAuth.AuthorizationServer,
      { client_id: clientId },
      params,
      state.reveal(),
    );
  } catch (err) {
    if (err instanceof McpClientError) throw err;
    throw authError("invalid_authorization_response");
  }
  if (!code) throw authError("no_authorization_code");
  return { params: checked, code };
}
