/**
 * The credentials seam: how the client (setAuth, the cache's private lists) and, next, an OAuth
 * provider reach the credentials a transport sends, without knowing which transport it is.
 *
 * A transport that carries credentials exposes `credentials`; one that carries none leaves it
 * out. The source of the credentials is the transport's business (a bearer, a function called
 * per request, or a provider): the seam only says who they are, counts changes, and replaces them.
 */
export interface TransportCredentials {
  /**
   * Whose credentials go out: `null` for none, a string naming them (a digest such as
   * `sha256:<hex>` or `id:<credentialId>`, never a token), `undefined` when it cannot be known
   * (a function without a declared id).
   */
  readonly identity: string | null | undefined;
  /**
   * Counts replacements: a result fetched across one (its pages sent with different
   * credentials) belongs to nobody, and the cache keeps nothing of it.
   */
  readonly generation: number;
  /**
   * Replaces the credentials for every request from now on. `auth` is the transport's own form
   * (HTTP: `{ bearer }`, a function, or null); `credentialId` names a function's credentials.
   * Throws a `TypeError` for a form it does not accept, as its constructor does.
   */
  replace(auth: unknown, options?: { credentialId?: string }): void;
}
