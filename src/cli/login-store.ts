/**
 * Where `conduit-mcp login` keeps tokens, and which servers it keeps them for. Separate from the
 * login command so the shared CLI code (auth.ts) can read it without importing the command.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

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
