import type { ListAllOptions } from "./lists.js";
import type { CallToolOptions, Tool, ToolResult } from "./types.js";

/**
 * One tool as an upper floor sees it: the name to call it by (a client's own tool name, or a
 * qualified `mcp__<server>__<tool>` name), the server it lives on, and its definition as admitted.
 */
export interface CallableTool {
  name: string;
  serverId: string;
  tool: Tool;
}

/**
 * The seam the hub, governance and the model adapters stand on: a plain `Client`, a governed one
 * and a `Hub` all list tools and call them by the listed name, so each can stand in for another.
 * (`Client.listTools` keeps its one-page meaning; this is the whole list.)
 */
export interface ToolCaller {
  listCallableTools(options?: ListAllOptions): Promise<CallableTool[]>;
  callTool(name: string, args?: Record<string, unknown>, options?: CallToolOptions): Promise<ToolResult>;
}
