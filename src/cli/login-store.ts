/**
 * Where `conduit-mcp login` keeps tokens, and the auth form later `--url` commands use when it
 * has kept some for their server. Separate from login.ts so the shared CLI code can read it
 * without importing the login command.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { resourceMatches } from "../auth/discovery.js";
import { FileTokenStore } from "../auth/file-store.js";
import { oauth } from "../auth/oauth.js";
import type { HttpAuth } from "../index.js";
import { McpClientError } from "../shared/errors.js";

export const CALLBACK_PATH = "/callback";

/** Where the CLI keeps tokens. */
export function tokenFile(env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (env.CONDUIT_MCP_TOKENS) return env.CONDUIT_MCP_TOKENS;
  const base = env.XDG_CONFIG_HOME || join(homedir(), ".config");
  return join(base, "conduit-mcp", "tokens.json");
}

/** The resources the token file holds tokens for (read synchronously: it decides a client's options). */
export function storedResources(path: string): string[] {
  try {
    const all = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
    return Object.keys(all).flatMap((k) => {
      try {
        const r = (JSON.parse(k) as unknown[])[2];
        return typeof r === "string" ? [r] : [];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/**
 * The auth form for a `--url` command when `login` stored tokens for that server: they are used
 * and refreshed; a server that wants a new authorization gets `kind: "auth"`, reason
 * `login_required` (run login again).
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
