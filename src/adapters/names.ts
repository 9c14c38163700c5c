import { sanitizeText } from "../shared/sanitize.js";

/**
 * The tool-name rule of the model APIs (OpenAI function names, Anthropic tool names, and so the
 * AI SDK's tool keys): ASCII letters, digits, `_` and `-`, 1 to 64 characters. Qualified names
 * (`qualifyToolName`, src/util/qualify.ts) always keep it.
 */
export { QUALIFIED_NAME as MODEL_TOOL_NAME, qualifyToolName } from "../util/qualify.js";

/** A server-supplied name as it may appear in an error message or a model-visible text. */
export function displayName(name: string): string {
  return sanitizeText(name, { maxLength: 128 });
}
