/**
 * The one door from the transport into the OAuth machinery: the credential plug-in that the
 * public entry installs into the transport's credentials seam. The flows and their libraries
 * (`oauth4webapi`, `jose`) are loaded here, on first use, so importing conduit-mcp costs nothing
 * for clients that never use an OAuth form.
 */
import { McpClientError } from "../shared/errors.js";
import type { CredentialPlugin } from "../transport/credentials.js";
import { MemoryTokenStore } from "./memory-store.js";
import { type ResolvedOAuthForm, resolveOAuthForm } from "./options.js";
import type { AuthProvider, TokenKey, TokenStore } from "./types.js";

/** The provider class's shape, for callers that want its store and key (the CLI). */
export interface OAuthAuthProvider extends AuthProvider {
  readonly store: TokenStore;
  readonly key: TokenKey | undefined;
}

let loading: Promise<typeof import("./provider.js") & { libs: import("./grants.js").Libraries }> | undefined;

function load() {
  loading ??= Promise.all([import("./provider.js"), import("oauth4webapi"), import("jose")]).then(
    ([provider, oauth, jose]) => ({ ...provider, libs: { oauth, jose } }),
  );
  return loading;
}

/** `{ oauth }` and `{ clientCredentials }` as a credential source of the HTTP transport. */
export const oauthCredentials: CredentialPlugin = {
  resolve: (auth, path) => resolveOAuthForm(auth, path),
  // The store OAuth forms without their own use: one per transport, kept across setAuth.
  newTransportState: () => new MemoryTokenStore(),
  async createProvider(form, ctx): Promise<OAuthAuthProvider> {
    let mod: Awaited<ReturnType<typeof load>>;
    try {
      mod = await load();
    } catch (err) {
      loading = undefined;
      throw new McpClientError("auth", "oauth_dependencies_missing", undefined, { cause: err });
    }
    return new mod.OAuthProvider(
      form as ResolvedOAuthForm,
      { http: ctx.http, serverUrl: ctx.serverUrl, defaultStore: ctx.state as TokenStore },
      mod.libs,
    );
  },
};
