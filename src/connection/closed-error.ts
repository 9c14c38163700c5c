import { McpClientError } from "../shared/errors.js";

/**
 * What a request to a closed connection is refused with. `reason` is why it closed (null, or
 * `userClosed`: the caller closed it, so `client_closed`).
 */
export function closedError(reason: McpClientError | null, userClosed: boolean): McpClientError {
  if (!reason || userClosed) return new McpClientError("closed", "client_closed");
  // Refused credentials are the caller's to act on (OAuth, a new token): they keep their kind,
  // status and challenges.
  if (reason.kind === "auth")
    return new McpClientError("auth", reason.reason, reason.data, { cause: reason });
  // The cause's reason and detail (a JSON-RPC code such as -32022), so a program can tell why;
  // a transport failure's data is the client's own account (an exit's code, signal and last
  // stderr lines, a missing package), so it comes along.
  const data = reason.kind === "transport" ? reason.data : undefined;
  return new McpClientError("closed", reason.reason ?? reason.kind, data, {
    cause: reason,
    detail: reason.detail,
  });
}
