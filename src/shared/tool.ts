/**
 * The tool vocabulary every floor shares: a tool as listed, its hints, and a call's result.
 * Here, below the client, so governance and the hub name them without importing the client.
 */
import type { ContentBlock } from "./content.js";
import type { JsonObject } from "./guards.js";

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** A tool as listed by a server, stamped with the operator's `serverId`. */
export interface Tool {
  serverId: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  icons?: JsonObject[];
  execution?: { taskSupport?: "forbidden" | "optional" | "required"; [key: string]: unknown };
  /** The definition's `_meta`. */
  meta?: JsonObject;
  [key: string]: unknown;
}

/** A `tools/call` result. A tool that ran and failed is a result with `isError: true`. */
export interface ToolResult {
  /** The content blocks as sent. */
  content: ContentBlock[];
  /** `structuredContent`, or null. */
  structured: unknown;
  isError: boolean;
  /** The result's `_meta`, or null. */
  meta: JsonObject | null;
  /** Every other key of the result. */
  extra: JsonObject;
}
