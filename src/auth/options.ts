/**
 * Validation of the options of `oauth()` and `clientCredentials()`, without I/O and without
 * loading the OAuth libraries (they load only when a transport starts with one of them).
 */

import { isLoopbackHost } from "../security/url-policy.js";
import { Secret } from "../shared/secret.js";
import {
  checkKeys,
  checkObject,
  fail,
  optBoolean,
  optFunction,
  optInt,
  optOneOf,
  optString,
} from "../util/option-check.js";
import type { ClientCredentialsOptions, EnterpriseOptions, OAuthOptions, TokenStore } from "./types.js";

export type ResolvedOAuthForm =
  | { type: "oauth"; options: OAuthOptions; principal: string }
  | { type: "clientCredentials"; options: ClientCredentialsOptions; principal: string };

export const DEFAULT_PRINCIPAL = "default";
export const DEFAULT_MAX_STEP_UPS = 3;
export const DEFAULT_REDIRECT_TIMEOUT = 300_000;

const OAUTH_KEYS = [
  "redirect",
  "redirectUri",
  "principal",
  "store",
  "clientId",
  "clientSecret",
  "issuer",
  "privateKey",
  "signingAlgorithm",
  "clientMetadataUrl",
  "clientName",
  "applicationType",
  "scope",
  "offlineAccess",
  "dpop",
  "enterprise",
  "maxStepUps",
  "redirectTimeout",
] as const;

const CC_KEYS = [
  "clientId",
  "clientSecret",
  "privateKey",
  "signingAlgorithm",
  "assertion",
  "scope",
  "dpop",
  "principal",
  "store",
  "maxStepUps",
] as const;

/** An absolute https URL, or http to a loopback host: what an OAuth endpoint may be. */
export function isSafeEndpoint(value: string, opts: { requirePath?: boolean } = {}): boolean {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  if (u.username || u.password || u.hash) return false;
  if (opts.requirePath && (u.pathname === "" || u.pathname === "/")) return false;
  if (u.protocol === "https:") return u.hostname !== "";
  return u.protocol === "http:" && isLoopbackHost(u.hostname);
}

function isStore(v: unknown): v is TokenStore {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as TokenStore).get === "function" &&
    typeof (v as TokenStore).set === "function" &&
    typeof (v as TokenStore).delete === "function"
  );
}

function secretish(v: unknown, path: string): void {
  if (v === undefined) return;
  if (typeof v === "string" && v.length > 0) return;
  if (v instanceof Secret) return;
  fail(path, "a non-empty string or a Secret");
}

function keyish(v: unknown, path: string): void {
  if (v === undefined) return;
  if (typeof v === "string" || v instanceof Secret) {
    const text = v instanceof Secret ? v.reveal() : v;
    if (!text.includes("-----BEGIN"))
      fail(path, "a PKCS#8 PEM private key (string or Secret) or a CryptoKey");
    return;
  }
  if (typeof v === "object" && v !== null && (v as { type?: unknown }).type === "private") return;
  fail(path, "a PKCS#8 PEM private key (string or Secret) or a CryptoKey");
}

function dpopish(v: unknown, path: string): void {
  if (v === undefined || typeof v === "boolean") return;
  const o = checkObject(v, path);
  checkKeys(o, ["alg"], path);
  optOneOf(o.alg, `${path}.alg`, ["ES256", "ES384", "EdDSA"] as const);
}

function common(o: Record<string, unknown>, path: string): string {
  const principal = optString(o.principal, `${path}.principal`) ?? DEFAULT_PRINCIPAL;
  if (principal.length === 0 || principal.length > 256) fail(`${path}.principal`, "1 to 256 characters");
  if (o.store !== undefined && !isStore(o.store)) fail(`${path}.store`, "a TokenStore (get, set, delete)");
  const scope = optString(o.scope, `${path}.scope`);
  if (scope !== undefined && !/^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(scope)) {
    fail(`${path}.scope`, "space-separated scope tokens");
  }
  optInt(o.maxStepUps, `${path}.maxStepUps`, 1, 10);
  optString(o.signingAlgorithm, `${path}.signingAlgorithm`);
  secretish(o.clientSecret, `${path}.clientSecret`);
  keyish(o.privateKey, `${path}.privateKey`);
  dpopish(o.dpop, `${path}.dpop`);
  return principal;
}

