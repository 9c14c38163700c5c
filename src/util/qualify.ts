import { hexDigest } from "./hash.js";

/** The longest name model APIs accept for a function tool (OpenAI's limit, which the others share). */
export const MAX_QUALIFIED_NAME = 64;

/** What a qualified name is made of: ASCII alphanumerics, `_` and `-`, 1 to 64 of them. */
export const QUALIFIED_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const OUTSIDE = /[^A-Za-z0-9_-]/gu;

/** Every character outside ASCII alphanumerics, `_` and `-` becomes `_` (one per code point). */
export function sanitizeNamePart(part: string): string {
  // By code point (the `u` flag), so one emoji is one `_`, not two; a lone surrogate is one too.
  return part.replace(OUTSIDE, "_");
}

/**
 * `mcp__<server>__<tool>` as the Codex SDK qualifies tool names: sanitised to the characters every
 * model API accepts; a name over 64 characters keeps its first 24 and gets the 40 hex digits of
 * the SHA-1 of the raw, unsanitised qualified name, so it is at most 64 characters, the same
 * whatever order servers start in, and two raw names that sanitise alike still differ.
 */
export function qualifyToolName(server: string, tool: string): string {
  if (typeof server !== "string" || typeof tool !== "string") {
    throw new TypeError("conduit-mcp: qualifyToolName takes two strings (server id, tool name)");
  }
  const raw = `mcp__${server}__${tool}`;
  const qualified = sanitizeNamePart(raw);
  if (qualified.length <= MAX_QUALIFIED_NAME) return qualified;
  const digest = hexDigest("sha1", raw);
  return qualified.slice(0, MAX_QUALIFIED_NAME - digest.length) + digest;
}
