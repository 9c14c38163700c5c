/**
 * The auth provider behind `oauth({...})` and `clientCredentials({...})`: what the HTTP transport asks
 * for a request's credential and tells about a 401 or 403. It discovers the server's
 * authorization server, registers once per AS, runs the grant, keeps tokens in the store under
 * `{ principal, issuer, resource }`, refreshes them (one refresh however many requests wait),
 * and steps up on `insufficient_scope` within a limit.
 *
 * The grants, discovery, registration, the redirect and the stores are files of their own; what
 * stays is the one state machine of a principal's token (when to discover, register, grant,
 * refresh, step up), which reads best in one place.
 */
import { McpClientError } from "../shared/errors.js";
import { Secret } from "../shared/secret.js";
import { hexDigest } from "../util/hash.js";
import { authorizationRequest, awaitRedirect, validateCallback } from "./authorize.js";
import {
  discoverResource,
  discoverServer,
  oauthChallenge,
  type ResourceMetadata,
  type ServerMetadata,
} from "./discovery.js";
import { DpopKey } from "./dpop.js";
import { authError } from "./errors.js";
import {
  authorizationCodeGrant,
  clientCredentialsGrant,
  EXPIRY_MARGIN_MS,
  exchangeForIdJag,
  type GrantContext,
  jwtBearerGrant,
  type Libraries,
  pickAuthMethod,
  refreshGrant,
} from "./grants.js";
import { MemoryTokenStore } from "./memory-store.js";
import { DEFAULT_MAX_STEP_UPS, DEFAULT_REDIRECT_TIMEOUT, type ResolvedOAuthForm } from "./options.js";
import { registerClient } from "./registration.js";
import type {
  AuthChallengeEvent,
  AuthCredential,
  AuthHttp,
  AuthProvider,
  ClientCredentialsOptions,
  OAuthOptions,
  StoredClient,
  StoredTokens,
  TokenKey,
  TokenStore,
} from "./types.js";

export interface ProviderContext {
  /** The transport's HTTP function for every metadata, registration and token request. */
  http: AuthHttp;
  /** The MCP endpoint. */
  serverUrl: URL;
  /** The store when the form names none (the transport's, so `setAuth` keeps it). */
  defaultStore?: TokenStore;
}

type Secretish = string | Secret;
const toSecret = (v: Secretish): Secret => (v instanceof Secret ? v : new Secret(v));

function scopeSet(...parts: Array<string | undefined>): Set<string> {
  const out = new Set<string>();
  for (const p of parts) for (const s of (p ?? "").split(" ")) if (s) out.add(s);
  return out;
}

/**
 * A failure on the way to a token is `kind: "auth"` (the request cannot be made without one),
 * whatever broke: metadata over the size cap is `oauth_message_too_large`, one that never ends
 * `oauth_timeout`, an unreachable AS `oauth_transport`; the transport's reason stays in `data`.
 */
function asAuthFailure(err: unknown): McpClientError {
  if (McpClientError.is(err, "auth")) return err;
  if (err instanceof McpClientError) {
    return authError(
      `oauth_${err.kind}`,
      typeof err.reason === "string" ? { reason: err.reason } : undefined,
      err,
    );
  }
  return authError("oauth_failed", undefined, err);
}

export class OAuthProvider implements AuthProvider {
  readonly #form: ResolvedOAuthForm;
  readonly #ctx: ProviderContext;
  readonly #libs: Libraries;
  readonly store: TokenStore;
  readonly #principal: string;
  #prm: ResourceMetadata | undefined;
  #as: ServerMetadata | undefined;
  /** One registration per authorization server, by issuer. */
  readonly #clients = new Map<string, StoredClient>();
  #key: TokenKey | undefined;
  #tokens: StoredTokens | undefined;
  /** The one flow under way (refresh or authorization); everyone else waits for it. */
  #inflight: Promise<void> | undefined;
  /** Authorization attempts by scope set (the step-up limit). */
  readonly #attempts = new Map<string, number>();
  /** The scopes asked for so far: a step-up asks for their union with the challenge's. */
  #requested = new Set<string>();
  /** Tokens obtained by refreshing after a 401: a 401 to one of them re-authorizes. */
  #refreshedOn401 = new WeakSet<StoredTokens>();
  #dpop: Promise<DpopKey> | undefined;
  /** A non-interactive grant the AS refused: not retried (workload identity must not loop). */
  #fatal: McpClientError | undefined;

