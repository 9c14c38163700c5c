import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import { isObject, isValidDiscoverResult, looksLikeDiscoverResult } from "../shared/guards.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import { MODERN_VERSIONS, type ModernVersion } from "../shared/versions.js";

/** How a `server/discover` probe ended. */
export type ProbeOutcome = { result: Record<string, unknown> } | { error: unknown };

/**
 * What the probe says about the server:
 * - `modern`: a valid `DiscoverResult` with a mutual modern version (`version`).
 * - `rediscover`: `-32022` naming a mutual modern version; discover again with it, never fall back.
 * - `legacy`: legacy evidence; run the `initialize` handshake.
 * - `reconnect`: the server went away mid-probe (stdio); the next attempt starts with `initialize`.
 * - `retry`: a passing failure (HTTP 408/429/5xx, network, timeout); reconnect and probe again.
 * - `error`: the connection closes with `error`.
 */
export type ProbeVerdict =
  | { verdict: "modern"; version: ModernVersion }
  | { verdict: "rediscover"; version: ModernVersion }
  | { verdict: "legacy" }
  | { verdict: "reconnect" }
  | { verdict: "retry"; error: McpClientError }
  | { verdict: "error"; error: McpClientError };

/** The first modern version we speak that `supported` lists, if any. */
export function mutualModern(supported: unknown): ModernVersion | undefined {
  if (!Array.isArray(supported)) return undefined;
  return MODERN_VERSIONS.find((v) => supported.includes(v));
}

/**
 * Classifies a probe by the seed's table. Pure, so the table can be tested row by row; the
 * transport kind decides what counts as legacy evidence (HTTP: a 400/404/405 without a modern
 * body, or -32601; every other transport, stdio and in-process included: any other JSON-RPC
 * error or a timeout).
 */
export function classifyProbe(transportKind: string, outcome: ProbeOutcome): ProbeVerdict {
  if ("result" in outcome) {
    const r = outcome.result;
    if (!isObject(r) || !looksLikeDiscoverResult(r)) return { verdict: "legacy" };
    if (!isValidDiscoverResult(r)) {
      return { verdict: "error", error: new McpClientError("protocol", "invalid_discover_result") };
    }
    const version = mutualModern(r.supportedVersions);
    if (version) return { verdict: "modern", version };
    return { verdict: "error", error: new McpClientError("protocol", "no_mutual_version") };
  }

  const err = outcome.error;
  const code = jsonRpcCode(err);
  if (code === ErrorCodes.unsupportedProtocolVersion) {
    const data = ((err as McpClientError).data as { data?: unknown } | undefined)?.data;
    const version = mutualModern(isObject(data) ? data.supported : undefined);
    if (version) return { verdict: "rediscover", version };
    return { verdict: "error", error: new McpClientError("protocol", "unsupported_protocol_version") };
  }
  if (code === ErrorCodes.missingRequiredClientCapability || code === ErrorCodes.headerMismatch) {
    return { verdict: "error", error: err as McpClientError };
  }

  if (transportKind !== "http") {
    if (code !== undefined) return { verdict: "legacy" };
    if (McpClientError.is(err, "timeout")) return { verdict: "legacy" };
    if (McpClientError.is(err, "transport") || McpClientError.is(err, "message_too_large")) {
      return { verdict: "reconnect" };
    }
    return { verdict: "error", error: asError(err) };
  }

  // HTTP rows.
  if (code === ErrorCodes.methodNotFound) return { verdict: "legacy" };
  if (McpClientError.is(err, "auth")) return { verdict: "error", error: err };
  const status = httpStatus(err);
  // A 400/404/405 whose body is not a modern error (the modern codes were handled above): a
  // legacy server refusing a request without a session (-32000 from the official SDKs) or a path.
  if (status !== undefined && [400, 404, 405].includes(status)) return { verdict: "legacy" };
  if (
    McpClientError.is(err, "timeout") ||
    McpClientError.is(err, "rate_limited") ||
    (McpClientError.is(err, "transport") &&
      (status === undefined || status === 408 || status === 429 || status >= 500))
  ) {
    return { verdict: "retry", error: err as McpClientError };
  }
  if (code !== undefined) return { verdict: "error", error: err as McpClientError };
  return { verdict: "error", error: asError(err) };
}

function httpStatus(err: unknown): number | undefined {
  if (!(err instanceof McpClientError) || !isObject(err.data)) return undefined;
  const s = err.data.status;
  return typeof s === "number" ? s : undefined;
}

function asError(err: unknown): McpClientError {
  return err instanceof McpClientError
    ? err
    : new McpClientError("protocol", "probe_failed", undefined, { cause: err });
}
