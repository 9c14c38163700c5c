import type { Tool } from "../shared/tool.js";
import { hexDigest } from "../util/hash.js";
import { stableJson } from "../util/stable-json.js";
import type { ToolDefinition } from "./types.js";

/**
 * The part of a tool a user approves: its name, title, description, input and output schema and
 * annotations. `_meta`, icons and `execution` are left out: they do not change what the user was
 * told the tool does. (The title is in because a UI shows it.)
 */
export function definitionOf(tool: Tool): ToolDefinition {
  const d: ToolDefinition = { name: tool.name, inputSchema: tool.inputSchema };
  if (tool.title !== undefined) d.title = tool.title;
  if (tool.description !== undefined) d.description = tool.description;
  if (tool.outputSchema !== undefined) d.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) d.annotations = tool.annotations as Record<string, unknown>;
  return d;
}

/** SHA-256 (hex) over the canonical JSON (keys sorted) of a tool's definition. */
export function toolDigest(definition: ToolDefinition): string {
  return hexDigest("sha256", stableJson(definition));
}
