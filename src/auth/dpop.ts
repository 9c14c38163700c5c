/**
 * DPoP (RFC 9449): one key pair per provider, held in memory (never stored), proving possession
 * on every token request (through oauth4webapi's handle, which tracks the AS's nonce) and on
 * every MCP request (proofs made here with `jose`, with the MCP server's nonce).
 */
import { createHash, randomUUID, type webcrypto } from "node:crypto";
import type * as Jose from "jose";
import type * as OAuth from "oauth4webapi";
import { Secret } from "../shared/secret.js";

export class DpopKey {
  readonly #jose: typeof Jose;
  readonly #keys: webcrypto.CryptoKeyPair;
  readonly #alg: string;
  readonly #jwk: Jose.JWK;
  readonly handle: OAuth.DPoPHandle;
  /** The MCP server's last `DPoP-Nonce` (RFC 9449 section 9), by origin. */
  readonly #rsNonces = new Map<string, string>();

  private constructor(
    jose: typeof Jose,
    keys: webcrypto.CryptoKeyPair,
    alg: string,
    jwk: Jose.JWK,
    handle: OAuth.DPoPHandle,
  ) {
    this.#jose = jose;
    this.#keys = keys;
    this.#alg = alg;
    this.#jwk = jwk;
    this.handle = handle;
  }

  static async create(jose: typeof Jose, oauth: typeof OAuth, alg: string): Promise<DpopKey> {
    const keys = (await jose.generateKeyPair(alg, { extractable: false })) as webcrypto.CryptoKeyPair;
    const jwk = await jose.exportJWK(keys.publicKey);
    return new DpopKey(jose, keys, alg, jwk, oauth.DPoP({}, keys));
  }

  /** Remembers a nonce the MCP server asked for; true when it is new (a retry may help). */
  setResourceNonce(url: string, nonce: string): boolean {
    if (!/^[\x21-\x7e]{1,512}$/.test(nonce)) return false;
    const origin = new URL(url).origin;
    if (this.#rsNonces.get(origin) === nonce) return false;
    this.#rsNonces.set(origin, nonce);
    return true;
  }

  /** A fresh proof for one MCP request carrying `accessToken` (`htu` without query or fragment). */
  async proof(method: string, url: string, accessToken: Secret): Promise<Secret> {
    const u = new URL(url);
    const htu = `${u.origin}${u.pathname}`;
    const nonce = this.#rsNonces.get(u.origin);
    const ath = createHash("sha256").update(accessToken.reveal(), "ascii").digest("base64url");
    const jwt = await new this.#jose.SignJWT({ htm: method, htu, ath, ...(nonce ? { nonce } : {}) })
      .setProtectedHeader({ typ: "dpop+jwt", alg: this.#alg, jwk: this.#jwk })
      .setJti(randomUUID())
      .setIssuedAt()
      .sign(this.#keys.privateKey);
    return new Secret(jwt);
  }
}
