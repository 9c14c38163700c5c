/**
 * The HTTP transport's credentials: a bearer token, a function asked before each request, or the
 * provider a credential factory (`oauth({...})`) makes. This is the one place that writes `Authorization`, and
 * the transport's side of the credentials seam (`transport/credentials.ts`).
 */
import type { Dispatcher } from "undici";
import { McpClientError } from "../../shared/errors.js";
import { revealIfSecret, Secret } from "../../shared/secret.js";
import { hexDigest } from "../../util/hash.js";
import type { AuthCredential, AuthProvider, TransportCredentials } from "../credentials.js";
import { parseChallenges } from "./answers.js";
import { createAuthHttp } from "./auth-http.js";
import { firstHeader, type Headers } from "./headers.js";
import { type HttpAuth, isValidToken, type ResolvedHttpOptions, resolveAuth } from "./options.js";

/**
 * New credentials one request may be retried with (a step-up, a refresh, a re-authorization, a
 * DPoP nonce...): so a request is sent at most 4 times, and a server that refuses every fresh
 * token costs 3 token requests per call, not a flow per refusal without end.
 */
export const MAX_AUTH_RETRIES = 3;

export class HttpCredentials implements TransportCredentials {
  readonly #o: ResolvedHttpOptions;
  #bearer: string | undefined;
  #generation = 0;
  #bearerIdentity: { token: unknown; id: string } | undefined;
  /** The provider a factory made (`oauth({...})`); kept across reconnects. */
  #provider: AuthProvider | undefined;
  #providerFor: unknown;
  /** Each factory kind's per-transport state (OAuth: the default store), kept across `replace`. */
  // Both only for an auth provider: made on first use (a Map and a WeakMap per client otherwise).
  #factoryState: Map<string, unknown> | undefined;
  /** The client's shared token store (`stores.tokens`), lent to the providers made from now on. */
  tokenStore: unknown;
  /** The credential each request's headers carried (for the provider's 401/403 handling). */
  #sentWith: WeakMap<object, AuthCredential | null> | undefined;
  /** The auth function's latest token, as a Secret so errors are scrubbed of it. */
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: held (never read) so the value stays known to the scrubber
  #issuedToken: Secret | undefined;

  /** `options.auth` is the resolved option; `replace` updates it in place. */
  constructor(options: ResolvedHttpOptions) {
    this.#o = options;
    this.#setBearer();
  }

  /**
   * Who the credentials are, for caching private results: `null` without auth, a digest for a
   * bearer token (`sha256:<hex>`, never the token), `id:<credentialId>` for a function that
   * declares one, the provider's identity, and `undefined` when unknown (a function without
   * `credentialId`).
   */
  get identity(): string | null | undefined {
    const a = this.#o.auth;
    if (a.type === "none") return null;
    if (a.type === "bearer") {
      // Read on every call to a listed tool (the cache checks whose list it holds): hashed once per token.
      if (this.#bearerIdentity?.token !== a.token) {
        const id = `sha256:${hexDigest("sha256", revealIfSecret(a.token))}`;
        this.#bearerIdentity = { token: a.token, id };
      }
      return this.#bearerIdentity.id;
    }
    if (a.type === "provider") return this.#provider?.identity() ?? null;
    return a.credentialId === undefined ? undefined : `id:${a.credentialId}`;
  }

  get generation(): number {
    return this.#generation;
  }

