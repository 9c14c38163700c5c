/**
 * `call <tool> [json]`: calls a tool and prints its result; exit 1 when the tool reported an
 * error. A tool the server does not have is one rule, however the server says so.
 */
import { type Client, McpClientError, sanitizeText, type ToolResult } from "../../index.js";
import { EXIT } from "../common.js";
import { Failure } from "../failure.js";
import { renderToolResult, toolResultJson } from "../render.js";
import type { Requester } from "../requester.js";
import type { Answer, CommandModule, CommandOf } from "./command.js";
import { unlisted } from "./listing.js";

export const call: CommandModule<CommandOf<"call">> = {
  async client(client, { command, request }) {
    let result: ToolResult;
    try {
      result = await request((o) => client.callTool(command.tool, command.arguments, o));
    } catch (err) {
      if (McpClientError.is(err, "protocol"))
        throw (await unknownTool(client, command.tool, request, err)) ?? err;
      throw err;
    }
    if (result.isError) {
      const unknown = await unknownTool(client, command.tool, request, result);
      if (unknown) throw new Failure(unknown, { serverText: resultText(result) });
    }
    return answer(result);
  },
  async hub(hub, { command, span, signal }) {
    try {
      return answer(await hub.callTool(command.tool, command.arguments, { timeout: span.left(), signal }));
    } catch (err) {
      if (McpClientError.is(err, "not_found")) {
        const hint =
          "no listed tool has that name; run 'tools' for the qualified names (mcp__<server>__<tool>)";
        throw new Failure(err, { hint });
      }
      throw err;
    }
  },
};

function answer(result: ToolResult): Answer {
  return {
    json: toolResultJson(result),
    human: renderToolResult(result),
    exitCode: result.isError ? EXIT.toolError : EXIT.ok,
    ...(result.isError ? { note: "the tool reported an error (isError)" } : {}),
  };
}

/**
 * One rule for a tool the server does not have, however the server says so (a JSON-RPC error
 * in one, an `isError` result in another): a client error, `not_found: unknown_tool`, exit 3.
 * Asked only after a failed call, so a working call costs no listing.
 */
async function unknownTool(
  client: Client,
  name: string,
  request: Requester,
  failure: McpClientError | ToolResult,
): Promise<McpClientError | null> {
  if (!(await unlisted(client, "tools", name, request))) return null;
  return new McpClientError(
    "not_found",
    "unknown_tool",
    undefined,
    failure instanceof McpClientError ? { cause: failure } : undefined,
  );
}

/** The first text block of an `isError` result, as the server's own words for a failure. */
function resultText(result: ToolResult): string | undefined {
  for (const block of result.content) {
    const b = block as { type?: unknown; text?: unknown };
    if (b.type === "text" && typeof b.text === "string" && b.text.trim()) {
      return sanitizeText(b.text, { maxLength: 200 });
    }
  }
  return undefined;
}
