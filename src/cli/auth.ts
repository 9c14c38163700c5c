/**
 * Every credential the CLI hands an HTTP transport, in one place: `--bearer-env`'s token, the
 * tokens `conduit-mcp login` kept (used and refreshed by later `--url` commands), and login's own
 * interactive OAuth flow. The library's `auth` option is built nowhere else.
 */
import { resourceMatches } from "../auth/discovery.js";
import { FileTokenStore, type HttpAuth, McpClientError, oauth, type Secret } from "../index.js";
import { CALLBACK_PATH, storedResources, tokenFile } from "./login-store.js";

/** `--bearer-env VAR`: the variable's value as a bearer token. */
export function bearerAuth(token: Secret): HttpAuth {
  return { bearer: token };
}

/**
 * The auth for a `--url` command when `login` stored tokens for that server: they are used and
 * refreshed; a server that wants a new authorization gets `kind: "auth"`, reason
 * `login_required` (run login again). Undefined when none are stored.
 */
export function storedLoginAuth(
  url: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): HttpAuth | undefined {
  const path = tokenFile(env);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  if (!storedResources(path).some((r) => resourceMatches(r, target))) return undefined;
  return oauth({
    store: new FileTokenStore(path),
    redirectUri: `http://127.0.0.1${CALLBACK_PATH}`,
    redirect: () => {
      throw new McpClientError("auth", "login_required");
    },
  });
}

/** `conduit-mcp login`: the authorization a person runs, tokens kept in `store`. */
export function loginAuth(o: {
  store: FileTokenStore;
  redirectUri: string;
  clientName: string;
  /** Shows the authorization URL; resolves with the redirect's full URL. */
  redirect: (authorizationUrl: string) => Promise<string>;
}): HttpAuth {
  return oauth({
    store: o.store,
    redirectUri: o.redirectUri,
    clientName: o.clientName,
    redirect: o.redirect,
  });
}
