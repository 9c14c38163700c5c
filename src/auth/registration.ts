/**
 * Getting a client id at an authorization server, in the spec's order of preference:
 * pre-registered credentials (for their issuer only), a Client ID Metadata Document (the
 * document's https URL is the client id; no request), Dynamic Client Registration (RFC 7591,
 * with `application_type`). The result is bound to that issuer: credentials of one AS are never
 * offered to another.
 */

import { isLoopbackHost } from "../security/url-policy.js";
import { Secret } from "../shared/secret.js";
import type { ServerMetadata } from "./discovery.js";
import { authError, oauthErrorCode } from "./errors.js";
import { pickAuthMethod } from "./grants.js";
import { isSafeEndpoint } from "./options.js";
import type { AuthHttp, OAuthOptions, StoredClient, TokenEndpointAuthMethod } from "./types.js";

const METHODS = new Set<string>(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]);
const CLIENT_ID = /^[\x20-\x7e]{1,1024}$/;

export async function registerClient(
  http: AuthHttp,
  as: ServerMetadata,
  o: OAuthOptions,
): Promise<StoredClient> {
  const hasKey = o.privateKey !== undefined;
  // 1. Pre-registered credentials, only at the issuer they belong to.
  if (o.clientId !== undefined && (o.issuer === undefined || o.issuer === as.issuer)) {
    const secret =
      o.clientSecret === undefined
        ? undefined
        : Secret.isSecret(o.clientSecret)
          ? o.clientSecret
          : new Secret(o.clientSecret);
    return {
      clientId: o.clientId,
      ...(secret ? { clientSecret: secret } : {}),
      tokenEndpointAuthMethod: pickAuthMethod(as, { secret: secret !== undefined, privateKey: hasKey }),
    };
  }
  // 2. A Client ID Metadata Document, where the AS fetches them.
  if (o.clientMetadataUrl !== undefined && as.client_id_metadata_document_supported === true) {
    return { clientId: o.clientMetadataUrl, tokenEndpointAuthMethod: hasKey ? "private_key_jwt" : "none" };
  }
  // 3. Dynamic Client Registration.
  const endpoint = as.registration_endpoint;
  if (typeof endpoint === "string") {
    if (!isSafeEndpoint(endpoint)) throw authError("unsafe_registration_endpoint");
    return dynamicRegistration(http, endpoint, as, o);
  }
  throw authError(o.clientId !== undefined ? "client_not_registered_for_issuer" : "no_client_registration");
}

function applicationType(o: OAuthOptions): "native" | "web" {
  if (o.applicationType) return o.applicationType;
  try {
    const u = new URL(o.redirectUri ?? "");
    return isLoopbackHost(u.hostname) || !u.protocol.startsWith("http") ? "native" : "web";
  } catch {
    return "native";
  }
}

async function dynamicRegistration(
  http: AuthHttp,
  endpoint: string,
  as: ServerMetadata,
  o: OAuthOptions,
): Promise<StoredClient> {
  const metadata = {
    client_name: o.clientName ?? "conduit-mcp",
    redirect_uris: o.redirectUri ? [o.redirectUri] : [],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: applicationType(o),
  };
  const res = await http({
    url: endpoint,
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(metadata),
  });
  let json: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(res.body.toString("utf8")) as unknown;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      json = parsed as Record<string, unknown>;
  } catch {}
  if (res.status !== 201 && res.status !== 200) {
    const code = oauthErrorCode(json?.error);
    throw authError("registration_failed", { status: res.status, ...(code ? { error: code } : {}) });
  }
  if (!json || typeof json.client_id !== "string" || !CLIENT_ID.test(json.client_id)) {
    throw authError("invalid_registration_response");
  }
  const secret =
    typeof json.client_secret === "string" && json.client_secret.length > 0
      ? new Secret(json.client_secret)
      : undefined;
  const registered =
    typeof json.token_endpoint_auth_method === "string" && METHODS.has(json.token_endpoint_auth_method)
      ? (json.token_endpoint_auth_method as TokenEndpointAuthMethod)
      : undefined;
  return {
    clientId: json.client_id,
    ...(secret ? { clientSecret: secret } : {}),
    tokenEndpointAuthMethod: pickAuthMethod(
      as,
      { secret: secret !== undefined, privateKey: false },
      registered,
    ),
  };
}
