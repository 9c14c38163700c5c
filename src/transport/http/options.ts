/**
 * The HTTP transport's options: the public types, their defaults, and `resolveHttpOptions`, which
 * checks them all without I/O (the fields with rules of their own are in option-fields.ts).
 */
import type { Dispatcher } from "undici";
import { isCidr, isLoopbackHost, type Resolver, type ServerUrlPolicy } from "../../security/url-policy.js";
import { type MaybeSecret, Secret } from "../../shared/secret.js";
import {
  checkKeys,
  checkObject,
  fail,
  isPlainObject,
  optBoolean,
  optFunction,
  optInt,
  optOneOf,
  optString,
} from "../../util/option-check.js";
import { type AuthProviderFactory, isAuthProviderFactory } from "../credentials.js";
import { isDispatcher, resolveHeaders, resolveTls, resolveUrl } from "./option-fields.js";

/** What an auth function is told about the request it is asked a token for. */
export interface HttpAuthRequest {
  /** The full URL the request goes to. */
  url: string;
  /** The HTTP method: `POST`, `GET` or `DELETE`. */
  method: string;
}

/**
 * Called before each request. Returns (or resolves with) a bearer token, `null` for no
 * `Authorization` header, or an `Error`; returning or throwing an error fails the request with
 * `kind: "auth"`.
 */
export type HttpAuthFunction = (
  request: HttpAuthRequest,
) => MaybeSecret | null | undefined | Error | Promise<MaybeSecret | null | undefined | Error>;

/**
 * `{ bearer }` (a string or a `Secret`), a function called before each request, or a credential
 * provider's factory: `oauth({...})` or `clientCredentials({...})` (docs/oauth.md), or your own
 * `AuthProviderFactory` (transport/credentials.ts).
 */
export type HttpAuth = { bearer: MaybeSecret } | HttpAuthFunction | AuthProviderFactory;

/** TLS settings for the library's own pool. Nothing that weakens verification is accepted. */
export interface HttpTlsOptions {
  ca?: string | Buffer | ReadonlyArray<string | Buffer>;
  cert?: string | Buffer | ReadonlyArray<string | Buffer>;
  key?: string | Buffer | ReadonlyArray<string | Buffer>;
  pfx?: string | Buffer | ReadonlyArray<string | Buffer>;
  passphrase?: MaybeSecret;
  crl?: string | Buffer | ReadonlyArray<string | Buffer>;
  servername?: string;
  minVersion?: "TLSv1.2" | "TLSv1.3";
  maxVersion?: "TLSv1.2" | "TLSv1.3";
  ciphers?: string;
  ecdhCurve?: string;
  sigalgs?: string;
  /** Only `true` is accepted (it is the default); use `insecureSkipTlsVerify` for development. */
  rejectUnauthorized?: true;
}

/** A Streamable HTTP server as plain data: the `transport` option `{ type: "http", url }`. */
export interface HttpTransportOptions {
  type: "http";
  /** The MCP endpoint: an absolute `http`/`https` URL without user info or fragment. */
  url: string;
  /** Credentials; see {@link HttpAuth}. Never sent over `http` to a non-loopback host. Default none. */
  auth?: HttpAuth;
  /** With an auth function only: names whose tokens it returns (for caching private results). */
  credentialId?: string;
  /** Extra headers; values may be `Secret`s. The transport's own headers are refused. */
  headers?: Readonly<Record<string, MaybeSecret>> | ReadonlyArray<readonly [string, MaybeSecret]>;
  /** Connections in the library's pool. Default 100. Each open event stream holds one. */
  poolSize?: number;
  /** An undici `Dispatcher` (Pool, Agent...) you own; replaces the library's pool. */
  dispatcher?: Dispatcher;
  /** TLS options for the library's pool (a CA, a client certificate...). */
  transportOpts?: HttpTlsOptions;
  /** Skip certificate verification: local development only. Warns on every start. Default false. */
  insecureSkipTlsVerify?: boolean;
  /** `false` (default) refuses every redirect; `"same-origin"` follows 307/308 to the same origin, at most 5. */
  redirect?: false | "same-origin";
  /** The largest JSON body or event-stream event, counted after decompression. Default 8 MiB. */
  maxMessageBytes?: number;
  /** Timeout of the requests the transport makes itself (session renewal, DELETE, GET stream opening). Default 60 000 ms. */
  requestTimeout?: number;
  /** How long a long-lived stream may stay silent (keep-alives count) before it is dropped. Default 120 000 ms. */
  listenIdleTimeout?: number;
  /**
   * The shortest wait before a legacy event stream is resumed (or reopened), whatever the
   * server's `retry:` says: a stream that keeps ending cannot make the client spin. Default 100 ms.
   */
  minResumeDelay?: number;
  /** `"any"` (default) or `"publicOnly"`; see `ServerUrlPolicy`. */
  serverUrlPolicy?: ServerUrlPolicy;
  /** CIDRs that `"publicOnly"` admits anyway. Default `[]`. */
  allowPrivate?: readonly string[];
  /** The resolver `"publicOnly"` uses. Default: the system resolver. */
  resolver?: Resolver;
  /**
   * The deprecated 2024-11-05 HTTP+SSE transport: `"auto"` (default) falls back to it when the
   * `initialize` POST fails with 400, 404 or 405; `"only"` speaks nothing else; `"never"`.
   */
  legacySse?: "never" | "auto" | "only";
}

