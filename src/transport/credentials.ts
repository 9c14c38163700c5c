/**
 * The credentials seam: how the client (setAuth, the cache's private lists) and a credential
 * plug-in (OAuth, in `auth/`) reach the credentials a transport sends, without the transport
 * knowing either of them.
 *
 * A transport that carries credentials exposes `credentials`; one that carries none leaves it
 * out. The source of the credentials is the transport's business (a bearer, a function called
 * per request, or a provider): the seam only says who they are, counts changes, and replaces them.
 *
 * A provider (the OAuth flows) plugs in from above with `registerCredentialPlugin`: it names the
 * `auth` forms it accepts (its types through `CredentialForms`, its validation through
 * `resolve`) and makes an `AuthProvider` per form; the transport asks it for a credential before
 * each request and tells it when the server refused one. Types and one slot only: importing this
 * module loads nothing.
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

/**
 * The `auth` forms a plug-in adds, by name (OAuth adds `{ oauth }` and `{ clientCredentials }`
 * by augmenting this interface from `auth/types.ts`). The transport's `auth` type is its own
 * forms plus these.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging from the plug-in's module
export interface CredentialForms {}

/** What a provider is made with: the transport's HTTP function, its URL, and a per-transport store. */
export interface AuthProviderContext {
  http: AuthHttp;
  serverUrl: URL;
  /** The plug-in's own per-transport state (`newTransportState()`), kept across `replace`. */
  state: unknown;
}

/** A source of credentials that plugs into the transport from above (OAuth). */
export interface CredentialPlugin {
  /**
   * Recognises one of its forms of `auth` and validates it without I/O: the resolved form, or
   * undefined when `auth` is none of them. Throws an `OptionError` for a bad one.
   */
  resolve(auth: Record<string, unknown>, path: string): object | undefined;
  /** State one transport keeps for the plug-in across credential changes (a default token store). */
  newTransportState(): unknown;
  /** Makes the provider for a resolved form (loads the plug-in's libraries; rejects `kind: "auth"`). */
  createProvider(form: object, ctx: AuthProviderContext): Promise<AuthProvider>;
}

let plugin: CredentialPlugin | undefined;

/** Installs the credential plug-in (the public entry installs OAuth). The last one wins. */
export function registerCredentialPlugin(p: CredentialPlugin): void {
  plugin = p;
}

/** The installed plug-in, if any. */
export function credentialPlugin(): CredentialPlugin | undefined {
  return plugin;
}
