/** `resources`: one line per resource, then the resource templates; none when the server offers none. */
import { EXIT } from "../common.js";
import { renderResources, withoutServerId } from "../render.js";
import type { CommandModule, CommandOf } from "./command.js";
import { listTemplates, offered } from "./listing.js";

export const resources: CommandModule<CommandOf<"resources">> = {
  async client(client, { request }) {
    const resources = await offered(client, "resources", () => request((o) => client.listAllResources(o)));
    if (resources === null) {
      return {
        json: { resources: [], resourceTemplates: [] },
        human: "(no resources: the server offers none)\n",
        exitCode: EXIT.ok,
      };
    }
    const templates = await request((o) => listTemplates(client, o));
    return {
      json: {
        resources: resources.map(withoutServerId),
        resourceTemplates: templates.map(withoutServerId),
      },
      human: renderResources(resources, templates),
      exitCode: EXIT.ok,
    };
  },
};
