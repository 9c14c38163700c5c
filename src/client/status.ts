/** `Client.status()`: the connection's state and the session's era, read without I/O. */
import type { Connection } from "../connection/connection.js";
import type { Session } from "../protocol/negotiator.js";
import type { ClientStatus } from "./types.js";

export function clientStatus(conn: Connection<Session>): ClientStatus {
  const s = conn.session;
  const reason = conn.reason;
  const status: ClientStatus = {
    state: conn.state,
    era: s?.era ?? null,
    version: s?.version ?? null,
    reason: reason ? reason.message : null,
  };
  // Only when modern was tried and given up (absent, not undefined, otherwise).
  if (s?.era === "legacy" && s.fallbackReason !== undefined) status.fallbackReason = s.fallbackReason;
  return status;
}
