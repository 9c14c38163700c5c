/**
 * DNS-rebinding checks for a local HTTP server: a page on another site can make a browser send
 * requests to 127.0.0.1 under its own host name, so the `Host` header must name a host the
 * server was bound for, and a browser's `Origin`, when sent, must be one of those too.
 */

/** The host names a server bound to `host` answers to (loopback binds: every loopback name). */
export function allowedHostNames(host: string, extra: readonly string[] = []): Set<string> {
  const names = new Set<string>(extra.map((h) => h.toLowerCase()));
  if (isLoopbackHost(host)) for (const h of ["127.0.0.1", "localhost", "[::1]", "::1"]) names.add(h);
  else names.add(bracketed(host.toLowerCase()));
  return names;
}

/** Whether `host` (a bind address or a host name) is a loopback one. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

const bracketed = (h: string) => (h.includes(":") && !h.startsWith("[") ? `[${h}]` : h);

/** The host part of a `Host` header (`name:port`, `[v6]:port`), lower case; null when malformed. */
export function hostOf(header: string | undefined): string | null {
  if (typeof header !== "string" || header.length === 0 || header.length > 300) return null;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(header.trim());
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * `"ok"` when the request's `Host` is one of `allowed` and its `Origin` (when present) is an
 * http(s) origin whose host is one of `allowed`; else why not (`"host"` or `"origin"`).
 */
export function checkRequestOrigin(
  headers: { host?: string | undefined; origin?: string | undefined },
  allowed: ReadonlySet<string>,
): "ok" | "host" | "origin" {
  const host = hostOf(headers.host);
  if (host === null || !allowed.has(host)) return "host";
  if (headers.origin === undefined) return "ok";
  let url: URL;
  try {
    url = new URL(headers.origin);
  } catch {
    return "origin";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "origin";
  return allowed.has(url.hostname.toLowerCase()) ? "ok" : "origin";
}
