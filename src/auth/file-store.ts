import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Secret } from "../shared/secret.js";
import { storeKey } from "./memory-store.js";
import type { StoredClient, StoredTokens, TokenEndpointAuthMethod, TokenKey, TokenStore } from "./types.js";

interface FileEntry {
  accessToken: string;
  refreshToken?: string;
  tokenType: "Bearer" | "DPoP";
  expiresAt?: number;
  scope?: string;
  client?: { clientId: string; clientSecret?: string; tokenEndpointAuthMethod: TokenEndpointAuthMethod };
}

const METHODS = new Set(["client_secret_basic", "client_secret_post", "none", "private_key_jwt"]);

/**
 * Tokens in one JSON file, readable by its owner only (mode 0600, its folder 0700): the CLI's
 * store, so `conduit-mcp login` once serves later commands. Writes go to a temporary file that is
 * renamed over the old one, so a crash never leaves half a file. DPoP-bound tokens are not kept
 * (their key lives in memory only).
 */
export class FileTokenStore implements TokenStore {
  readonly #path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string) {
    if (typeof path !== "string" || path.length === 0)
      throw new TypeError("FileTokenStore: path must be a string");
    this.#path = path;
  }

  get path(): string {
    return this.#path;
  }

  async get(key: TokenKey): Promise<StoredTokens | undefined> {
    const e = (await this.#read())[storeKey(key)];
    return e ? fromEntry(e) : undefined;
  }

  set(key: TokenKey, tokens: StoredTokens): Promise<void> {
    return this.#update((all) => {
      if (tokens.tokenType === "DPoP") delete all[storeKey(key)];
      else all[storeKey(key)] = toEntry(tokens);
    });
  }

  delete(key: TokenKey): Promise<void> {
    return this.#update((all) => {
      delete all[storeKey(key)];
    });
  }

  /** Deletes every entry whose resource is `resource` (for `logout`); resolves with how many. */
  async deleteResource(resource: string): Promise<number> {
    let n = 0;
    await this.#update((all) => {
      for (const k of Object.keys(all)) {
        try {
          const parts = JSON.parse(k) as unknown[];
          if (parts[2] === resource) {
            delete all[k];
            n++;
          }
        } catch {}
      }
    });
    return n;
  }

  async #read(): Promise<Record<string, FileEntry>> {
    let text: string;
    try {
      text = await readFile(this.#path, "utf8");
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return {};
      throw err;
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
      const out: Record<string, FileEntry> = {};
      for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
        if (isEntry(v)) out[k] = v;
      }
      return out;
    } catch {
      return {};
    }
  }

  #update(change: (all: Record<string, FileEntry>) => void): Promise<void> {
    const run = this.#queue.then(async () => {
      const all = await this.#read();
      change(all);
      await mkdir(dirname(this.#path), { recursive: true, mode: 0o700 });
      const tmp = `${this.#path}.${process.pid}.tmp`;
      await writeFile(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
      await chmod(tmp, 0o600);
      await rename(tmp, this.#path);
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  toJSON(): { path: string } {
    return { path: this.#path };
  }
}

function isEntry(v: unknown): v is FileEntry {
  if (typeof v !== "object" || v === null) return false;
  const e = v as Record<string, unknown>;
  if (typeof e.accessToken !== "string" || (e.tokenType !== "Bearer" && e.tokenType !== "DPoP")) return false;
  if (e.client !== undefined) {
    const c = e.client as Record<string, unknown>;
    if (typeof c !== "object" || c === null || typeof c.clientId !== "string") return false;
    if (!METHODS.has(c.tokenEndpointAuthMethod as string)) return false;
  }
  return true;
}

function toEntry(t: StoredTokens): FileEntry {
  return {
    accessToken: t.accessToken.reveal(),
    ...(t.refreshToken ? { refreshToken: t.refreshToken.reveal() } : {}),
    tokenType: t.tokenType,
    ...(t.expiresAt !== undefined ? { expiresAt: t.expiresAt } : {}),
    ...(t.scope !== undefined ? { scope: t.scope } : {}),
    ...(t.client
      ? {
          client: {
            clientId: t.client.clientId,
            ...(t.client.clientSecret ? { clientSecret: t.client.clientSecret.reveal() } : {}),
            tokenEndpointAuthMethod: t.client.tokenEndpointAuthMethod,
          },
        }
      : {}),
  };
}

function fromEntry(e: FileEntry): StoredTokens {
  const client: StoredClient | undefined = e.client
    ? {
        clientId: e.client.clientId,
        ...(typeof e.client.clientSecret === "string"
          ? { clientSecret: new Secret(e.client.clientSecret) }
          : {}),
        tokenEndpointAuthMethod: e.client.tokenEndpointAuthMethod,
      }
    : undefined;
  return {
    accessToken: new Secret(e.accessToken),
    ...(typeof e.refreshToken === "string" ? { refreshToken: new Secret(e.refreshToken) } : {}),
    tokenType: e.tokenType,
    ...(typeof e.expiresAt === "number" ? { expiresAt: e.expiresAt } : {}),
    ...(typeof e.scope === "string" ? { scope: e.scope } : {}),
    ...(client ? { client } : {}),
  };
}
