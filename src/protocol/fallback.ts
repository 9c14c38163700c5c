/**
 * Why a client that tried the modern era (`server/discover`) settled on the legacy one, in plain
 * words for `ClientStatus.fallbackReason`: the probe's HTTP status or JSON-RPC error, its
 * timeout, or the era store's record. Only codes and numbers: a server's own error text is not
 * repeated (it is untrusted and may be long).
 */
import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import { isObject } from "../shared/guards.js";
import type { ProbeOutcome } from "./probe.js";

const CODE_NAMES: Record<number, string> = {
  [-32700]: "parse error",
  [-32600]: "invalid request",
  [-32601]: "method not found",
  [-32602]: "invalid params",
  [-32603]: "internal error",
  [-32000]: "server error",
};

/** The era store said legacy, so no probe was sent. */
export const FROM_ERA_RECORD =
  "the era store (stores.eras) records this server as legacy, so no probe was sent";

/** The server exited on an earlier probe: later connects start with `initialize`. */
export const EXITS_ON_PROBE =
  "the server exited when probed with server/discover, so later connects start with initialize";

/** The reason a probe that the table read as legacy evidence gives. */
export function probeFallbackReason(outcome: ProbeOutcome, timeout: number): string {
  if ("result" in outcome) return "server/discover answered with a result that is not a DiscoverResult";
  const err = outcome.error;
  if (McpClientError.is(err, "timeout")) return `no answer to server/discover within ${timeout} ms`;
  const code = jsonRpcCode(err);
  const rpc =
    code === undefined
      ? undefined
      : `JSON-RPC error ${code}${CODE_NAMES[code] ? ` (${CODE_NAMES[code]})` : ""}`;
  const data = err instanceof McpClientError && isObject(err.data) ? err.data : undefined;
  const status = typeof data?.status === "number" ? data.status : undefined;
  if (status !== undefined) return `server/discover got HTTP ${status}${rpc ? ` with ${rpc}` : ""}`;
  if (rpc) return `server/discover got ${rpc}`;
  return "server/discover failed";
}
