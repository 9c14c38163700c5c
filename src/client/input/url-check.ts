/**
 * URL elicitation: the client never fetches or opens the URL. It only checks that the URL may be
 * shown (an absolute `https` URL without user info) and computes the warnings a UI should show.
 */

export interface UrlFacts {
  /** The URL as the server sent it. */
  url: string;
  /** The host name (what the user should read before deciding). */
  host: string;
  /** True when a label of the host is punycode (`xn--`): it may imitate another name. */
  idn: boolean;
  /** True unless the URL has the server's origin; always true when that origin is unknown. */
  originMismatch: boolean;
}

const MAX_URL = 8192;

/** The facts of an acceptable URL, or why it is refused (answered `-32602`). */
export function checkElicitationUrl(
  raw: unknown,
  serverOrigin: string | null,
): UrlFacts | { invalid: string } {
  if (typeof raw !== "string" || raw.length === 0) return { invalid: "url must be a string" };
  if (raw.length > MAX_URL) return { invalid: "url is too long" };
  // Whitespace and control characters have no place in a URL a user is asked to trust.
  if (/[\u0000-\u0020\u007F-\u009F]/.test(raw))
    return { invalid: "url has whitespace or control characters" };
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { invalid: "url is not an absolute URL" };
  }
  if (u.protocol !== "https:") return { invalid: "url must use https" };
  if (u.username !== "" || u.password !== "") return { invalid: "url must not carry user info" };
  if (u.hostname === "") return { invalid: "url has no host" };
  const host = u.hostname;
  const idn = host.split(".").some((label) => label.toLowerCase().startsWith("xn--"));
  return { url: raw, host, idn, originMismatch: serverOrigin === null || u.origin !== serverOrigin };
}
