/** A tool's schema as the Anthropic Messages API takes it. */
import { sanitizeSchemaText } from "./schema-text.js";

/** `input_schema` of an Anthropic tool: an object schema. */
export type AnthropicInputSchema = { type: "object"; [key: string]: unknown };

/** A Messages API tool (`Anthropic.Tool`). */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: AnthropicInputSchema;
  /** Loaded only when a tool search finds it (`anthropicTools(source, { defer })`). */
  defer_loading?: true;
}

// The API refuses these at the root of `input_schema` ("input_schema does not support oneOf,
// allOf, or anyOf at the top level"); below the root they are accepted.
const ROOT_REFUSED = ["oneOf", "allOf", "anyOf"] as const;

/**
 * A tool's schema as the Messages API takes it: the server's schema with its texts sanitised, and
 * without root-level `oneOf`/`allOf`/`anyOf`. Dropping those only widens what the model may send;
 * the arguments are checked against the original schema before the call.
 */
export function anthropicInputSchema(schema: Record<string, unknown>): AnthropicInputSchema {
  const clean = sanitizeSchemaText(schema);
  for (const key of ROOT_REFUSED) delete clean[key];
  return { ...clean, type: "object" };
}
