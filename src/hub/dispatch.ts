/** A routed call on its way to its server, through the server's governor when it has one. */
import type { Task } from "../client/tasks.js";
import type { CallToolOptions, ToolResult } from "../client/types.js";
import type { GovernedCall, Governor } from "../governance/governor.js";
import type { InContext } from "../telemetry/open-telemetry.js";
import type { ServerSlot } from "./server-slot.js";
import type { Route } from "./tool-index.js";

/** A governed server's governor and its call defaults (principal, timeout). */
export interface Governed {
  governor: Governor;
  principal: string | null;
  timeout: number;
}

/**
 * THE place a routed call reaches a server: governance wraps this, and nothing else in the hub
 * calls a server's tool.
 */
export function dispatch(
  slot: ServerSlot,
  route: Route,
  args: Record<string, unknown> | undefined,
  options: CallToolOptions,
  governed: Governed | undefined,
  inCaller: InContext,
): Promise<ToolResult | Task> {
  if (!governed) return slot.client.callTool(route.toolName, args, options);
  const { governor, principal, timeout } = governed;
  if (options.task === "return" && governor.hasAfterHooks)
    throw new TypeError('conduit-mcp: task: "return" would hand back a task that afterCall hooks never see');
  const call: GovernedCall = {
    serverId: slot.id,
    name: route.toolName,
    arguments: args ?? {},
    principal: options.principal ?? principal,
    context: Object.freeze({ ...(options.context ?? {}) }),
    retry: options.retry ?? null,
    timeout: options.timeout ?? timeout,
    signal: options.signal,
    // The definition the hub listed and routed by (listed again when its server said it changed).
    lookup: async () => route.tool,
  };
  // Each attempt starts after the governor's awaits (policy, approval, hooks, retry pauses).
  return governor.run(call, (a, at) =>
    inCaller(() => slot.client.callTool(route.toolName, a, { ...options, timeout: at.timeout })),
  );
}
