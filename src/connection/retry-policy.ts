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
  // An optional peer that is not installed stays missing until someone installs it.
  "official_server_missing",
]);

/**
 * The server ended before the client was ever ready with it: a stdio server that exited (a
 * misspelt package, a missing binary behind a launcher, a script that throws). Before the first
 * ready that is an answer, not a passing failure: starting it again would fail the same way.
 * Once the server was ready, the same failure is a crash worth a restart.
 */
const START_FAULTS = new Set(["server_exited"]);

/**
 * Whether a failed connection attempt is worth another (after the backoff). A passing failure
 * is: the server went away, did not answer in time, a network error, HTTP 408/429/5xx. The
 * server's verdict is not: a protocol error, no mutual version, refused credentials. `readyOnce`:
 * the connection was ready at least once; until then a server that ended (`START_FAULTS`) is final.
 */
export function isRetryable(err: unknown, readyOnce = true): boolean {
  if (!(err instanceof McpClientError)) return false;
  switch (err.kind) {
    case "transport": {
      const reason = typeof err.reason === "string" ? err.reason : "";
      if (CONFIGURATION_FAULTS.has(reason)) return false;
      return readyOnce || !START_FAULTS.has(reason);
    }
    case "timeout":
    case "message_too_large":
    case "rate_limited":
    case "connection_down":
      return true;
    default:
      return false;
  }
}
