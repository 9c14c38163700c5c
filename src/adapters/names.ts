import { createHash } from "node:crypto";
import { sanitizeText } from "../security/sanitize.js";

/**
 * The tool-name rule of the model APIs (OpenAI function names, Anthropic tool names, and so the
 * AI SDK's tool keys): ASCII letters, digits, `_` and `-`, 1 to 64 characters.
 */
export const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const MAX_NAME = 64;
const HASH_CHARS = 8;

/**
 * `mcp__<server>__<tool>` with every character outside `[a-zA-Z0-9_-]` made `_`; a name over 64
 * characters is cut and ends in `_` and the first 8 hex digits of the SHA-1 of the raw
 * (unsanitised) qualified name, so two long names that share a prefix stay apart.
 *
 * Interim copy: the hub owns `qualifyToolName` (src/hub/); this one goes when that lands.
 */
export function qualifyToolName(serverId: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_");
  const raw = `mcp__${serverId}__${tool}`;
  const name = `mcp__${clean(serverId)}__${clean(tool)}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash("sha1").update(raw).digest("hex").slice(0, HASH_CHARS);
  return `${name.slice(0, MAX_NAME - HASH_CHARS - 1)}_${hash}`;
}

/** A server-supplied name as it may appear in an error message or a model-visible text. */
export function displayName(name: string): string {
  return sanitizeText(name, { maxLength: 128 });
}
