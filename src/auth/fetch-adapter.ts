/**
 * oauth4webapi speaks `fetch`; the OAuth layer's requests must go through the transport's own
 * HTTP function (its URL policy, caps, timeout and redirect rule). This adapter is the bridge:
 * a `customFetch` that sends through {@link AuthHttp} and hands back a `Response`.
 */
import type { AuthHttp, AuthHttpResponse } from "./types.js";

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: unknown; signal?: AbortSignal },
) => Promise<Response>;

export function fetchThrough(http: AuthHttp): FetchLike {
  return async (url, init) => {
    const method = init.method === "GET" ? "GET" : "POST";
    const body =
      init.body === undefined || init.body === null
        ? undefined
        : init.body instanceof URLSearchParams
          ? init.body.toString()
          : typeof init.body === "string"
            ? init.body
            : undefined;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(init.headers ?? {})) headers[k.toLowerCase()] = v;
    const res = await http({ url, method, headers, ...(body !== undefined ? { body } : {}) });
    return toResponse(res);
  };
}

/** Statuses `Response` refuses a body for. */
const NULL_BODY = new Set([101, 204, 205, 304]);

export function toResponse(res: AuthHttpResponse): Response {
  const h = new Headers();
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) {
      try {
        h.append(k, one);
      } catch {}
    }
  }
  const status = res.status >= 200 && res.status <= 599 ? res.status : 500;
  return new Response(NULL_BODY.has(status) ? null : new Uint8Array(res.body), { status, headers: h });
}
