import { McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import type { ToolResult } from "./types.js";

/**
 * Reads a modern result's `resultType`: absent means `"complete"` (servers of earlier revisions
 * send none); `input_required` and extension types are handled by their callers; anything else is
 * invalid.
 */
export function resultTypeOf(result: JsonObject): string {
  const t = result.resultType;
  if (t === undefined) return "complete";
  if (typeof t !== "string") throw new McpClientError("protocol", "invalid_result_type");
  return t;
}

/** A complete result, or a typed error for a result type the caller cannot take. */
export function expectComplete(result: JsonObject): JsonObject {
  const t = resultTypeOf(result);
  if (t === "complete") return result;
  if (t === "input_required") throw new McpClientError("protocol", "unexpected_input_required");
  throw new McpClientError("protocol", "invalid_result_type");
}

export function toToolResult(wire: JsonObject): ToolResult {
  const { content, structuredContent, isError, _meta, resultType: _rt, ...extra } = wire;
  if (!Array.isArray(content) || !content.every(isObject)) {
    throw new McpClientError("protocol", "invalid_tool_result");
  }
  if (isError !== undefined && typeof isError !== "boolean") {
    throw new McpClientError("protocol", "invalid_tool_result");
  }
  return {
    content: content as JsonObject[],
    structured: structuredContent === undefined ? null : structuredContent,
    isError: isError === true,
    meta: isObject(_meta) ? _meta : null,
    extra,
  };
}
