/**
 * The token store: where OAuth tokens live, keyed `{ principal, issuer, resource }`. The in-memory
 * store is the default; a fleet shares one (conduit-mcp/redis) so a rotating refresh token is
 * spent once, by one worker.
 */
import type { Secret } from "../shared/secret.js";

/** Where a set of tokens is stored: one user (`principal`) at one authorization server for one MCP server. */
export interface TokenKey {
  /** Who the tokens act for. Default `"default"`. Another principal is another identity. */
  principal: string;
  /** The authorization server's `issuer`. */
  issuer: string;
  /** The MCP server's resource identifier, exactly as its protected resource metadata publishes it. */
  resource: string;
}

export type TokenEndpointAuthMethod =
  | "client_secret_basic"
  | "client_secret_post"
  | "none"
  | "private_key_jwt";

/** The client registration the tokens were obtained with (bound to the key's issuer). */
export interface StoredClient {
  clientId: string;
  clientSecret?: Secret;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
}

/** What a store keeps under a {@link TokenKey}. */
export interface StoredTokens {
  accessToken: Secret;
  refreshToken?: Secret;
  /** `"Bearer"` or `"DPoP"` (a DPoP-bound token needs the key that is kept in memory only). */
  tokenType: "Bearer" | "DPoP";
  /** Epoch milliseconds; absent when the server said nothing (the token is used until refused). */
  expiresAt?: number;
  /** The scopes asked for (space separated), so a step-up asks for their union with the new ones. */
  scope?: string;
  /** The registration that obtained them, so a later process can refresh. */
  client?: StoredClient;
}

/**
 * A pluggable token store. Calls may be synchronous or return promises. The library keeps no
 * token anywhere else except in memory while it uses it; refreshing writes under the same key.
 */
export interface TokenStore {
  get(key: TokenKey): StoredTokens | undefined | Promise<StoredTokens | undefined>;
  set(key: TokenKey, tokens: StoredTokens): void | Promise<void>;
  delete(key: TokenKey): void | Promise<void>;
  /**
   * Optional: one refresh for everyone sharing the store. Called with the tokens found stale;
   * resolves with tokens newer than `stale` (another holder's, or what `refresh` made under a
   * lock), or undefined when there are none. Without it the provider refreshes on its own and
   * writes with `set`.
   */
  refreshOnce?(
    key: TokenKey,
    stale: StoredTokens,
    refresh: (current: StoredTokens) => Promise<StoredTokens>,
  ): Promise<StoredTokens | undefined>;
}

/** The key as one string: its parts JSON-encoded, so no separator can be smuggled into a part. */
export function storeKey(key: TokenKey): string {
  return JSON.stringify([key.principal, key.issuer, key.resource]);
}

/** The default store: a map in this process, gone when it exits. */
export class MemoryTokenStore implements TokenStore {
  readonly #map = new Map<string, StoredTokens>();

  get(key: TokenKey): StoredTokens | undefined {
    return this.#map.get(storeKey(key));
  }

  set(key: TokenKey, tokens: StoredTokens): void {
    this.#map.set(storeKey(key), tokens);
  }

  delete(key: TokenKey): void {
    this.#map.delete(storeKey(key));
  }

  /** Never prints a token. */
  toJSON(): { entries: number } {
    return { entries: this.#map.size };
  }
}
