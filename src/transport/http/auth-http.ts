/**
 * The HTTP function the transport lends its auth provider for metadata, registration and token
 * requests: the same URL policy (`publicOnly` vets every host), TLS settings, redirect rule,
 * timeout (`requestTimeout`, covering the whole body) and a size cap as the MCP requests, so an
 * authorization server gets no more latitude than the MCP server.
 */
import type { Dispatcher } from "undici";
import { isLoopbackHost } from "../../security/url-policy.js";
import { McpClientError } from "../../shared/errors.js";
import type { AuthHttp, AuthHttpRequest, AuthHttpResponse } from "../credentials.js";
import { discard, readCapped } from "./body.js";
import { firstHeader, type Headers } from "./headers.js";
import { HTTP_DEFAULTS, type ResolvedHttpOptions } from "./options.js";

/** Metadata and token answers are small: at most this much, or `maxMessageBytes` if smaller. */
export const AUTH_BODY_CAP = 1024 * 1024;

export interface AuthHttpDeps {
  options: ResolvedHttpOptions;
  /** The dispatcher for any origin (the MCP pool reaches one origin only). */
  dispatcher(): Dispatcher;
  /** Vets a URL's host under `publicOnly` (absent under `"any"`). */
  vet: ((url: URL) => Promise<void>) | undefined;
}

function target(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new McpClientError("auth", "invalid_endpoint_url");
  }
  if (url.username || url.password) throw new McpClientError("auth", "invalid_endpoint_url");
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:" && isLoopbackHost(url.hostname)) return url;
  throw new McpClientError("auth", "insecure_endpoint_url");
}

export function createAuthHttp(deps: AuthHttpDeps): AuthHttp {
  const o = deps.options;
  const cap = Math.min(o.maxMessageBytes, AUTH_BODY_CAP);
  return async (req: AuthHttpRequest): Promise<AuthHttpResponse> => {
    let url = target(req.url);
    url.hash = "";
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), o.requestTimeout);
    try {
      for (let hop = 0; ; hop++) {
        if (deps.vet) await deps.vet(url);
        let res: Dispatcher.ResponseData;
        try {
          res = await deps.dispatcher().request({
            origin: url.origin,
            path: url.pathname + url.search,
            method: req.method,
            headers: { ...req.headers, ...(req.body !== undefined ? {} : {}) },
            body: req.body,
            signal: controller.signal,
            headersTimeout: 0,
            bodyTimeout: 0,
          });
        } catch (err) {
          if (controller.signal.aborted) throw new McpClientError("timeout", "auth_request_timeout");
          const code = (err as { code?: unknown }).code;
          throw new McpClientError("transport", "network_error", {
            code: typeof code === "string" ? code : null,
          });
        }
        const headers = res.headers as Headers;
        if (res.statusCode >= 300 && res.statusCode < 400) {
          discard(res.body);
          const next =
            o.redirect === "same-origin" && (res.statusCode === 307 || res.statusCode === 308)
              ? sameOrigin(firstHeader(headers.location), url)
              : undefined;
          if (next && hop < HTTP_DEFAULTS.maxRedirects) {
            url = next;
            continue;
          }
          throw new McpClientError("transport", "redirect_not_followed", { status: res.statusCode });
        }
        let body: Buffer;
        try {
          body = await readCapped(res.body, headers, cap);
        } catch (err) {
          if (controller.signal.aborted) throw new McpClientError("timeout", "auth_request_timeout");
          throw err;
        }
        return { status: res.statusCode, headers, body };
      }
    } finally {
      clearTimeout(timer);
    }
  };
}

function sameOrigin(location: string | undefined, base: URL): URL | undefined {
  if (!location) return undefined;
  try {
    const next = new URL(location, base);
    if (next.origin !== base.origin || next.username || next.password) return undefined;
    next.hash = "";
    return next;
  } catch {
    return undefined;
  }
}