export type ResolvedAuth =
  | { type: "none" }
  | { type: "bearer"; token: MaybeSecret }
  | { type: "function"; fn: HttpAuthFunction; credentialId: string | undefined }
  /** A credential provider's factory (`oauth({...})`), as it was given. */
  | { type: "provider"; factory: AuthProviderFactory };

export interface ResolvedHttpOptions {
  url: URL;
  auth: ResolvedAuth;
  headers: Array<[string, MaybeSecret]>;
  poolSize: number;
  dispatcher: Dispatcher | undefined;
  tls: Record<string, unknown>;
  insecureSkipTlsVerify: boolean;
  redirect: false | "same-origin";
  maxMessageBytes: number;
  requestTimeout: number;
  listenIdleTimeout: number;
  minResumeDelay: number;
  serverUrlPolicy: ServerUrlPolicy;
  allowPrivate: string[];
  resolver: Resolver | undefined;
  legacySse: "never" | "auto" | "only";
}

export const HTTP_DEFAULTS = {
  poolSize: 100,
  maxMessageBytes: 8 * 1024 * 1024,
  requestTimeout: 60_000,
  listenIdleTimeout: 120_000,
  minResumeDelay: 100,
  maxRedirects: 5,
} as const;

const KEYS = [
  "type",
  "url",
  "auth",
  "credentialId",
  "headers",
  "poolSize",
  "dispatcher",
  "transportOpts",
  "insecureSkipTlsVerify",
  "redirect",
  "maxMessageBytes",
  "requestTimeout",
  "listenIdleTimeout",
  "minResumeDelay",
  "serverUrlPolicy",
  "allowPrivate",
  "resolver",
  "legacySse",
] as const;

/** A bearer token: visible ASCII (0x21-0x7E), at least one character. */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;

export function isValidToken(token: string): boolean {
  return TOKEN_CHARS.test(token);
}

const EXPECTED_AUTH = "{ bearer: string | Secret }, a function, or oauth({...}) / clientCredentials({...})";

/** Validates the `auth` option (and `credentialId`); shared by the constructor and `setAuth`. */
export function resolveAuth(
  auth: unknown,
  credentialId: unknown,
  url: URL,
  path: string,
  idPath: string,
): ResolvedAuth {
  const id = optString(credentialId, idPath);
  if (id !== undefined && id.length === 0) fail(idPath, "a non-empty string");
  if (auth === undefined || auth === null) {
    if (id !== undefined) fail(idPath, "given only with an auth function");
    return NO_AUTH;
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    fail(path, "absent for an http: URL to a non-loopback host (credentials need https)", "insecure");
  }
  if (typeof auth === "function") {
    return { type: "function", fn: auth as HttpAuthFunction, credentialId: id };
  }
  if (isAuthProviderFactory(auth)) {
    if (id !== undefined)
      fail(idPath, "given only with an auth function (a credential provider names its own identity)");
    return { type: "provider", factory: auth };
  }
  if (!isPlainObject(auth)) fail(path, EXPECTED_AUTH);
  // The object forms of 0.x before the value: named, so the fix is one word away.
  if ("oauth" in auth || "clientCredentials" in auth) {
    const which = "oauth" in auth ? "oauth" : "clientCredentials";
    fail(path, `${which}({ ... }) from "conduit-mcp" (the { ${which}: {...} } object form is gone)`);
  }
  checkKeys(auth, ["bearer"], path);
  const token = auth.bearer;
  if (typeof token !== "string" && !(token instanceof Secret)) {
    fail(`${path}.bearer`, "a string or a Secret");
  }
  const value = token instanceof Secret ? token.reveal() : token;
  if (!isValidToken(value)) fail(`${path}.bearer`, "visible ASCII (0x21-0x7E), non-empty");
  if (id !== undefined) fail(idPath, "given only with an auth function");
  // Held as a Secret even when given as a string: every live Secret's value is scrubbed from
  // errors and log lines, so a server that echoes the token back gets it nowhere.
  return { type: "bearer", token: token instanceof Secret ? token : new Secret(token) };
}

