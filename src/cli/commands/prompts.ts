/** `prompts`: one line per prompt, its usage and description; none when the server offers none. */
import { EXIT } from "../common.js";
import { renderPrompts, withoutServerId } from "../render.js";
import type { CommandModule, CommandOf } from "./command.js";
import { offered } from "./listing.js";

export const prompts: CommandModule<CommandOf<"prompts">> = {
  async client(client, { request }) {
    const prompts = await offered(client, "prompts", () => request((o) => client.listAllPrompts(o)));
    if (prompts === null) {
      return { json: { prompts: [] }, human: "(no prompts: the server offers none)\n", exitCode: EXIT.ok };
    }
    return {
      json: { prompts: prompts.map(withoutServerId) },
      human: renderPrompts(prompts),
      exitCode: EXIT.ok,
    };
  },
};
