import type { ReasonCode } from "../shared/error-reasons.js";
import { McpClientError } from "../shared/errors.js";

/** The OAuth error codes (RFC 6749, 6750, 9449, 8693) an AS or server may answer with. */
const OAUTH_ERROR = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * A failure of the OAuth flow: always `kind: "auth"` with a short code of ours. An authorization
 * server's answer contributes only its `error` code, when that is a plain OAuth error token; its
 * `error_description` and body never reach a message (they may echo a code or a secret).
 */
export function authError(
  reason: ReasonCode<"auth">,
  data?: Record<string, unknown>,
  cause?: unknown,
): McpClientError {
  return new McpClientError("auth", reason, data, cause === undefined ? undefined : { cause });
}

/** The `error` code of an OAuth error answer, or undefined when absent or not a plain token. */
export function oauthErrorCode(value: unknown): string | undefined {
  return typeof value === "string" && OAUTH_ERROR.test(value) ? value : undefined;
}
