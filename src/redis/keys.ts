/**
 * The key names. `${prefix}:{tag}:rest`: the part in braces is Redis Cluster's hash tag, so the
 * keys that one script or one lock touches together (a token and its lock; a server's lists)
 * are in one slot, and the stores run unchanged on Cluster and Valkey. Names and identities go
 * in as digests: a key never holds a principal's name, a server URL or a token.
 */
import { createHash } from "node:crypto";
import type { ListKey } from "../stores/lists.js";
import type { TokenKey } from "../stores/tokens.js";

export const digest = (...parts: unknown[]): string =>
  createHash("sha256").update(JSON.stringify(parts)).digest("base64url").slice(0, 22);

export class Keys {
  readonly #p: string;

  constructor(prefix: string) {
    this.#p = prefix;
  }

  get channel(): string {
    return `${this.#p}:fleet`;
  }

  token(k: TokenKey): string {
    return `${this.#p}:{t:${tokenTag(k)}}:tokens`;
  }

  tokenLock(k: TokenKey): string {
    return `${this.#p}:{t:${tokenTag(k)}}:lock`;
  }

  list(k: ListKey): string {
    return `${this.#p}:{l:${digest(k.server)}}:${k.kind}:${k.identity === null ? "public" : digest(k.identity)}`;
  }

  /** The claim of one listing: the lists' hash tag, so it lives in their slot. */
  listClaim(k: ListKey): string {
    return `${this.#p}:{l:${digest(k.server)}}:claim:${k.kind}:${k.identity === null ? "public" : digest(k.identity)}`;
  }

  eraClaim(serverKey: string): string {
    return `${this.#p}:{e:${digest(serverKey)}}:claim`;
  }

  era(serverKey: string): string {
    return `${this.#p}:{e:${digest(serverKey)}}`;
  }

  grants(serverId: string): string {
    return `${this.#p}:{g:${digest(serverId)}}:grants`;
  }

  budget(key: string): string {
    return `${this.#p}:{b:${digest(key)}}`;
  }
}

/** One tag per token key: its lock and its tokens share a slot. */
export const tokenTag = (k: TokenKey): string => digest(k.principal, k.issuer, k.resource);
