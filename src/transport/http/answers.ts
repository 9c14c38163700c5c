/**
 * How an HTTP answer that is not a usable response becomes an `McpClientError` (the seed's
 * "Answers" table). A server's body never reaches an error message: a JSON-RPC error's text is
 * kept, sanitised, in `data` only.
 */
import type { Dispatcher } from "undici";
import { McpClientError } from "../../shared/errors.js";
import { setOwn } from "../../shared/keys.js";
import { sanitizeText } from "../../shared/sanitize.js";
import { redactSecrets } from "../../shared/secret.js";
import { discard, readSmall } from "./body.js";
import { firstHeader, type Headers, type HeaderValue } from "./headers.js";

/** One parsed `WWW-Authenticate` challenge. */
export interface AuthChallenge {
  scheme: string;
  /** `name=value` parameters, names in lower case. */
  params: Record<string, string>;
  /** The token68 form (`Negotiate abc==`), when used. */
  token68?: string;
}

const MAX_CHALLENGES = 16;
const MAX_PARAM_CHARS = 1024;

const TOKEN_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const TOKEN68_RE = /^[A-Za-z0-9\-._~+/]+=*/;

/**
 * Parses `WWW-Authenticate` (RFC 9110 11.6.1): challenges separated by commas, each a scheme
 * followed by a token68 or by `name=value` / `name="quoted"` parameters. Lenient: it keeps what
 * it could read; values are sanitised and clamped.
 */
export function parseChallenges(header: HeaderValue): AuthChallenge[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  const out: AuthChallenge[] = [];
  for (const value of values) {
    let s = value;
    let current: AuthChallenge | undefined;
    const skip = () => {
      s = s.replace(/^[\s,]+/, "");
    };
    skip();
    while (s.length > 0 && out.length <= MAX_CHALLENGES) {
      const tok = TOKEN_RE.exec(s);
      if (!tok) break;
      const word = tok[0];
      const rest = s.slice(word.length);
      const afterWs = rest.replace(/^\s*/, "");
      if (current && afterWs.startsWith("=") && !afterWs.startsWith("==")) {
        // A parameter of the current challenge.
        s = afterWs.slice(1).replace(/^\s*/, "");
        let val: string;
        if (s.startsWith('"')) {
          let i = 1;
          let buf = "";
          while (i < s.length && s[i] !== '"') {
            if (s[i] === "\\" && i + 1 < s.length) i++;
            buf += s[i];
            i++;
          }
          val = buf;
          s = s.slice(i + 1);
        } else {
          const m = TOKEN_RE.exec(s);
          val = m ? m[0] : "";
          s = s.slice(val.length);
        }
        if (Object.keys(current.params).length < 32) {
          setOwn(current.params, word.toLowerCase(), sanitizeText(val, { maxLength: MAX_PARAM_CHARS }));
        }
        skip();
        continue;
      }
      // A new challenge: the scheme, maybe followed by a token68.
      current = { scheme: sanitizeText(word, { maxLength: 64 }), params: {} };
      out.push(current);
      s = rest;
      const ws = /^\s+/.exec(s);
      if (ws) {
        const after = s.slice(ws[0].length);
        const t68 = TOKEN68_RE.exec(after);
        if (t68) {
          const tail = after.slice(t68[0].length).replace(/^\s*/, "");
          const isParam = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=[^=]/.test(after) && !t68[0].endsWith("=");
          if (!isParam && (tail === "" || tail.startsWith(","))) {
            current.token68 = sanitizeText(t68[0], { maxLength: MAX_PARAM_CHARS });
            s = tail;
          } else {
            s = after;
          }
        } else {
          s = after;
        }
      }
      skip();
    }
  }
  return out.slice(0, MAX_CHALLENGES);
}

/**
 * `Retry-After` as whole seconds from now (a delay or an HTTP date), or null when it is neither.
 * A delay too large for a safe integer is clamped to `Number.MAX_SAFE_INTEGER`. Only the three
 * HTTP date forms (each starts with a day name) are read as dates: `Date.parse` would take "-1".
 */
export function parseRetryAfter(header: HeaderValue, now = Date.now()): number | null {
  const v = firstHeader(header)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Math.min(Number(v), Number.MAX_SAFE_INTEGER);
  if (!/^[A-Za-z]{3}/.test(v)) return null;
  const t = Date.parse(v);
  if (Number.isNaN(t)) return null;
  return Math.max(0, Math.ceil((t - now) / 1000));
}

/** The error object of a JSON-RPC error body, if `body` is one. */
export function jsonRpcErrorIn(
  body: string | undefined,
): { code: number; message: string; data?: unknown } | undefined {
  if (!body) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 1) parsed = parsed[0];
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const m = parsed as Record<string, unknown>;
  if (m.jsonrpc !== "2.0") return undefined;
  const e = m.error as Record<string, unknown> | undefined;
  if (typeof e !== "object" || e === null || typeof e.code !== "number" || !Number.isInteger(e.code)) {
    return undefined;
  }
  return {
    code: e.code,
    message: typeof e.message === "string" ? e.message : "",
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}

/**
 * The error for a final HTTP status that is not a usable answer (never 2xx, never a redirect we
 * followed). `body` is the (capped) body of a 4xx answer, read only to find a JSON-RPC error.
 */
export function answerError(status: number, headers: Headers, body: string | undefined): McpClientError {
  if (status === 401 || status === 403) {
    return new McpClientError("auth", status === 401 ? "unauthorized" : "forbidden", {
      status,
      challenges: parseChallenges(headers["www-authenticate"]),
    });
  }
  if (status === 429) {
    return new McpClientError("rate_limited", "http_429", {
      status,
      retryAfter: parseRetryAfter(headers["retry-after"]),
    });
  }
  if (status >= 400 && status < 500) {
    const rpc = jsonRpcErrorIn(body);
    if (rpc) {
      return new McpClientError(
        "protocol",
        "jsonrpc_error",
        {
          status,
          message: redactSecrets(sanitizeText(rpc.message, { maxLength: 1024 })),
          // Scrubbed of secrets by McpClientError, as all data is.
          ...(rpc.data !== undefined ? { data: rpc.data } : {}),
        },
        { detail: { jsonrpc: rpc.code } },
      );
    }
    return new McpClientError("transport", `http_${status}`, { status });
  }
  if (status >= 300 && status < 400) {
    return new McpClientError("transport", "redirect_not_followed", { status });
  }
  return new McpClientError("transport", `http_${status}`, { status });
}

/** JSON-RPC codes a modern (2026-07-28) server answers a request it refused with. */
export const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([-32020, -32021, -32022, -32601]);

/** Error bodies are read only this far, to find a JSON-RPC error. */
const ERROR_BODY_CAP = 64 * 1024;

/**
 * The typed error of an answer that is not the one wanted (a 4xx body is read, up to `cap` and
 * 64 KiB, for a JSON-RPC error).
 */
export async function errorOf(
  res: Dispatcher.ResponseData,
  cap: number,
  within?: number,
): Promise<McpClientError> {
  const status = res.statusCode;
  const headers = res.headers as Headers;
  if (status >= 200 && status < 300) {
    discard(res.body);
    return new McpClientError("transport", "unexpected_content_type", { status });
  }
  if (status >= 400 && status < 500) {
    return answerError(
      status,
      headers,
      await readSmall(res.body, headers, Math.min(cap, ERROR_BODY_CAP), within),
    );
  }
  discard(res.body);
  return answerError(status, headers, undefined);
}