function checkEnterprise(v: unknown, path: string): void {
  const o = checkObject(v, path);
  checkKeys(o, ["idpTokenEndpoint", "idToken", "idpClientId", "idpClientSecret"], path);
  const ep = optString(o.idpTokenEndpoint, `${path}.idpTokenEndpoint`);
  if (ep === undefined || !isSafeEndpoint(ep)) {
    fail(`${path}.idpTokenEndpoint`, "an https URL (http only to a loopback host)");
  }
  if (typeof o.idToken !== "function") secretish(o.idToken ?? "", `${path}.idToken`);
  if (!optString(o.idpClientId, `${path}.idpClientId`)) fail(`${path}.idpClientId`, "a non-empty string");
  secretish(o.idpClientSecret, `${path}.idpClientSecret`);
}

/** Validates `oauth({...})`'s options (`path` names them in errors: `oauth.redirectUri`). */
export function resolveOAuthOptions(input: unknown, p: string): ResolvedOAuthForm {
  const o = checkObject(input, p);
  checkKeys(o, OAUTH_KEYS, p);
  const principal = common(o, p);
  if (o.enterprise !== undefined) checkEnterprise(o.enterprise, `${p}.enterprise`);
  const redirect = optFunction(o.redirect, `${p}.redirect`);
  const redirectUri = optString(o.redirectUri, `${p}.redirectUri`);
  if (o.enterprise === undefined) {
    if (!redirect) fail(`${p}.redirect`, "a function (authorizationUrl) => callbackUrl");
    if (redirectUri === undefined) fail(`${p}.redirectUri`, "the registered redirect URI (a string)");
  }
  if (redirectUri !== undefined) {
    let u: URL;
    try {
      u = new URL(redirectUri);
    } catch {
      fail(`${p}.redirectUri`, "an absolute URL");
    }
    if (u.hash) fail(`${p}.redirectUri`, "a URL without a fragment");
    if (u.protocol === "http:" && !isLoopbackHost(u.hostname)) {
      fail(`${p}.redirectUri`, "https, or http to a loopback host");
    }
  }
  const clientId = optString(o.clientId, `${p}.clientId`);
  if (clientId !== undefined && clientId.length === 0) fail(`${p}.clientId`, "a non-empty string");
  if (o.clientSecret !== undefined && clientId === undefined)
    fail(`${p}.clientSecret`, "given with clientId");
  const issuer = optString(o.issuer, `${p}.issuer`);
  if (issuer !== undefined && !isSafeEndpoint(issuer)) fail(`${p}.issuer`, "an https URL");
  const cimd = optString(o.clientMetadataUrl, `${p}.clientMetadataUrl`);
  if (cimd !== undefined) {
    let ok = false;
    try {
      const u = new URL(cimd);
      ok = u.protocol === "https:" && u.pathname.length > 1 && !u.hash;
    } catch {}
    if (!ok) fail(`${p}.clientMetadataUrl`, "an https URL with a path");
  }
  optString(o.clientName, `${p}.clientName`);
  optOneOf(o.applicationType, `${p}.applicationType`, ["native", "web"] as const);
  optBoolean(o.offlineAccess, `${p}.offlineAccess`);
  optInt(o.redirectTimeout, `${p}.redirectTimeout`, 1);
  if (o.enterprise !== undefined && clientId === undefined) {
    fail(`${p}.clientId`, "given with enterprise (the client registered at the authorization server)");
  }
  return { type: "oauth", options: o as unknown as OAuthOptions, principal };
}

/** Validates `clientCredentials({...})`'s options (`path` names them in errors). */
export function resolveClientCredentialsOptions(input: unknown, p: string): ResolvedOAuthForm {
  const o = checkObject(input, p);
  checkKeys(o, CC_KEYS, p);
  const principal = common(o, p);
  const clientId = optString(o.clientId, `${p}.clientId`);
  if (!clientId) fail(`${p}.clientId`, "a non-empty string");
  if (typeof o.assertion !== "function") secretish(o.assertion, `${p}.assertion`);
  if (o.clientSecret === undefined && o.privateKey === undefined && o.assertion === undefined) {
    fail(`${p}`, "given a clientSecret, a privateKey or an assertion");
  }
  if (o.clientSecret !== undefined && o.privateKey !== undefined) {
    fail(`${p}.privateKey`, "absent with clientSecret (one client authentication)");
  }
  return { type: "clientCredentials", options: o as unknown as ClientCredentialsOptions, principal };
}

export type { EnterpriseOptions };