  constructor(form: ResolvedOAuthForm, ctx: ProviderContext, libs: Libraries) {
    this.#form = form;
    this.#ctx = ctx;
    this.#libs = libs;
    this.#principal = form.principal;
    this.store = form.options.store ?? ctx.defaultStore ?? new MemoryTokenStore();
  }

  identity(): string | null {
    const k = this.#key;
    if (!k) return null;
    return `oauth:${hexDigest("sha256", JSON.stringify([k.principal, k.issuer, k.resource]))}`;
  }

  /** The key the tokens are stored under, once the server's authorization server is known. */
  get key(): TokenKey | undefined {
    return this.#key ? { ...this.#key } : undefined;
  }

  async token(request: { url: string; method: string }): Promise<AuthCredential | null> {
    if (this.#inflight) await this.#inflight.catch(() => {});
    let t = this.#tokens;
    if (!t) return null;
    if (t.expiresAt !== undefined && t.expiresAt - EXPIRY_MARGIN_MS <= Date.now()) {
      if (t.refreshToken) {
        const stale = t;
        await this.#single(() => this.#refresh(stale)).catch(() => {});
      } else if (this.#tokens === t) {
        this.#tokens = undefined;
      }
      t = this.#tokens;
      if (!t) return null;
    }
    return this.#credential(t, request);
  }

  async #credential(t: StoredTokens, request: { url: string; method: string }): Promise<AuthCredential> {
    if (t.tokenType === "DPoP") {
      const key = await this.#dpopKey();
      if (!key) throw authError("dpop_key_missing");
      return {
        authorization: new Secret(`DPoP ${t.accessToken.reveal()}`),
        dpop: await key.proof(request.method, request.url, t.accessToken),
      };
    }
    return { authorization: new Secret(`Bearer ${t.accessToken.reveal()}`) };
  }

