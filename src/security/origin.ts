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
  return hostAndPort(header)?.name ?? null;
}

/** A `Host` header's name (lower case) and port (80 when it names none); null when malformed. */
function hostAndPort(header: string | undefined): { name: string; port: number } | null {
  if (typeof header !== "string" || header.length === 0 || header.length > 300) return null;
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(header.trim());
  return m ? { name: m[1]!.toLowerCase(), port: m[2] === undefined ? 80 : Number(m[2]) } : null;
}

/**
 * Whether `name` at `port` is this server: one of `allowed`, and, for a loopback name, at the
 * port the server is bound to (another loopback port is another program). Any other allowed
 * name (a non-loopback bind, a reverse proxy's name) is matched by name: its port is the proxy's.
 */
function isThisServer(name: string, port: number, allowed: ReadonlySet<string>, bound: number): boolean {
  return allowed.has(name) && (port === bound || !isLoopbackHost(name));
}

/**
 * `"ok"` when the request's `Host` is one of `allowed` and its `Origin` (when present) is an
 * http(s) origin whose host is one of `allowed`, loopback names with the `bound` port; else why
 * not (`"host"` or `"origin"`). serve and inspect both check their requests with this.
 */
export function checkRequestOrigin(
  headers: { host?: string | undefined; origin?: string | undefined },
  allowed: ReadonlySet<string>,
  bound: number,
): "ok" | "host" | "origin" {
  const host = hostAndPort(headers.host);
  if (host === null || !isThisServer(host.name, host.port, allowed, bound)) return "host";
  if (headers.origin === undefined) return "ok";
  let url: URL;
  try {
    url = new URL(headers.origin);
  } catch {
    return "origin";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "origin";
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return isThisServer(url.hostname.toLowerCase(), port, allowed, bound) ? "ok" : "origin";
}
