import { isObject, type JsonObject } from "../protocol/guards.js";
import { sanitizeText } from "../security/sanitize.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "./types.js";

/**
 * Intake: what a server lists becomes the client's `Tool`, `Resource`, `ResourceTemplate` and
 * `Prompt` objects, stamped with the `serverId`. A tool that fails intake never appears in a
 * listing: a name outside `[A-Za-z0-9_.-]{1,128}`, a malformed definition, or a repeated name (every
 * copy is dropped: which one the server meant is unknowable).
 */

export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export type ToolRejection =
  | "invalid_name"
  | "malformed_definition"
  | "duplicate_name"
  | "invalid_x_mcp_header";

export interface Rejected {
  /** The name as sent, sanitised and clamped for logs (or `"?"` when there was none). */
  name: string;
  reason: ToolRejection;
}

function optString(v: unknown): boolean {
  return v === undefined || typeof v === "string";
}
function optObject(v: unknown): boolean {
  return v === undefined || isObject(v);
}

function toolProblem(t: unknown): ToolRejection | undefined {
  if (!isObject(t) || typeof t.name !== "string") return "malformed_definition";
  if (!TOOL_NAME.test(t.name)) return "invalid_name";
  const schema = t.inputSchema;
  if (!isObject(schema) || schema.type !== "object") return "malformed_definition";
  if (t.outputSchema !== undefined && (!isObject(t.outputSchema) || t.outputSchema.type !== "object")) {
    return "malformed_definition";
  }
  if (
    !optString(t.title) ||
    !optString(t.description) ||
    !optObject(t.annotations) ||
    !optObject(t._meta) ||
    !optObject(t.execution) ||
    (t.icons !== undefined && !Array.isArray(t.icons))
  ) {
    return "malformed_definition";
  }
  return undefined;
}

/** Renames `_meta` to `meta` and stamps `serverId`; every other wire key is kept as sent. */
function stamp<T>(wire: JsonObject, serverId: string): T {
  const { _meta, ...rest } = wire;
  const out: JsonObject = rest;
  if (isObject(_meta)) out.meta = _meta;
  // Last, so that no server can claim another server's id through a key of its own.
  out.serverId = serverId;
  return out as T;
}

export function displayName(v: unknown): string {
  return isObject(v) && typeof v.name === "string" ? sanitizeText(v.name, { maxLength: 64 }) : "?";
}

/**
 * Admits the tools of one listing (one page, or every page of a walk). `headerRules` (over HTTP)
 * also leaves out a tool whose `x-mcp-header` annotations are invalid: it returns why, or null.
 */
export function admitTools(
  wire: readonly unknown[],
  serverId: string,
  headerRules?: (inputSchema: unknown) => string | null,
): { tools: Tool[]; rejected: Rejected[] } {
  const rejected: Rejected[] = [];
  const counts = new Map<string, number>();
  for (const t of wire) {
    if (isObject(t) && typeof t.name === "string") counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  }
  const tools: Tool[] = [];
  for (const t of wire) {
    const problem = toolProblem(t);
    if (problem) {
      rejected.push({ name: displayName(t), reason: problem });
      continue;
    }
    const name = (t as JsonObject).name as string;
    if (headerRules && headerRules((t as JsonObject).inputSchema) !== null) {
      rejected.push({ name: displayName(t), reason: "invalid_x_mcp_header" });
      continue;
    }
    if ((counts.get(name) ?? 0) > 1) {
      rejected.push({ name: displayName(t), reason: "duplicate_name" });
      continue;
    }
    tools.push(stamp<Tool>(t as JsonObject, serverId));
  }
  return { tools, rejected };
}

export function admitResources(wire: readonly unknown[], serverId: string): Resource[] {
  return wire
    .filter((r) => isObject(r) && typeof r.uri === "string" && typeof r.name === "string")
    .map((r) => stamp<Resource>(r as JsonObject, serverId));
}

export function admitResourceTemplates(wire: readonly unknown[], serverId: string): ResourceTemplate[] {
  return wire
    .filter((r) => isObject(r) && typeof r.uriTemplate === "string" && typeof r.name === "string")
    .map((r) => stamp<ResourceTemplate>(r as JsonObject, serverId));
}

export function admitPrompts(wire: readonly unknown[], serverId: string): Prompt[] {
  return wire
    .filter(
      (p) =>
        isObject(p) &&
        typeof p.name === "string" &&
        (p.arguments === undefined || Array.isArray(p.arguments)),
    )
    .map((p) => stamp<Prompt>(p as JsonObject, serverId));
}
