import type { ToolCaller } from "../client/tool-caller.js";
import { McpClientError } from "../shared/errors.js";
import { sanitizeText } from "../shared/sanitize.js";
import { Telemetry } from "../telemetry/events.js";
import type { CatalogEntry, ToolSource } from "./catalog.js";
import { displayName } from "./names.js";
import { sanitizeSchemaText } from "./schema-text.js";
import { toStrictSchema } from "./strict-schema.js";

/**
 * `"auto"` (the default): the strict subset when the schema converts, else `strict: false`, the
 * original schema and an `adapter:strict_fallback` event. `true`: a schema that does not convert
 * is an error. `false`: never converted.
 */
export type StrictMode = "auto" | boolean;

export function isStrictMode(v: unknown): v is StrictMode {
  return v === "auto" || typeof v === "boolean";
}

export interface SchemaChoice {
  strict: boolean;
  parameters: Record<string, unknown>;
}

/** The schema a model gets for one tool under a strict mode; emits the fallback event. */
export function chooseSchema(
  entry: CatalogEntry,
  mode: StrictMode,
  source: ToolSource,
  api: "openai" | "ai-sdk",
  emit = true,
): SchemaChoice {
  if (mode !== false) {
    const converted = toStrictSchema(entry.tool.inputSchema);
    if (converted.ok) return { strict: true, parameters: converted.schema };
    if (mode === true) {
      // The server's schema, not a call: "protocol" is the kind for what a server sent that we
      // cannot use. The detail names the rule it broke and the tool.
      throw new McpClientError(
        "protocol",
        "strict_schema_unsupported",
        { detail: converted.detail },
        { detail: { strict_schema: converted.reason, tool: displayName(entry.modelName) } },
      );
    }
    if (emit) fallbackEvent(source, entry, api, converted.reason, converted.detail);
  }
  return { strict: false, parameters: sanitizeSchemaText(entry.tool.inputSchema) };
}

function fallbackEvent(
  source: ToolSource,
  entry: CatalogEntry,
  api: string,
  reason: string,
  detail: string,
): void {
  const caller = source as Partial<ToolCaller> & { name?: unknown; status?: () => { era?: unknown } };
  const telemetry = new Telemetry(() => {
    let era: "modern" | "legacy" | null = null;
    try {
      const e = typeof caller.status === "function" ? caller.status().era : null;
      era = e === "modern" || e === "legacy" ? e : null;
    } catch {
      era = null;
    }
    return {
      client: typeof caller.name === "string" ? caller.name : "",
      serverId: entry.provenance.serverId,
      transport: "",
      era,
    };
  });
  telemetry.emit("adapter:strict_fallback", () => ({
    api,
    toolName: sanitizeText(entry.modelName, { maxLength: 64 }),
    reason,
    detail,
  }));
}