/** Validates every HTTP option without any I/O; throws a `TypeError` naming the first bad one. */
// Shared by every transport that gives none (replaced, never mutated: issue 26).
const NO_AUTH: ResolvedAuth = Object.freeze({ type: "none" });
const NO_CIDRS: string[] = [];

export function resolveHttpOptions(input: unknown, path = "transport"): ResolvedHttpOptions {
  const o = checkObject(input, path);
  checkKeys(o, KEYS, path);
  if (o.type !== undefined && o.type !== "http") fail(`${path}.type`, '"http"');
  const url = resolveUrl(o.url, `${path}.url`);
  const auth = resolveAuth(o.auth, o.credentialId, url, `${path}.auth`, `${path}.credentialId`);
  const headers = resolveHeaders(o.headers, `${path}.headers`);

  const serverUrlPolicy = optOneOf(o.serverUrlPolicy, `${path}.serverUrlPolicy`, [
    "any",
    "publicOnly",
  ] as const);
  const allowPrivate: string[] = o.allowPrivate === undefined ? NO_CIDRS : [];
  if (o.allowPrivate !== undefined) {
    if (!Array.isArray(o.allowPrivate)) fail(`${path}.allowPrivate`, "a list of CIDRs");
    o.allowPrivate.forEach((c, i) => {
      if (!isCidr(c)) fail(`${path}.allowPrivate[${i}]`, 'a CIDR such as "10.0.0.0/8" or "fd00::/8"');
      allowPrivate.push(c);
    });
  }
  const resolver = optFunction<Resolver>(o.resolver, `${path}.resolver`);

  const insecure = optBoolean(o.insecureSkipTlsVerify, `${path}.insecureSkipTlsVerify`) ?? false;
  if (insecure && serverUrlPolicy === "publicOnly") {
    fail(`${path}.insecureSkipTlsVerify`, 'false with serverUrlPolicy "publicOnly"');
  }
  const tls = resolveTls(o.transportOpts, `${path}.transportOpts`);
  const poolSize = optInt(o.poolSize, `${path}.poolSize`, 1);

  let dispatcher: Dispatcher | undefined;
  if (o.dispatcher !== undefined) {
    if (!isDispatcher(o.dispatcher)) fail(`${path}.dispatcher`, "an undici Dispatcher (Pool, Agent...)");
    dispatcher = o.dispatcher;
    if (poolSize !== undefined) fail(`${path}.poolSize`, "absent with a dispatcher (size your own pool)");
    if (o.transportOpts !== undefined) fail(`${path}.transportOpts`, "absent with a dispatcher");
    if (insecure) fail(`${path}.insecureSkipTlsVerify`, "absent with a dispatcher");
    if (serverUrlPolicy === "publicOnly") {
      fail(`${path}.dispatcher`, 'absent with serverUrlPolicy "publicOnly" (it pins connections itself)');
    }
  }

  const redirect = o.redirect;
  if (redirect !== undefined && redirect !== false && redirect !== "same-origin") {
    fail(`${path}.redirect`, 'false or "same-origin"');
  }

  return {
    url,
    auth,
    headers,
    poolSize: poolSize ?? HTTP_DEFAULTS.poolSize,
    dispatcher,
    tls,
    insecureSkipTlsVerify: insecure,
    redirect: redirect ?? false,
    maxMessageBytes: optInt(o.maxMessageBytes, `${path}.maxMessageBytes`, 1) ?? HTTP_DEFAULTS.maxMessageBytes,
    requestTimeout: optInt(o.requestTimeout, `${path}.requestTimeout`, 1) ?? HTTP_DEFAULTS.requestTimeout,
    listenIdleTimeout:
      optInt(o.listenIdleTimeout, `${path}.listenIdleTimeout`, 1) ?? HTTP_DEFAULTS.listenIdleTimeout,
    minResumeDelay: optInt(o.minResumeDelay, `${path}.minResumeDelay`, 1) ?? HTTP_DEFAULTS.minResumeDelay,
    serverUrlPolicy: serverUrlPolicy ?? "any",
    allowPrivate,
    resolver,
    legacySse: optOneOf(o.legacySse, `${path}.legacySse`, ["never", "auto", "only"] as const) ?? "auto",
  };
}
