/**
 * `oauth({...})` and `clientCredentials({...})`: the OAuth credential sources, as values the HTTP
 * transport's `auth` option takes (an `AuthProviderFactory`, transport/credentials.ts). Making one
 * validates its options and loads nothing; the flows and their libraries (`oauth4webapi`, `jose`)
 * load when a transport first starts with one, so importing conduit-mcp costs nothing for clients
 * that never use OAuth. Nothing is registered anywhere: the value is the whole plug.
 */
import { McpClientError } from "../shared/errors.js";
import type { AuthProviderContext, AuthProviderFactory } from "../transport/credentials.js";
import { MemoryTokenStore } from "./memory-store.js";
import { type ResolvedOAuthForm, resolveClientCredentialsOptions, resolveOAuthOptions } from "./options.js";
import type { AuthProvider, ClientCredentialsOptions, OAuthOptions, TokenKey, TokenStore } from "./types.js";

/** The provider's shape, for callers that want its store and key (the CLI). */
export interface OAuthAuthProvider extends AuthProvider {
  readonly store: TokenStore;
  readonly key: TokenKey | undefined;
}

type Loaded = typeof import("./provider.js") & { libs: import("./grants.js").Libraries };

/** The flows and their libraries, on first use (`import()` keeps them: no cache of our own). */
async function load(): Promise<Loaded> {
  const [provider, oauth, jose] = await Promise.all([
    import("./provider.js"),
    import("oauth4webapi"),
    import("jose"),
  ]);
  return { ...provider, libs: { oauth, jose } };
}

/** One OAuth credential source: its validated options, and the provider it makes per transport. */
class OAuthCredentials implements AuthProviderFactory {
  readonly kind = "oauth";
  readonly #form: ResolvedOAuthForm;

  constructor(form: ResolvedOAuthForm) {
    this.#form = form;
  }

  // The store of sources without their own `store`: one per transport, kept across setAuth.
  newTransportState(): TokenStore {
    return new MemoryTokenStore();
  }

  async createProvider(ctx: AuthProviderContext): Promise<OAuthAuthProvider> {
    let mod: Loaded;
    try {
      mod = await load();
    } catch (err) {
      throw new McpClientError("auth", "oauth_dependencies_missing", undefined, { cause: err });
    }
    return new mod.OAuthProvider(
      this.#form,
      {
        http: ctx.http,
        serverUrl: ctx.serverUrl,
        // The client's shared store (stores.tokens) before the transport's own.
        defaultStore: (ctx.tokenStore ?? ctx.state) as TokenStore,
      },
      mod.libs,
    );
  }

  /** Never the options (they may hold a client secret): which grant, for whom. */
  toJSON(): { kind: string; grant: string; principal: string } {
    return { kind: this.kind, grant: this.#form.type, principal: this.#form.principal };
  }
}

/**
 * The authorization code flow with PKCE (or enterprise-managed authorization), as the HTTP
 * transport's `auth`: `transport: { type: "http", url, auth: oauth({ redirect, redirectUri }) }`.
 * Throws an `OptionError` for a bad option (named `oauth.<option>`).
 */
export function oauth(options: OAuthOptions): AuthProviderFactory {
  const form = resolveOAuthOptions(options, "oauth");
  // A copy: the options are checked once, here, and a later change to the caller's object
  // cannot slip past the check.
  return new OAuthCredentials({ ...form, options: { ...form.options } } as ResolvedOAuthForm);
}

/**
 * A client acting on its own behalf (client credentials, or a workload identity JWT), as the
 * HTTP transport's `auth`: `auth: clientCredentials({ clientId, clientSecret })`.
 */
export function clientCredentials(options: ClientCredentialsOptions): AuthProviderFactory {
  const form = resolveClientCredentialsOptions(options, "clientCredentials");
  return new OAuthCredentials({ ...form, options: { ...form.options } } as ResolvedOAuthForm);
}
