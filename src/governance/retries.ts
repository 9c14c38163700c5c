import { McpClientError } from "../shared/errors.js";

/** The Codex seed's backoff: 100 ms, 200 ms, 400 ms, ... capped at 5 000 ms (`retry` counts from 0). */
export function sendAgainAfter(retry: number): number {
  return Math.min(5_000, 100 * 2 ** Math.max(0, retry));
}

/** Reasons given only where nothing was written (a transport that was not running, a full queue). */
const NOT_SENT_REASONS = new Set(["not_connected", "max_in_flight", "max_queued"]);

/**
 * Whether a failed attempt certainly did not run, so sending it again cannot run it twice:
 * refused before sending (`overloaded`; a transport not connected; a TCP connect refused, which
 * the HTTP transport marks `data.sent: false`), or an HTTP 429 (the server refused it unread).
 * Everything else (a timeout, a transport failure after sending, a JSON-RPC error) may have run.
 */
export function certainlyNotRun(err: unknown): boolean {
  if (!(err instanceof McpClientError)) return false;
  if (err.kind === "overloaded") return true;
  if (err.kind === "rate_limited") return err.reason === "http_429";
  if (err.kind !== "transport") return false;
  if (typeof err.reason === "string" && NOT_SENT_REASONS.has(err.reason)) return true;
  const data = err.data as { sent?: unknown } | undefined;
  return data?.sent === false;
}

/**
 * Whether an opted-in (idempotent) call may be sent again after `err`: any failure to get an
 * answer but the caller's and the policy's own (refusals, hooks, a closed client, bad options).
 */
export function retryableWhenIdempotent(err: unknown): boolean {
  if (!(err instanceof McpClientError)) return false;
  switch (err.kind) {
    case "timeout":
    case "transport":
    case "overloaded":
    case "rate_limited":
    case "connection_down":
    case "unavailable":
    case "session_expired":
      return true;
    default:
      return false;
  }
}

/** Milliseconds a 429 asks to wait (`Retry-After`), or null when it did not say. */
export function retryAfterMs(err: unknown): number | null {
  if (!McpClientError.is(err, "rate_limited")) return null;
  const s = (err.data as { retryAfter?: unknown } | undefined)?.retryAfter;
  return typeof s === "number" && Number.isFinite(s) && s >= 0 ? s * 1000 : null;
}
