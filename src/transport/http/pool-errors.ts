/** The errors the connection pool (pool.ts) fails a request with, as undici's own would read. */

/** The pool, or the request's lease, was closed. */
export function destroyedError(): Error {
  return Object.assign(new Error("the connection pool is closed"), { code: "UND_ERR_DESTROYED" });
}

/** The caller's signal fired while it waited for a connection (the caller knows from its signal). */
export function abortedError(): Error {
  return Object.assign(new Error("aborted while waiting for a connection"), { name: "AbortError" });
}
