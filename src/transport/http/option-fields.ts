/**
 * The HTTP options that are more than a number or a switch: the URL, the extra headers (never
 * one the transport owns), the TLS settings (nothing that weakens verification), a dispatcher.
 * Checked without I/O; each throws an `OptionError` naming the key.
 */
import type { Dispatcher } from "undici";
import { OptionError } from "../../shared/option-error.js";
import { type MaybeSecret, Secret } from "../../shared/secret.js";
import { checkObject, fail, isPlainObject, optOneOf, optString } from "../../util/option-check.js";

/** RFC 9110 `token`: a header field name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Header values we send: visible ASCII, space and tab. */
const FIELD_VALUE = /^[\x20-\x7e\t]*$/;
/** Headers the transport owns (lower case); `mcp-*` is refused as a prefix. */
const OWN_HEADERS = new Set([
  "accept",
  "accept-encoding",
  "authorization",
  "content-type",
  "content-length",
  "host",
  "last-event-id",
  // hop-by-hop (RFC 9110 7.6.1 and the classic list)
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

export function resolveUrl(v: unknown, path: string): URL {
  const s = optString(v, path);
  if (s === undefined) fail(path, "an absolute http or https URL");
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    fail(path, "an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail(path, "an http or https URL");
  if (url.username !== "" || url.password !== "") fail(path, "a URL without user info");
  if (url.hash !== "" || s.includes("#")) fail(path, "a URL without a fragment");
  if (url.hostname === "") fail(path, "a URL with a host");
  return url;
}

/** One empty list and one empty TLS record for every transport given none (never mutated). */
const NO_HEADERS: Array<[string, MaybeSecret]> = [];
const NO_TLS: Record<string, unknown> = {};

export function resolveHeaders(v: unknown, path: string): Array<[string, MaybeSecret]> {
  if (v === undefined) return NO_HEADERS;
  const pairs: unknown[] = Array.isArray(v)
    ? v
    : isPlainObject(v)
      ? Object.entries(v)
      : fail(path, "an object or a list of [name, value] pairs");
  const out: Array<[string, MaybeSecret]> = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    if (!Array.isArray(pair) || pair.length !== 2) fail(path, "a list of [name, value] pairs");
    const [name, value] = pair as [unknown, unknown];
    if (typeof name !== "string" || !TOKEN.test(name)) fail(path, "keyed by valid header names");
    const lower = name.toLowerCase();
    if (OWN_HEADERS.has(lower) || lower.startsWith("mcp-")) {
      fail(
        `${path}.${name}`,
        "a header the transport does not own (accept, authorization, mcp-*...)",
        "reserved",
      );
    }
    if (seen.has(lower)) fail(`${path}.${name}`, "given once");
    seen.add(lower);
    if (typeof value !== "string" && !(value instanceof Secret))
      fail(`${path}.${name}`, "a string or a Secret");
    const text = value instanceof Secret ? value.reveal() : value;
    if (!FIELD_VALUE.test(text)) fail(`${path}.${name}`, "visible ASCII, space and tab");
    out.push([lower, value]);
  }
  return out;
}

const BUFFERISH = (v: unknown): boolean => typeof v === "string" || Buffer.isBuffer(v);
const TLS_VERSIONS = ["TLSv1.2", "TLSv1.3"] as const;

export function resolveTls(v: unknown, path: string): Record<string, unknown> {
  if (v === undefined) return NO_TLS;
  const o = checkObject(v, path);
  const allowed = [
    "ca",
    "cert",
    "key",
    "pfx",
    "passphrase",
    "crl",
    "servername",
    "minVersion",
    "maxVersion",
    "ciphers",
    "ecdhCurve",
    "sigalgs",
    "rejectUnauthorized",
  ];
  for (const key of Object.keys(o)) {
    if (key === "checkServerIdentity" || key === "secureOptions" || key === "secureProtocol") {
      fail(`${path}.${key}`, "absent (it can weaken certificate verification)");
    }
    if (!allowed.includes(key)) throw new OptionError(`${path}.${key}`, "unknown");
  }
  const out: Record<string, unknown> = {};
  for (const key of ["ca", "cert", "key", "pfx", "crl"]) {
    const val = o[key];
    if (val === undefined) continue;
    if (!(BUFFERISH(val) || (Array.isArray(val) && val.every(BUFFERISH)))) {
      fail(`${path}.${key}`, "a string, a Buffer or a list of them");
    }
    out[key] = val;
  }
  if (o.passphrase !== undefined) {
    if (typeof o.passphrase !== "string" && !(o.passphrase instanceof Secret)) {
      fail(`${path}.passphrase`, "a string or a Secret");
    }
    out.passphrase = o.passphrase;
  }
  for (const key of ["servername", "ciphers", "ecdhCurve", "sigalgs"]) {
    const s = optString(o[key], `${path}.${key}`);
    if (s !== undefined) out[key] = s;
  }
  const min = optOneOf(o.minVersion, `${path}.minVersion`, TLS_VERSIONS);
  if (min) out.minVersion = min;
  const max = optOneOf(o.maxVersion, `${path}.maxVersion`, TLS_VERSIONS);
  if (max) out.maxVersion = max;
  if (o.rejectUnauthorized !== undefined && o.rejectUnauthorized !== true) {
    fail(`${path}.rejectUnauthorized`, "true (use insecureSkipTlsVerify for local development)");
  }
  return out;
}

export function isDispatcher(v: unknown): v is Dispatcher {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as Dispatcher).dispatch === "function" &&
    typeof (v as Dispatcher).request === "function"
  );
}