  replace(auth: unknown, options: { credentialId?: string } = {}): void {
    this.#o.auth = resolveAuth(
      auth as HttpAuth | null | undefined,
      options.credentialId,
      this.#o.url,
      "auth",
      "credentialId",
    );
    this.#setBearer();
    this.#generation += 1;
  }

  #setBearer(): void {
    const a = this.#o.auth;
    this.#bearer = a.type === "bearer" ? `Bearer ${revealIfSecret(a.token)}` : undefined;
  }

  /** True once a provider exists: a 401/403 is then its to answer (`challenged`). */
  get hasProvider(): boolean {
    return this.#provider !== undefined;
  }

  /** At start: asks the factory for its provider when the current `auth` has none yet. */
  async prepare(fetch: { dispatcher(): Dispatcher; vet: ((url: URL) => Promise<void>) | undefined }) {
    const a = this.#o.auth;
    if (a.type !== "provider" || this.#providerFor === a) return;
    const { factory } = a;
    this.#factoryState ??= new Map();
    const states = this.#factoryState;
    if (!states.has(factory.kind)) states.set(factory.kind, factory.newTransportState?.());
    try {
      this.#provider = await factory.createProvider({
        http: createAuthHttp({ options: this.#o, dispatcher: fetch.dispatcher, vet: fetch.vet }),
        serverUrl: this.#o.url,
        state: states.get(factory.kind),
        ...(this.tokenStore !== undefined ? { tokenStore: this.tokenStore } : {}),
      });
    } catch (err) {
      // A factory of your own that throws anything else still fails the request as `auth`.
      throw err instanceof McpClientError
        ? err
        : new McpClientError("auth", "oauth_failed", undefined, { cause: err });
    }
    this.#providerFor = a;
  }

  /**
   * Puts the credentials for one request to `url` on `headers` (or takes them off). A bearer is
   * put on at once (undefined); a function or a provider is asked first (a promise).
   */
  apply(headers: Record<string, string>, url: URL, method: string): Promise<void> | undefined {
    const a = this.#o.auth;
    if (a.type === "none") return undefined;
    if (a.type === "bearer") return write(headers, { authorization: this.#bearer! });
    const asked =
      a.type === "function" ? this.#functionToken(url, method) : this.#provided(headers, url, method);
    return asked.then((value) => write(headers, value));
  }

  /** The credential `headers` carried when they were sent (null: none). */
  sentWith(headers: object): AuthCredential | null {
    return this.#sentWith?.get(headers) ?? null;
  }

  /**
   * A 401 or 403 to a request made with the provider: asks it for new credentials. True means
   * send the request once more (with what `token()` now gives); a rejection is the flow's typed
   * `auth` error.
   */
  async challenged(status: number, headers: Headers, sent: AuthCredential | null): Promise<boolean> {
    const p = this.#provider;
    if (!p || (status !== 401 && status !== 403) || this.#o.auth.type !== "provider") return false;
    const nonce = firstHeader(headers["dpop-nonce"]);
    return p.challenged({
      status,
      challenges: parseChallenges(headers["www-authenticate"]),
      url: this.#o.url.href,
      sent,
      ...(nonce !== undefined ? { dpopNonce: nonce } : {}),
    });
  }

  /** The provider's credential: `Authorization` and, with DPoP, a fresh `DPoP` proof. */
  async #provided(
    headers: object,
    url: URL,
    method: string,
  ): Promise<{ authorization: string; dpop?: string } | null> {
    const p = this.#provider;
    let cred: AuthCredential | null = null;
    if (p) {
      try {
        cred = await p.token({ url: url.href, method });
      } catch (err) {
        throw err instanceof McpClientError ? err : new McpClientError("auth", "oauth_failed");
      }
    }
    this.#sentWith ??= new WeakMap();
    this.#sentWith.set(headers, cred);
    if (!cred) return null;
    return {
      authorization: cred.authorization.reveal(),
      ...(cred.dpop ? { dpop: cred.dpop.reveal() } : {}),
    };
  }

  async #functionToken(url: URL, method: string): Promise<{ authorization: string; dpop?: string } | null> {
    const a = this.#o.auth;
    if (a.type !== "function") return null;
    let token: unknown;
    try {
      token = await a.fn({ url: url.href, method });
    } catch {
      throw new McpClientError("auth", "auth_function_failed");
    }
    if (token instanceof Error) throw new McpClientError("auth", "auth_function_failed");
    if (token === null || token === undefined) return null;
    if (typeof token !== "string" && !(token instanceof Secret))
      throw new McpClientError("auth", "invalid_token");
    const value = revealIfSecret(token);
    if (!isValidToken(value)) throw new McpClientError("auth", "invalid_token");
    // The token sent last stays known to the scrubber (a Secret) while it may still be echoed.
    this.#issuedToken = token instanceof Secret ? token : new Secret(value);
    return { authorization: `Bearer ${value}` };
  }
}

/** The one place `Authorization` (and its DPoP proof) is written on a request. */
function write(
  headers: Record<string, string>,
  value: { authorization: string; dpop?: string } | null,
): undefined {
  if (value === null) {
    delete headers.authorization;
    delete headers.dpop;
    return;
  }
  headers.authorization = value.authorization;
  if (value.dpop !== undefined) headers.dpop = value.dpop;
  else delete headers.dpop;
}
