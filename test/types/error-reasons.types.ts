// Compiled by `tsc` in `npm test` (typecheck), never run: a string reason must be one
// ERROR_REASONS lists for the error's kind. Each @ts-expect-error fails the typecheck if the
// line below it compiles.
import { type ErrorReason, McpClientError, type ReasonCode } from "../../src/index.js";

declare const status: number;
declare const computed: string;
declare const passedOn: ErrorReason;

export const listed = [
  new McpClientError("not_found", "unknown_tool"),
  new McpClientError("transport", `http_${status}`),
  new McpClientError("auth", status === 401 ? "unauthorized" : "forbidden"),
  new McpClientError("protocol", "jsonrpc_error", undefined, { detail: { jsonrpc: -32602 } }),
  new McpClientError("hook", "malformed", undefined, { detail: { phase: "before" } }),
  new McpClientError("closed", "server_exited"), // a closed client keeps its failure's reason
  new McpClientError("closed"),
  new McpClientError("auth", computed), // known only at run time: not checkable
  new McpClientError("closed", passedOn), // another error's reason, passed on
];

export const unlisted = [
  // @ts-expect-error misspelt
  new McpClientError("not_found", "unknwn_tool"),
  // @ts-expect-error a code of another kind
  new McpClientError("timeout", "server_exited"),
  // @ts-expect-error one branch misspelt
  new McpClientError("auth", status === 401 ? "unauthorized" : "forbiden"),
  // @ts-expect-error a detail this kind does not carry
  new McpClientError("timeout", "deadline_exceeded", undefined, { detail: { jsonrpc: -32602 } }),
  // @ts-expect-error a detail of another kind
  new McpClientError("denied", "denied_by_policy", undefined, { detail: { phase: "before" } }),
];

const code: ReasonCode<"overloaded"> = "max_in_flight";
// @ts-expect-error not an overloaded code
const wrong: ReasonCode<"overloaded"> = "max_inflight";

export { code, wrong };

// A template with a string in it is known only at run time too.
export const templated = new McpClientError("transport", `token ${computed} refused`);

// ErrorKind is the table's keys: a union of the kinds, not `string`.
export const aKind: import("../../src/index.js").ErrorKind = "connection_down";
// @ts-expect-error a reason, not a kind
export const notAKind: import("../../src/index.js").ErrorKind = "connection_lost";