  async challenged(ev: AuthChallengeEvent): Promise<boolean> {
    const challenge = oauthChallenge(ev.challenges);
    const error = challenge?.params.error;
    if (ev.status === 401 && error === "use_dpop_nonce" && ev.dpopNonce !== undefined) {
      const key = await this.#dpopKey();
      return key?.setResourceNonce(ev.url, ev.dpopNonce) === true;
    }
    if (ev.status === 403 && error !== "insufficient_scope") return false;
    if (this.#inflight) await this.#inflight.catch(() => {});
    // Someone else already put new credentials in place since this request was sent.
    if (this.#replacedSince(ev.sent)) return true;
    if (this.#fatal) throw this.#fatal;
    try {
      await this.#single(() => this.#recover(ev, challenge?.params.scope));
    } catch (err) {
      throw asAuthFailure(err);
    }
    return this.#tokens !== undefined;
  }

  #replacedSince(sent: AuthCredential | null): boolean {
    const t = this.#tokens;
    if (!t) return false;
    if (!sent) return true;
    return !sent.authorization.reveal().endsWith(` ${t.accessToken.reveal()}`);
  }

  /** Runs `fn` unless a flow is already under way, in which case that one is joined. */
  #single(fn: () => Promise<void>): Promise<void> {
    if (this.#inflight) return this.#inflight;
    const p = fn().finally(() => {
      if (this.#inflight === p) this.#inflight = undefined;
    });
    this.#inflight = p;
    return p;
  }

  async #recover(ev: AuthChallengeEvent, challengeScope: string | undefined): Promise<void> {
    const held = this.#tokens;
    // Refresh once; a refreshed token that is refused too means the grant itself is gone.
    if (ev.status === 401 && held?.refreshToken && !this.#refreshedOn401.has(held)) {
      try {
        await this.#refresh(held);
        const fresh = this.#tokens;
        if (fresh && fresh !== held) {
          this.#refreshedOn401.add(fresh);
          return;
        }
      } catch {
        // Refused: authorize again below.
      }
    }
    // Discover again: the server may name another authorization server now.
    await this.#discover(ev);
    const key = this.#key!;
    if (ev.status === 401) {
      const stored = await this.store.get(key);
      if (
        stored &&
        (!held || stored.accessToken.reveal() !== held.accessToken.reveal()) &&
        this.#usable(stored)
      ) {
        this.#tokens = stored;
        this.#requested = scopeSet(stored.scope);
        return;
      }
    }
    const base = ev.status === 403 || held ? [...this.#requested].join(" ") : undefined;
    const scopes = scopeSet(
      base,
      challengeScope ?? (this.#requested.size === 0 ? this.#prm?.scopesSupported?.join(" ") : undefined),
      this.#form.options.scope,
    );
    await this.#authorize(scopes);
  }

  #usable(t: StoredTokens): boolean {
    if (t.tokenType === "DPoP" && !this.#dpop) return false;
    return (
      t.expiresAt === undefined || t.expiresAt - EXPIRY_MARGIN_MS > Date.now() || t.refreshToken !== undefined
    );
  }

  async #discover(ev: AuthChallengeEvent): Promise<void> {
    const challenge = oauthChallenge(ev.challenges);
    const prm = await discoverResource(this.#ctx.http, this.#ctx.serverUrl, challenge);
    const issuer = prm.authorizationServers[0]!;
    const as = this.#as?.issuer === issuer ? this.#as : await discoverServer(this.#ctx.http, issuer);
    if (this.#as && this.#as.issuer !== as.issuer) {
      // Another authorization server: nothing of the old one is used with it.
      this.#tokens = undefined;
      this.#refreshedOn401 = new WeakSet();
      this.#requested = new Set();
      this.#attempts.clear();
    }
    this.#prm = prm;
    this.#as = as;
    this.#key = { principal: this.#principal, issuer: as.issuer, resource: prm.resource };
  }

  async #authorize(scopes: Set<string>): Promise<void> {
    const as = this.#as!;
    const prm = this.#prm!;
    const max = this.#form.options.maxStepUps ?? DEFAULT_MAX_STEP_UPS;
    const attemptKey = [...scopes].sort().join(" ");
    const n = (this.#attempts.get(attemptKey) ?? 0) + 1;
    if (n > max) throw authError("step_up_limit");
    this.#attempts.set(attemptKey, n);
    const scope = scopes.size > 0 ? [...scopes].join(" ") : undefined;
    let tokens: StoredTokens;
    if (this.#form.type === "clientCredentials") {
      tokens = await this.#clientCredentials(this.#form.options, as, prm.resource, scope);
    } else if (this.#form.options.enterprise) {
      tokens = await this.#enterprise(this.#form.options, as, prm.resource, scope);
    } else {
      tokens = await this.#authorizationCode(this.#form.options, as, prm.resource, scopes);
    }
    this.#requested = scopes;
    await this.#keep(tokens);
  }

  async #keep(tokens: StoredTokens): Promise<void> {
    this.#tokens = tokens;
    await this.store.set(this.#key!, tokens);
  }

  async #client(o: OAuthOptions, as: ServerMetadata): Promise<StoredClient> {
    let c = this.#clients.get(as.issuer);
    if (!c) {
      c = await registerClient(this.#ctx.http, as, o);
      this.#clients.set(as.issuer, c);
    }
    return c;
  }

  async #grantContext(as: ServerMetadata, client: StoredClient): Promise<GrantContext> {
    const o = this.#form.options;
    return {
      libs: this.#libs,
      http: this.#ctx.http,
      as,
      client,
      ...(o.privateKey !== undefined ? { privateKey: o.privateKey } : {}),
      ...(o.signingAlgorithm !== undefined ? { signingAlgorithm: o.signingAlgorithm } : {}),
      ...(o.dpop ? { dpop: await this.#dpopKey() } : {}),
    };
  }

  async #authorizationCode(
    o: OAuthOptions,
    as: ServerMetadata,
    resource: string,
    scopes: Set<string>,
  ): Promise<StoredTokens> {
    const redirect = o.redirect!;
    const redirectUri = o.redirectUri!;
    // offline_access (a refresh token) only where the AS lists it.
    if (o.offlineAccess !== false && as.scopes_supported?.includes("offline_access"))
      scopes.add("offline_access");
    const scope = scopes.size > 0 ? [...scopes].join(" ") : undefined;
    // Checked before anything is registered or handed to the application.
    const client = await this.#client(o, as);
    const req = await authorizationRequest(this.#libs.oauth, as, {
      clientId: client.clientId,
      redirectUri,
      resource,
      scope,
    });
    const limit = o.redirectTimeout ?? DEFAULT_REDIRECT_TIMEOUT;
    const callback = await awaitRedirect(redirect, req.url, limit);
    const { params } = validateCallback(
      this.#libs.oauth,
      as,
      client.clientId,
      callback,
      redirectUri,
      req.state,
    );
    const ctx = await this.#grantContext(as, client);
    return authorizationCodeGrant(ctx, params, redirectUri, req.verifier, resource, scope);
  }

  async #enterprise(
    o: OAuthOptions,
    as: ServerMetadata,
    resource: string,
    scope: string | undefined,
  ): Promise<StoredTokens> {
    const e = o.enterprise!;
    const raw = typeof e.idToken === "function" ? await e.idToken() : e.idToken;
    if (typeof raw !== "string" && !(raw instanceof Secret)) throw authError("invalid_id_token");
    const jag = await exchangeForIdJag(
      this.#libs,
      this.#ctx.http,
      {
        tokenEndpoint: e.idpTokenEndpoint,
        clientId: e.idpClientId,
        ...(e.idpClientSecret !== undefined ? { clientSecret: toSecret(e.idpClientSecret) } : {}),
      },
      toSecret(raw),
      as.issuer,
      resource,
      scope,
    );
    const client = await this.#client(o, as);
    return this.#nonInteractive(() =>
      this.#grantContext(as, client).then((ctx) => jwtBearerGrant(ctx, jag, resource, scope)),
    );
  }

  async #clientCredentials(
    o: ClientCredentialsOptions,
    as: ServerMetadata,
    resource: string,
    scope: string | undefined,
  ): Promise<StoredTokens> {
    let client = this.#clients.get(as.issuer);
    if (!client) {
      const secret = o.clientSecret === undefined ? undefined : toSecret(o.clientSecret);
      client = {
        clientId: o.clientId,
        ...(secret ? { clientSecret: secret } : {}),
        tokenEndpointAuthMethod: pickAuthMethod(as, {
          secret: secret !== undefined,
          privateKey: o.privateKey !== undefined,
        }),
      };
      this.#clients.set(as.issuer, client);
    }
    const ctx = await this.#grantContext(as, client);
    if (o.assertion !== undefined) {
      const raw = typeof o.assertion === "function" ? await o.assertion() : o.assertion;
      if (typeof raw !== "string" && !(raw instanceof Secret)) throw authError("invalid_assertion");
      const assertion = toSecret(raw);
      return this.#nonInteractive(() => jwtBearerGrant(ctx, assertion, resource, scope));
    }
    return this.#nonInteractive(() => clientCredentialsGrant(ctx, resource, scope));
  }

