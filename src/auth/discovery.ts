/**
 * Finding who protects a server: its protected resource metadata (RFC 9728) and its
 * authorization server's metadata (RFC 8414 / OpenID Connect Discovery), in the order the MCP
 * authorization spec prescribes, every request through the transport's HTTP function.
 */
import { McpClientError } from "../shared/errors.js";
import { authError } from "./errors.js";
import { isSafeEndpoint } from "./options.js";
import type { AuthHttp, ParsedChallenge } from "./types.js";

export interface ResourceMetadata {
  /** Exactly as published (sent as `resource` on authorization and token requests). */
  resource: string;
  authorizationServers: string[];
  scopesSupported: string[] | undefined;
  /** Where it was fetched (a later challenge may name the same document). */
  url: string;
}

/** The authorization server metadata fields the flows use (others are kept, unread). */
export interface ServerMetadata {
  issuer: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  registration_endpoint?: string;
  scopes_supported?: string[];
  code_challenge_methods_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
  grant_types_supported?: string[];
  authorization_response_iss_parameter_supported?: boolean;
  client_id_metadata_document_supported?: boolean;
  dpop_signing_alg_values_supported?: string[];
  [key: string]: unknown;
}

/** The Bearer (or DPoP) challenge among a 401/403's challenges: the one that names our parameters. */
export function oauthChallenge(challenges: readonly ParsedChallenge[]): ParsedChallenge | undefined {
  return (
    challenges.find((c) => /^(bearer|dpop)$/i.test(c.scheme) && c.params.resource_metadata !== undefined) ??
    challenges.find((c) => /^bearer$/i.test(c.scheme)) ??
    challenges.find((c) => /^dpop$/i.test(c.scheme))
  );
}

const STRING_LIST = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");

async function getJson(http: AuthHttp, url: string): Promise<{ status: number; json: unknown }> {
  const res = await http({ url, method: "GET", headers: { accept: "application/json" } });
  if (res.status !== 200) return { status: res.status, json: undefined };
  try {
    return { status: 200, json: JSON.parse(res.body.toString("utf8")) };
  } catch {
    return { status: 200, json: undefined };
  }
}

/** The well-known PRM URLs for a server URL: path-based first (when it has a path), then the root. */
export function resourceMetadataUrls(serverUrl: URL): string[] {
  const path = serverUrl.pathname.replace(/\/+$/, "");
  const root = `${serverUrl.origin}/.well-known/oauth-protected-resource`;
  return path && path !== "/" ? [`${root}${path}`, root] : [root];
}

/**
 * Whether the PRM's `resource` identifies the server at `serverUrl`: same scheme, host and port
 * (scheme and host compared case-insensitively), and its path is the server's path or a parent
 * of it at a segment boundary. Anything else means the metadata is for another resource.
 */
export function resourceMatches(resource: string, serverUrl: URL): boolean {
  let r: URL;
  try {
    r = new URL(resource);
  } catch {
    return false;
  }
  if (r.hash || resource.includes("#")) return false;
  if (r.protocol !== serverUrl.protocol || r.host.toLowerCase() !== serverUrl.host.toLowerCase())
    return false;
  const rp = r.pathname.replace(/\/+$/, "");
  const sp = serverUrl.pathname.replace(/\/+$/, "");
  return rp === "" || sp === rp || sp.startsWith(`${rp}/`);
}

function parseResourceMetadata(json: unknown, url: string): ResourceMetadata | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const m = json as Record<string, unknown>;
  if (typeof m.resource !== "string") return undefined;
  if (!STRING_LIST(m.authorization_servers) || m.authorization_servers.length === 0) return undefined;
  return {
    resource: m.resource,
    authorizationServers: m.authorization_servers.slice(0, 16),
    scopesSupported: STRING_LIST(m.scopes_supported) ? m.scopes_supported.slice(0, 64) : undefined,
    url,
  };
}

/**
 * The server's protected resource metadata: the challenge's `resource_metadata` URL when given,
 * then the path-based and root well-known URLs. Its `resource` must match the server URL.
 */
export async function discoverResource(
  http: AuthHttp,
  serverUrl: URL,
  challenge: ParsedChallenge | undefined,
): Promise<ResourceMetadata> {
  const candidates: string[] = [];
  const hinted = challenge?.params.resource_metadata;
  if (hinted !== undefined) {
    if (!isSafeEndpoint(hinted)) throw authError("unsafe_resource_metadata_url");
    candidates.push(hinted);
  }
  for (const u of resourceMetadataUrls(serverUrl)) if (!candidates.includes(u)) candidates.push(u);
  for (const url of candidates) {
    const { status, json } = await getJson(http, url);
    if (status !== 200) continue;
    const prm = parseResourceMetadata(json, url);
    if (!prm) throw authError("invalid_resource_metadata", { url });
    if (!resourceMatches(prm.resource, serverUrl)) throw authError("resource_mismatch");
    return prm;
  }
  throw authError("no_resource_metadata");
}

/** The metadata URLs for an issuer, in the spec's priority order. */
export function serverMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, "");
  if (!path || path === "/") {
    return [
      `${u.origin}/.well-known/oauth-authorization-server`,
      `${u.origin}/.well-known/openid-configuration`,
    ];
  }
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

const ENDPOINTS = ["authorization_endpoint", "token_endpoint", "registration_endpoint"] as const;

/**
 * The authorization server's metadata. A document whose `issuer` is not exactly the issuer the
 * URL was built from is never used (RFC 8414 3.3; a mix-up attack otherwise).
 */
export async function discoverServer(http: AuthHttp, issuer: string): Promise<ServerMetadata> {
  if (!isSafeEndpoint(issuer) || new URL(issuer).search) throw authError("unsafe_issuer");
  let mismatched = false;
  for (const url of serverMetadataUrls(issuer)) {
    let got: { status: number; json: unknown };
    try {
      got = await getJson(http, url);
    } catch (err) {
      // A network failure or a refused redirect on one variant: try the next; size and time
      // limits are the server's fault and end the discovery.
      if (McpClientError.is(err, "transport")) continue;
      throw err;
    }
    if (got.status !== 200 || typeof got.json !== "object" || got.json === null) continue;
    const m = got.json as ServerMetadata;
    if (m.issuer !== issuer) {
      mismatched = true;
      continue;
    }
    for (const key of ENDPOINTS) {
      if (m[key] !== undefined && typeof m[key] !== "string") delete m[key];
    }
    for (const key of [
      "scopes_supported",
      "code_challenge_methods_supported",
      "token_endpoint_auth_methods_supported",
      "grant_types_supported",
      "dpop_signing_alg_values_supported",
    ] as const) {
      if (m[key] !== undefined && !STRING_LIST(m[key])) delete m[key];
    }
    return m;
  }
  throw authError(mismatched ? "issuer_mismatch" : "no_authorization_server_metadata");
}
