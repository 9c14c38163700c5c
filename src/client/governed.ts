import type { GovernedCall, GovernedStats, Governor } from "../governance/governor.js";
import type { ListAllOptions } from "./lists.js";
import type { CallToolOptions, Tool } from "./types.js";

/** The governor as the client's tool calls see it (governance stands above the client). */
export type { GovernedStats, Governor };

/**
 * A `callTool` as the governor takes it. The principal comes from the call's options or the
 * client's `principal` option, never from the arguments (a model writes those).
 */
export function governedCall(
  name: string,
  args: Record<string, unknown>,
  opts: CallToolOptions,
  client: {
    serverId: string;
    principal: string | null;
    requestTimeout: number;
    listAllTools(options?: ListAllOptions): Promise<Tool[]>;
  },
): GovernedCall {
  return {
    serverId: client.serverId,
    name,
    arguments: args,
    principal: opts.principal ?? client.principal,
    context: Object.freeze({ ...(opts.context ?? {}) }),
    retry: opts.retry ?? null,
    timeout: opts.timeout ?? client.requestTimeout,
    signal: opts.signal,
    // The definition the policy and the approver judge: the listing (cached while fresh), asked
    // again once when the tool is not in it (a tool added since).
    lookup: async (o) => {
      const find = (tools: Tool[]) => tools.find((t) => t.name === name);
      return find(await client.listAllTools(o)) ?? find(await client.listAllTools({ ...o, refresh: true }));
    },
  };
}
