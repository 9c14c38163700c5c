/** `read <uri>`: the resource's contents; a resource the server does not have is `not_found: unknown_resource`. */
import { type Client, McpClientError } from "../../index.js";
import { EXIT } from "../common.js";
import { renderReadResult, withoutResultType } from "../render.js";
import type { CommandModule, CommandOf } from "./command.js";

export const read: CommandModule<CommandOf<"read">> = {
  async client(client, { command, request }) {
    let read: Awaited<ReturnType<Client["readResource"]>>;
    try {
      read = await request((o) => client.readResource(command.uri, o));
    } catch (err) {
      throw (McpClientError.is(err, "protocol") && unknownResource(err)) || err;
    }
    const result = withoutResultType(read);
    return { json: result, human: renderReadResult(result), exitCode: EXIT.ok };
  },
};

/** JSON-RPC codes a server answers an unknown resource with: -32602 (2026-07-28), -32002 (before). */
const RESOURCE_NOT_FOUND = new Set([-32602, -32002]);

/**
 * A resource the server does not have, as the unknown tool rule says it: `not_found:
 * unknown_resource`, the server's error as cause. The spec has a server answer a missing
 * resource with -32602 (earlier -32002), and a read takes no other params to be invalid.
 */
function unknownResource(err: McpClientError): McpClientError | null {
  const code = err.detail !== undefined && "jsonrpc" in err.detail ? err.detail.jsonrpc : undefined;
  if (code === undefined || !RESOURCE_NOT_FOUND.has(code)) return null;
  return new McpClientError("not_found", "unknown_resource", undefined, { cause: err });
}
