/**
 * The credentials seam: how the client (setAuth, the cache's private lists) and a credential
 * plug-in (OAuth, in `auth/`) reach the credentials a transport sends, without the transport
 * knowing either of them.
 *
 * A transport that carries credentials exposes `credentials`; one that carries none leaves it
 * out. The source of the credentials is the transport's business (a bearer, a function called
 * per request, or a provider): the seam only says who they are, counts changes, and replaces them.
 *
 * A provider (the OAuth flows) plugs in from above as a value: the transport's `auth` option is
 * given an `AuthProviderFactory` (`oauth({...})`), which makes an `AuthProvider` per transport;
 * the transport asks it for a credential before each request and tells it when the server
 * refused one. Types and one predicate only: no registration, no state.
 */
import type { Secret } from "../shared/secret.js";

export interface TransportCredentials {
  /**
   * Whose credentials go out: `null` for none, a string naming them (a digest such as
   * `sha256:<hex>` or `id:<credentialId>`, never a token), `undefined` when it cannot be known
   * (a function without a declared id).
   */
  readonly identity: string | null | undefined;
  /**
   * Counts replacements: a result fetched across one (its pages sent with different
   * credentials) belongs to nobody, and the cache keeps nothing of it.
   */
  readonly generation: number;
  /**
   * Replaces the credentials for every request from now on. `auth` is the transport's own form
   * (HTTP: `{ bearer }`, a function, or null); `credentialId` names a function's credentials.
   * Throws a `TypeError` for a form it does not accept, as its constructor does.
   */
  replace(auth: unknown, options?: { credentialId?: string }): void;
  /**
   * The client's `stores.tokens`, when it has one: credential sources without a store of their
   * own (OAuth) keep their tokens there, so clients sharing it share tokens.
   */
  tokenStore?: unknown;
}

// ---- a credential provider (OAuth) and what the transport lends it ---------------------------

/** One request the provider makes (metadata, registration, token). */
export interface AuthHttpRequest {
  url: string;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body?: string;
}

export interface AuthHttpResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The body, read up to the transport's cap (over it: the call rejects with `message_too_large`). */
  body: Buffer;
}

/**
 * The HTTP function the transport lends the provider: its URL policy (`publicOnly`), TLS, size
 * cap, timeout and redirect rule. It rejects with an `McpClientError`.
 */
export type AuthHttp = (request: AuthHttpRequest) => Promise<AuthHttpResponse>;

/** A parsed `WWW-Authenticate` challenge. */
export interface ParsedChallenge {
  scheme: string;
  params: Record<string, string>;
}

/** What the transport puts on one request: `Authorization` and, with DPoP, a `DPoP` proof. */
export interface AuthCredential {
  authorization: Secret;
  dpop?: Secret;
}

/** The narrow seam between the HTTP transport and a credential provider (the OAuth machinery). */
export interface AuthProvider {
  /** The credential for this request, or null when none is held yet (the server's 401 starts the flow). */
  token(request: { url: string; method: string }): Promise<AuthCredential | null>;
  /**
   * The server refused a request (401 or 403). Resolves true when new credentials are in place
   * and the request should be sent once more; false (or a rejection with `kind: "auth"`) ends it.
   */
  challenged(event: AuthChallengeEvent): Promise<boolean>;
  /** The credential identity for the private-list cache, or null before any token is held. */
  identity(): string | null;
}

export interface AuthChallengeEvent {
  status: 401 | 403;
  challenges: ParsedChallenge[];
  url: string;
  /** The credential the refused request carried (null: none). */
  sent: AuthCredential | null;
  /** The `DPoP-Nonce` response header, if any. */
  dpopNonce?: string;
}

/** What a provider is made with: the transport's HTTP function, its URL, and a per-transport store. */
export interface AuthProviderContext {
  http: AuthHttp;
  serverUrl: URL;
  /**
   * The factory's own per-transport state (`newTransportState()`), kept across `setAuth` for
   * factories of the same `kind`.
   */
  state: unknown;
  /** The client's shared token store (`stores.tokens`), when it has one. */
  tokenStore?: unknown;
}

/**
 * A source of credentials given to the HTTP transport as its `auth` value: `oauth({...})` and
 * `clientCredentials({...})` from `auth/`, or your own. A value, validated when it is made: the
 * transport keeps it and asks it for a provider when it starts (where its libraries may load).
 */
export interface AuthProviderFactory {
  /** Names the source (`"oauth"`); factories of one kind share the transport's state. */
  readonly kind: string;
  /** State one transport keeps for this kind across credential changes (OAuth: a default token store). */
  newTransportState?(): unknown;
  /** Makes the provider for one transport (loads the source's libraries; rejects `kind: "auth"`). */
  createProvider(ctx: AuthProviderContext): Promise<AuthProvider>;
}

/** True for an `AuthProviderFactory` (an object with `kind` and `createProvider`). */
export function isAuthProviderFactory(v: unknown): v is AuthProviderFactory {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as AuthProviderFactory).createProvider === "function" &&
    typeof (v as AuthProviderFactory).kind === "string"
  );
}
