import { McpClientError } from "../shared/errors.js";

/**
 * Transport failures that another attempt cannot mend: the operator's configuration is wrong.
 * Retrying them would only hide the mistake behind a timeout.
 */
const CONFIGURATION_FAULTS = new Set([
  "command_not_found",
  "command_not_executable",
  "cd_not_a_directory",
  "stderr_file_unwritable",
  "spawn_failed",
  "invalid_url",
]);

/**
 * Whether a failed connection attempt is worth another (after the backoff). A passing failure
 * is: the server went away, did not answer in time, a network error, HTTP 408/429/5xx. The
 * server's verdict is not: a protocol error, no mutual version, refused credentials.
 */
export function isRetryable(err: unknown): boolean {
  if (!(err instanceof McpClientError)) return false;
  switch (err.kind) {
    case "transport":
      return !(typeof err.reason === "string" && CONFIGURATION_FAULTS.has(err.reason));
    case "timeout":
    case "message_too_large":
    case "rate_limited":
    case "connection_down":
      return true;
    default:
      return false;
  }
}