  /** A grant without a user: an AS refusal is final (retrying would only be refused again). */
  async #nonInteractive(fn: () => Promise<StoredTokens>): Promise<StoredTokens> {
    try {
      return await fn();
    } catch (err) {
      if (McpClientError.is(err, "auth") && err.reason === "token_request_failed") this.#fatal = err;
      throw err;
    }
  }

  async #refresh(held: StoredTokens): Promise<void> {
    if (this.#tokens !== held) return;
    const as = this.#as;
    const key = this.#key;
    const client = held.client ?? (as ? this.#clients.get(as.issuer) : undefined);
    if (!as || !key || !held.refreshToken || !client) {
      this.#tokens = undefined;
      return;
    }
    // A store a fleet shares refreshes once for all (refreshOnce) and is never deleted from here
    // on failure: another holder's newer tokens may be there by now.
    const once = this.store.refreshOnce;
    try {
      const ctx = await this.#grantContext(as, client);
      const refresh = (t: StoredTokens) =>
        refreshGrant(ctx, t.refreshToken ?? held.refreshToken!, key.resource, t.scope);
      if (!once) await this.#keep(await refresh(held));
      else if (this.#tokens === held) this.#tokens = await once.call(this.store, key, held, refresh);
    } catch (err) {
      if (this.#tokens === held) this.#tokens = undefined;
      if (!once) await this.store.delete(key);
      throw err;
    }
  }

  #dpopKey(): Promise<DpopKey> | undefined {
    const opt = this.#form.options.dpop;
    if (!opt) return undefined;
    const alg = typeof opt === "object" && opt.alg ? opt.alg : "ES256";
    this.#dpop ??= DpopKey.create(this.#libs.jose, this.#libs.oauth, alg);
    return this.#dpop;
  }

  toJSON(): { type: string; principal: string } {
    return { type: this.#form.type, principal: this.#principal };
  }
}
