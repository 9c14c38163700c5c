import type { CheckedReason, ErrorKind } from "./error-reasons.js";
import { sanitizeText } from "./sanitize.js";
import { redactSecrets, redactValue } from "./secret.js";

// The kinds are the reason table's keys (error-reasons.ts); they are named here too, beside the
// error they classify, where the rest of src/ imports them from.
export { ERROR_KINDS, type ErrorKind } from "./error-reasons.js";

/**
 * A short, machine-readable code such as `"server_exited"`, always a string (the codes of each
 * kind are listed in `ERROR_REASONS`); structured details sit beside it, in `detail`.
 */
export type ErrorReason = string;

/** A JSON-RPC error the server answered (`protocol` / `jsonrpc_error`): its code. */
export interface JsonRpcDetail {
  jsonrpc: number;
}

/** Who refused a call (`denied` / `denied_by_policy`, `approval_required`, `denied_by_approver`, `denied_by_hook`). */
export interface DenialDetail {
  by: "policy" | "approver" | "hook";
  /** The index of the policy rule that matched, when one did. */
  rule?: number;
  /** The operator's text: the rule's `reason`, the approver's or the hook's words. */
  reason?: string;
}

/** Which governance callback failed (`hook` / `threw`, `timeout`, `malformed`, ...). */
export interface HookDetail {
  phase: "before" | "after" | "policy" | "approve" | "grants";
  /** The hook's index among `beforeCall` or `afterCall`. */
  hook?: number;
}

/** Why a tool schema cannot be strict (`protocol` / `strict_schema_unsupported`), and which tool. */
export interface StrictSchemaDetail {
  strict_schema: string;
  tool: string;
}

/** An optional package that is not installed (`unavailable` / `dependency_missing`). */
export interface DependencyDetail {
  package: string;
  /** The command that installs it, such as `"npm install ai"`. */
  install: string;
}

/** A hub's server that is down (`unavailable` / `server_down`): which, and the failure that took it down. */
export interface ServerDownDetail {
  server: string;
  /** The failure's safe message, such as `"transport: command_not_found"`. */
  failure: string;
}

/** The structured details an error may carry, by kind; a `closed` error keeps its failure's. */
export interface ErrorDetails {
  transport: DependencyDetail;
  protocol: JsonRpcDetail | StrictSchemaDetail;
  denied: DenialDetail;
  hook: HookDetail;
  unavailable: DependencyDetail | ServerDownDetail;
  closed: ErrorDetail;
}

export type ErrorDetail =
  | JsonRpcDetail
  | DenialDetail
  | HookDetail
  | StrictSchemaDetail
  | DependencyDetail
  | ServerDownDetail;

/** The details `kind` may carry; `never` (none) for the other kinds. */
export type DetailOf<K extends ErrorKind> = K extends keyof ErrorDetails ? ErrorDetails[K] : never;

const MAX_REASON_CHARS = 160;

/** Reasons and details are ours, short; scrub them anyway, since a careless one could carry a secret. */
function redactDetail(detail: ErrorDetail | undefined): ErrorDetail | undefined {
  if (detail === undefined) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (v !== undefined) out[k] = typeof v === "string" ? redactSecrets(v) : v;
  }
  return Object.freeze(out) as unknown as ErrorDetail;
}

/** `key=value` pairs; a value with a space is quoted. */
function renderDetail(detail: ErrorDetail | undefined): string {
  if (detail === undefined) return "";
  return Object.entries(detail)
    .map(([k, v]) => {
      const text = String(v);
      return `${k}=${/\s/.test(text) ? JSON.stringify(text) : text}`;
    })
    .join(" ");
}

/**
 * The one error class the client rejects with. `kind` says what happened, `reason` the code a
 * program can branch on, `detail` the structured details of some codes (ours, never server text),
 * `data` optional context (it may hold server content, so `message` never renders it). `message`
 * is `"<kind>: <reason>"` and the detail as `key=value`, sanitised, truncated and with secrets redacted,
 * so it is safe to log. `data` is a copy scrubbed of every live secret's value (a server may
 * echo a credential into an error's data or a challenge) and nested at most 32 levels deep.
 */
class ClientError extends Error {
  override readonly name = "McpClientError";
  readonly kind: ErrorKind;
  readonly reason: ErrorReason | null;
  /** Structured details beside `reason`: a JSON-RPC code, who refused, a missing package, ... */
  declare readonly detail?: ErrorDetail;
  /** Optional context. Not enumerable, so `console.log(error)` does not print server content. */
  declare readonly data: unknown;

  constructor(
    kind: ErrorKind,
    reason: ErrorReason | null = null,
    data?: unknown,
    options?: { cause?: unknown; detail?: ErrorDetail | undefined },
  ) {
    const safeReason = reason === null ? null : redactSecrets(reason);
    const safeDetail = redactDetail(options?.detail);
    const told = [safeReason ?? "", renderDetail(safeDetail)].filter(Boolean).join(" ");
    const shown = sanitizeText(told, { maxLength: MAX_REASON_CHARS });
    super(
      shown ? `${kind}: ${shown}` : kind,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.kind = kind;
    this.reason = safeReason;
    if (safeDetail !== undefined) (this as { detail?: ErrorDetail }).detail = safeDetail;
    Object.defineProperty(this, "data", {
      value: data === undefined ? undefined : redactValue(data),
      enumerable: false,
      writable: false,
      configurable: false,
    });
  }

  /**
   * The server's own words for a JSON-RPC error it answered (`kind: "protocol"`, reason
   * `jsonrpc_error`), such as `"Tool nope not found"`; for an error that wraps one (a
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
  toJSON(): { kind: ErrorKind; reason: ErrorReason | null; detail?: ErrorDetail; message: string } {
    return {
      kind: this.kind,
      reason: this.reason,
      ...(this.detail === undefined ? {} : { detail: this.detail }),
      message: this.message,
    };
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
    options?: { cause?: unknown; detail?: DetailOf<K> | undefined },
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

/** `data.message` of a JSON-RPC error the server answered: where the library keeps it. */
function ownServerMessage(err: McpClientError): string | undefined {
  if (jsonRpcCode(err) === undefined) return undefined;
  const data = err.data;
  if (typeof data !== "object" || data === null) return undefined;
  const message = (data as { message?: unknown }).message;
  return typeof message === "string" && message.trim().length > 0 ? message : undefined;
}

/** The JSON-RPC error code the server answered with (`protocol` / `jsonrpc_error`), if any. */
export function jsonRpcCode(error: unknown): number | undefined {
  // A `closed` error keeps the detail of the refusal that closed it.
  if (!(error instanceof McpClientError) || error.detail === undefined) return;
  const code = (error.detail as Partial<JsonRpcDetail>).jsonrpc;
  return typeof code === "number" ? code : undefined;
}

/**
 * An optional peer dependency that could not be loaded: `unavailable` / `dependency_missing`, the
 * package and the command that installs it in `detail` (so in `message`), the loader's error as
 * `cause`. Made where the package is first needed, never at the import of conduit-mcp.
 */
export function dependencyMissing(pkg: string, cause: unknown): McpClientError {
  return new McpClientError("unavailable", "dependency_missing", undefined, {
    cause,
    detail: { package: pkg, install: `npm install ${pkg}` },
  });
}
