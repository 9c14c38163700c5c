import type { CheckedReason } from "./error-reasons.js";
import { sanitizeText } from "./sanitize.js";
import { redactSecrets, redactValue } from "./secret.js";

/** Every way a request can fail. Match on it; the message is for logs. */
export type ErrorKind =
  | "timeout"
  | "transport"
  | "protocol"
  | "denied"
  | "not_found"
  | "hook"
  | "unavailable"
  | "closed"
  | "overloaded"
  | "input_handler"
  | "auth"
  | "rate_limited"
  | "session_expired"
  | "mrtr_round_limit"
  | "pagination_cycle"
  | "message_too_large"
  | "connection_down";

export const ERROR_KINDS: readonly ErrorKind[] = [
  "timeout",
  "transport",
  "protocol",
  "denied",
  "not_found",
  "hook",
  "unavailable",
  "closed",
  "overloaded",
  "input_handler",
  "auth",
  "rate_limited",
  "session_expired",
  "mrtr_round_limit",
  "pagination_cycle",
  "message_too_large",
  "connection_down",
];

/**
 * A short, machine-readable detail: a string code such as `"server_exited"` (the codes of each
 * kind are listed in `ERROR_REASONS`), or `{ jsonrpc: code }` for a JSON-RPC error answered by
 * the server, or a small object of codes.
 */
export type ErrorReason = string | { jsonrpc: number } | Readonly<Record<string, string | number | boolean>>;

const MAX_REASON_CHARS = 160;

/** Reasons are ours, short codes; scrub them anyway, since a careless one could carry a secret. */
function redactReason(reason: ErrorReason | null): ErrorReason | null {
  if (reason === null) return null;
  if (typeof reason === "string") return redactSecrets(reason);
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(reason)) out[k] = typeof v === "string" ? redactSecrets(v) : v;
  return out as ErrorReason;
}

function renderReason(reason: ErrorReason | null): string {
  if (reason === null) return "";
  if (typeof reason === "string") return reason;
  return Object.entries(reason)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(" ");
}

/**
 * The one error class the client rejects with. `kind` says what happened, `reason` the detail a
 * program can branch on, `data` optional context (it may hold server content, so `message` never
 * renders it). `message` is `"<kind>: <reason>"`, sanitised, truncated and with secrets redacted,
 * so it is safe to log. `data` is a copy scrubbed of every live secret's value (a server may
 * echo a credential into an error's data or a challenge) and nested at most 32 levels deep.
 */
class ClientError extends Error {
  override readonly name = "McpClientError";
  readonly kind: ErrorKind;
  readonly reason: ErrorReason | null;
  /** Optional context. Not enumerable, so `console.log(error)` does not print server content. */
  declare readonly data: unknown;

  constructor(
    kind: ErrorKind,
    reason: ErrorReason | null = null,
    data?: unknown,
    options?: { cause?: unknown },
  ) {
    const safeReason = redactReason(reason);
    const detail = sanitizeText(renderReason(safeReason), { maxLength: MAX_REASON_CHARS });
    super(detail ? `${kind}: ${detail}` : kind, options?.cause === undefined ? undefined : options);
    this.kind = kind;
    this.reason = safeReason;
    Object.defineProperty(this, "data", {
      value: data === undefined ? undefined : redactValue(data),
      enumerable: false,
      writable: false,
      configurable: false,
    });
  }

  /**
   * The server's own words for a JSON-RPC error it answered (`kind: "protocol"` with a
   * `{ jsonrpc }` reason), such as `"Tool nope not found"`; for an error that wraps one (a
   * `closed` after a refused handshake), the wrapped error's. Sanitised to one line, clamped to
   * `maxLength` characters, with every live `Secret` value redacted; `undefined` when there is
   * none. It is server text: `message` and `toJSON()` never include it, so show it as such.
   */
  serverMessage(maxLength = DEFAULT_SERVER_MESSAGE_CHARS): string | undefined {
    if (!Number.isSafeInteger(maxLength) || maxLength < 1) {
      throw new TypeError('conduit-mcp: "maxLength" must be a positive whole number');
    }
    for (let err: unknown = this, depth = 0; err instanceof ClientError && depth < 4; depth++) {
      const said = err.kind === "protocol" ? ownServerMessage(err) : undefined;
      if (said !== undefined) return redactSecrets(sanitizeText(said, { maxLength }));
      err = err.cause;
    }
    return undefined;
  }

  /** Never serialise `data` or the stack: they may hold server content. */
  toJSON(): { kind: ErrorKind; reason: ErrorReason | null; message: string } {
    return { kind: this.kind, reason: this.reason, message: this.message };
  }

  static is(value: unknown, kind?: ErrorKind): value is McpClientError {
    return value instanceof ClientError && (kind === undefined || value.kind === kind);
  }
}

/**
 * `McpClientError`'s constructor, typed so that a string reason must be one `ERROR_REASONS` lists
 * for `kind`: an unlisted one fails to compile ("Expected 5 arguments", the missing one named
 * `reason_not_listed_for_kind`). A class constructor cannot take type parameters, hence the
 * interface over the class.
 */
export interface McpClientErrorConstructor {
  new <K extends ErrorKind, R extends ErrorReason | null = null>(
    kind: K,
    reason?: R,
    data?: unknown,
    options?: { cause?: unknown },
    ...unlisted: [R] extends [CheckedReason<K, R>] ? [] : [reason_not_listed_for_kind: never]
  ): McpClientError;
  readonly prototype: McpClientError;
  is(value: unknown, kind?: ErrorKind): value is McpClientError;
}

// The class is what runs; its name stays the public one (stack traces, util.inspect).
Object.defineProperty(ClientError, "name", { value: "McpClientError" });

export type McpClientError = ClientError;
export const McpClientError: McpClientErrorConstructor = ClientError as McpClientErrorConstructor;

const DEFAULT_SERVER_MESSAGE_CHARS = 200;

/** `data.message` of an error whose reason is a JSON-RPC code: where the library keeps it. */
function ownServerMessage(err: McpClientError): string | undefined {
  if (jsonRpcCode(err) === undefined) return undefined;
  const data = err.data;
  if (typeof data !== "object" || data === null) return undefined;
  const message = (data as { message?: unknown }).message;
  return typeof message === "string" && message.trim().length > 0 ? message : undefined;
}

/** The JSON-RPC error code inside a `protocol` error's reason, if it has one. */
export function jsonRpcCode(error: unknown): number | undefined {
  if (!(error instanceof McpClientError) || error.reason === null || typeof error.reason !== "object") return;
  const code = (error.reason as { jsonrpc?: unknown }).jsonrpc;
  return typeof code === "number" ? code : undefined;
}
