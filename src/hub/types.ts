/** The hub's public shapes: its tools, listings, status and change events. */
import type { CallableTool } from "../client/tool-caller.js";
import type { ToolFilterOptions } from "../client/tool-filter.js";
import type { ClientStatus } from "../client/types.js";
import type { ServerListing, ToolsChangeReason } from "./server-slot.js";

/** One tool behind the hub: its public (qualified) name, its server, its definition. */
export type HubTool = CallableTool;

/** `hub.listTools()` options: a deadline per server, `refresh`, and filters over the whole list. */
export interface HubListOptions extends ToolFilterOptions<HubTool> {
  /** Milliseconds each server gets. Default: the hub's `listTimeout`. */
  timeout?: number;
  signal?: AbortSignal;
  /** Bypass the servers' fresh cached lists. */
  refresh?: boolean;
}

export interface HubListing {
  tools: HubTool[];
  servers: Record<string, ServerListing>;
}

export interface HubStatus {
  servers: Record<string, ClientStatus>;
}

/** What `onToolsChanged` listeners hear. */
export interface ToolsChange {
  serverId: string;
  reason: ToolsChangeReason;
}

export interface ServerInstructions {
  serverId: string;
  /** Sanitised, clamped (see `Client.instructionsForLlm`). */
  instructions: string;
}
