/**
 * The inspector's gate: loopback binding, the token every request carries, and the Host and
 * Origin checks that stop DNS rebinding and cross-site requests. No option turns any of it off.
 * Host and Origin are checked by the same code as serve's (src/security/origin.ts).
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { allowedHostNames, checkRequestOrigin } from "../security/origin.js";

/** A `--host` that is not loopback. */
export class InspectHostError extends Error {
  readonly kind = "not_loopback";
  constructor(host: string) {
    super(
      `conduit-mcp: inspect binds loopback only (127.0.0.1, ::1, localhost), not ${JSON.stringify(host)}`,
    );
    this.name = "InspectHostError";
  }
}

const LOOPBACK: Record<string, string> = { "127.0.0.1": "127.0.0.1", "::1": "::1", localhost: "127.0.0.1" };

/** The address to bind for `host` (default 127.0.0.1); throws `InspectHostError` for any other. */
export function loopbackAddress(host = "127.0.0.1"): string {
  const address = LOOPBACK[host.toLowerCase().replace(/^\[(.*)\]$/, "$1")];
  if (address === undefined) throw new InspectHostError(host);
  return address;
}

/** 256 random bits, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

export const COOKIE = "conduit_inspect";

/**
 * The cookie of the inspector at `port`. Cookies are not kept per port: one name for every
 * inspector meant a second one (another `inspect` run) replaced the first's token in the browser,
 * and the first page's every request was refused from then on.
 */
export const cookieName = (port: number): string => `${COOKIE}_${port}`;

/** What a request to this server may name in Host and Origin: the loopback names, at the bound port. */
export interface BoundHosts {
  names: ReadonlySet<string>;
  port: number;
}

/** The hosts for `address` bound at `port` (port 0, before listening: nothing matches). */
export function allowedHosts(address: string, port: number): BoundHosts {
  return { names: allowedHostNames(address), port };
}

export type Refusal = { status: 401 | 403; reason: string };

/** Checks Host, Origin and the token; returns why the request is refused, or null. */
export function checkRequest(req: IncomingMessage, hosts: BoundHosts, token: string): Refusal | null {
  // Same-origin fetches may send Origin; anything else (or "null") is another site.
  const checked = checkRequestOrigin(req.headers, hosts.names, hosts.port);
  if (checked !== "ok") return { status: 403, reason: `${checked} not allowed` };
  const site = req.headers["sec-fetch-site"];
  if (site === "cross-site" || site === "same-site") return { status: 403, reason: "cross-site request" };
  const query = queryToken(req.url ?? "/");
  const given = query === null ? cookieTokens(req.headers.cookie, hosts.port) : [query];
  if (!given.some((t) => sameToken(t, token))) return { status: 401, reason: "token missing or wrong" };
  return null;
}

export function queryToken(url: string): string | null {
  // A request target URL cannot parse (`http://[`) has no token: thrown here, it would end the process.
  try {
    return new URL(url, "http://x").searchParams.get("token");
  } catch {
    return null;
  }
}

/** This port's cookie, and the unnumbered name (scripts and older pages send it), at most 8. */
function cookieTokens(header: string | undefined, port: number): string[] {
  if (!header) return [];
  const own = cookieName(port);
  const found: string[] = [];
  for (const part of header.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if ((name === own || name === COOKIE) && found.length < 8) found.push(value.join("="));
  }
  return found;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The cookie the first load sets: the page's later requests (assets, API, events) carry it. */
export function tokenCookie(token: string, port: number): string {
  return `${cookieName(port)}=${token}; HttpOnly; SameSite=Strict; Path=/`;
}

/** Sent with every answer, refusals included. */
export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
};
