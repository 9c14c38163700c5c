/** `prompt <name> [json]`: gets a prompt; one the server does not have is `not_found: unknown_prompt`. */
import { type Client, McpClientError } from "../../index.js";
import { EXIT } from "../common.js";
import { renderPromptResult, withoutResultType } from "../render.js";
import type { Requester } from "../requester.js";
import type { CommandModule, CommandOf } from "./command.js";
import { unlisted } from "./listing.js";

export const prompt: CommandModule<CommandOf<"prompt">> = {
  async client(client, { command, request }) {
    let got: Awaited<ReturnType<Client["getPrompt"]>>;
    try {
      got = await request((o) => client.getPrompt(command.prompt, command.arguments, o));
    } catch (err) {
      if (McpClientError.is(err, "protocol"))
        throw (await unknownPrompt(client, command.prompt, request, err)) ?? err;
      throw err;
    }
    const result = withoutResultType(got);
    return { json: result, human: renderPromptResult(result), exitCode: EXIT.ok };
  },
};

/**
 * A prompt the server does not have (its -32602 also means missing arguments, so the listing
 * decides): `not_found: unknown_prompt`, the server's error as cause.
 */
async function unknownPrompt(
  client: Client,
  name: string,
  request: Requester,
  failure: McpClientError,
): Promise<McpClientError | null> {
  if (!(await unlisted(client, "prompts", name, request))) return null;
  return new McpClientError("not_found", "unknown_prompt", undefined, { cause: failure });
}
