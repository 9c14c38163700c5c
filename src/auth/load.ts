/**
 * The one door from the transport into the OAuth machinery. The flows and their libraries
 * (`oauth4webapi`, `jose`) are loaded here, on first use, so importing conduit-mcp costs nothing
 * for clients that never use an OAuth form.
 */
import { McpClientError } from "../shared/errors.js";
import type { ResolvedOAuthForm } from "./options.js";
import type { ProviderContext } from "./provider.js";
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

export async function createAuthProvider(
  form: ResolvedOAuthForm,
  ctx: ProviderContext,
): Promise<OAuthAuthProvider> {
  let mod: Awaited<ReturnType<typeof load>>;
  try {
    mod = await load();
  } catch (err) {
    loading = undefined;
    throw new McpClientError("auth", "oauth_dependencies_missing", undefined, { cause: err });
  }
  return new mod.OAuthProvider(form, ctx, mod.libs);
}
