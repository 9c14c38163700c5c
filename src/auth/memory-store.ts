import type { StoredTokens, TokenKey, TokenStore } from "./types.js";

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
