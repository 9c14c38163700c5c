import { McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import { setOwn } from "../shared/keys.js";
import type { ContentBlock, ToolResult } from "./types.js";

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

/** The wire keys a `ToolResult` names; the others go to `extra` as they are. */
function isNamedKey(key: string): boolean {
  return (
    key === "content" ||
    key === "structuredContent" ||
    key === "isError" ||
    key === "_meta" ||
    key === "resultType"
  );
}

export function toToolResult(wire: JsonObject): ToolResult {
  const { content, structuredContent, isError, _meta } = wire;
  if (!Array.isArray(content) || !content.every(isObject)) {
    throw new McpClientError("protocol", "invalid_tool_result");
  }
  if (isError !== undefined && typeof isError !== "boolean") {
    throw new McpClientError("protocol", "invalid_tool_result");
  }
  // A loop, not `...extra` in the destructuring: the rest copy is a slow generic runtime path,
  // and most results have no other keys. setOwn keeps a `__proto__` key as data, as the rest did.
  const extra: JsonObject = {};
  for (const key in wire) {
    if (!isNamedKey(key) && Object.hasOwn(wire, key)) setOwn(extra, key, wire[key]);
  }
  return {
    // Passed on as sent: objects, typed by the spec's kinds (fields are not checked; an unknown
    // `type` is the union's fallback).
    content: content as ContentBlock[],
    structured: structuredContent === undefined ? null : structuredContent,
    isError: isError === true,
    meta: isObject(_meta) ? _meta : null,
    extra,
  };
}
