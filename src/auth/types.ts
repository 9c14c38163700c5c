/**
 * The vocabulary of the OAuth layer: the two `auth` forms, the token store, and the narrow seams
 * between this layer and the HTTP transport (the auth provider it asks for credentials, the HTTP
 * function it lends for metadata, registration and token requests). Types only: importing this
 * module loads nothing.
 */
import type { webcrypto } from "node:crypto";
import type { MaybeSecret } from "../shared/secret.js";

// The token store moved to the shared stores (a fleet shares it); its names stay here too.
export type {
  StoredClient,
  StoredTokens,
  TokenEndpointAuthMethod,
  TokenKey,
  TokenStore,
} from "../stores/tokens.js";

import type { TokenStore } from "../stores/tokens.js";

/** A private key for `private_key_jwt` or DPoP: a PKCS#8 PEM string (or `Secret`), or a `CryptoKey`. */
export type PrivateKeyInput = MaybeSecret | webcrypto.CryptoKey;

/** DPoP (RFC 9449): sender-constrained tokens. `true` uses a fresh ES256 key held in memory. */
export type DpopOption = boolean | { alg?: "ES256" | "ES384" | "EdDSA" };

/**
 * Enterprise-managed authorization (SEP-990): the user's identity provider exchanges their ID
 * token for an ID-JAG (RFC 8693), which the MCP server's authorization server takes as a JWT
 * bearer grant (RFC 7523). No browser is involved.
 */
export interface EnterpriseOptions {
  /** The identity provider's token endpoint (https, or http to a loopback host). */
  idpTokenEndpoint: string;
  /** The user's ID token from the identity provider, or a function that returns a fresh one. */
  idToken: MaybeSecret | (() => MaybeSecret | Promise<MaybeSecret>);
  /** The client id at the identity provider. */
  idpClientId: string;
  /** The client secret at the identity provider (sent with `client_secret_post`). */
  idpClientSecret?: MaybeSecret;
}

/** The `{ oauth: ... }` form: the authorization code flow for a user. */
export interface OAuthOptions {
  /**
   * Sends the user to `authorizationUrl` and resolves with the URL the authorization server
   * redirected back to (with `code`, `state`, maybe `iss`). A web app redirects its user and
   * resolves when its callback route is hit; a CLI prints the URL and listens on a loopback port.
   * The library never opens a browser. Required unless `enterprise` is given.
   */
  redirect?: (authorizationUrl: string) => string | URL | Promise<string | URL>;
  /** The redirect URI registered for this client. Required with `redirect`. */
  redirectUri?: string;
  /** Who the tokens act for. Default `"default"`. */
  principal?: string;
  /** Where tokens are kept. Default: in memory, for this client only. */
  store?: TokenStore;
  /** A pre-registered client id (used first, when its `issuer` is the server's authorization server). */
  clientId?: string;
  /** The pre-registered client's secret. */
  clientSecret?: MaybeSecret;
  /** The issuer the pre-registered client belongs to. Default: whichever the server names. */
  issuer?: string;
  /** A private key for `private_key_jwt` client authentication. */
  privateKey?: PrivateKeyInput;
  /** The JWS algorithm for `private_key_jwt`. Default `"ES256"`. */
  signingAlgorithm?: string;
  /** The https URL of this client's Client ID Metadata Document, used where the AS supports them. */
  clientMetadataUrl?: string;
  /** `client_name` for dynamic registration. Default `"conduit-mcp"`. */
  clientName?: string;
  /** `application_type` for dynamic registration. Default `"native"` for a loopback redirect URI, else `"web"`. */
  applicationType?: "native" | "web";
  /** Scopes to ask for in addition to the ones the server names. */
  scope?: string;
  /** Ask for `offline_access` (a refresh token) when the AS lists it. Default true. */
  offlineAccess?: boolean;
  /** DPoP-bound tokens. Default false. */
  dpop?: DpopOption;
  /** Enterprise-managed authorization instead of the browser flow. */
  enterprise?: EnterpriseOptions;
  /** Authorization attempts for one scope set before a 403 becomes `kind: "auth"`. Default 3. */
  maxStepUps?: number;
  /** How long `redirect` may take before the flow fails (`redirect_timeout`). Default 300 000 ms. */
  redirectTimeout?: number;
}

/** The `{ clientCredentials: ... }` form: a client acting on its own behalf. */
export interface ClientCredentialsOptions {
  clientId: string;
  /** The secret (`client_secret_basic` or `client_secret_post`, whichever the AS supports). */
  clientSecret?: MaybeSecret;
  /** A private key for `private_key_jwt`. */
  privateKey?: PrivateKeyInput;
  /** The JWS algorithm for `private_key_jwt`. Default `"ES256"`. */
  signingAlgorithm?: string;
  /**
   * Workload identity (SEP-1933): a JWT from the workload's identity provider, sent as a JWT
   * bearer grant (RFC 7523) instead of the client credentials grant. A function is called for
   * each token request (workload tokens are short-lived).
   */
  assertion?: MaybeSecret | (() => MaybeSecret | Promise<MaybeSecret>);
  /** Scopes to ask for. Default: the server's. */
  scope?: string;
  /** DPoP-bound tokens. Default false. */
  dpop?: DpopOption;
  principal?: string;
  store?: TokenStore;
  /** Token requests for one scope set before a 403 becomes `kind: "auth"`. Default 3. */
  maxStepUps?: number;
}

// ---- the seams with the HTTP transport -------------------------------------------------------

// The provider seam lives with the transport (transport/credentials.ts), which names no file of
// this layer; OAuth is a value given to it (`oauth({...})`, auth/oauth.ts).
export type {
  AuthChallengeEvent,
  AuthCredential,
  AuthHttp,
  AuthHttpRequest,
  AuthHttpResponse,
  AuthProvider,
  ParsedChallenge,
} from "../transport/credentials.js";
