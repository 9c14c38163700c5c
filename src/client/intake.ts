import { withinDepth } from "../shared/depth.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "./types.js";

/**
 * Intake: what a server lists becomes the client's `Tool`, `Resource`, `ResourceTemplate` and
 * `Prompt` objects, stamped with the `serverId`. A tool that fails intake never appears in a
 * listing: a definition nested deeper than the client's `maxDepth`, a name outside
 * `[A-Za-z0-9_.-]{1,128}`, a malformed definition (schemas included: `properties` must be an
 * object, `required` an array of strings), or a repeated name (every copy is dropped: which one
 * the server meant is unknowable). Icons whose `src` is not `https:` (or a `data:` image) are
 * stripped from every item: a client that shows one must never fetch `file:` or run `javascript:`.
 */

/** The nesting limit intake applies when none is given (the client's `maxDepth` default). */
export const DEFAULT_MAX_DEPTH = 64;

export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export type ToolRejection =
  | "too_deep"
  | "invalid_name"
  | "malformed_definition"
  | "duplicate_name"
  | "invalid_x_mcp_header";

export interface Rejected {
  /** The name as sent, sanitised and clamped for logs (or `"?"` when there was none). */
  name: string;
  /** The name exactly as sent, when it was a string (to refuse calls to it; never logged). */
  wireName?: string;
  reason: ToolRejection;
}

function optString(v: unknown): boolean {
  return v === undefined || typeof v === "string";
}
function optObject(v: unknown): boolean {
  return v === undefined || isObject(v);
}

/** An object schema as tools carry them: `type: "object"`, and the keywords the client reads well formed. */
function isObjectSchema(v: unknown): boolean {
  return (
    isObject(v) &&
    v.type === "object" &&
    (v.properties === undefined || isObject(v.properties)) &&
    (v.required === undefined || (Array.isArray(v.required) && allStrings(v.required)))
  );
}

function allStrings(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== "string") return false;
  return true;
}

function toolProblem(t: unknown, maxDepth: number): ToolRejection | undefined {
  if (!isObject(t) || typeof t.name !== "string") return "malformed_definition";
  if (!withinDepth(t, maxDepth)) return "too_deep";
  if (!TOOL_NAME.test(t.name)) return "invalid_name";
  if (!isObjectSchema(t.inputSchema)) return "malformed_definition";
  if (t.outputSchema !== undefined && !isObjectSchema(t.outputSchema)) return "malformed_definition";
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

const SAFE_ICON_SRC = /^(?:https:\/\/|data:image\/[a-z0-9.+-]+[;,])/i;

/** The icons a client may show: objects with an `https:` or `data:` image `src`, the rest dropped. */
function safeIcons(icons: unknown): unknown[] {
  if (!Array.isArray(icons)) return [];
  return icons.filter((i) => isObject(i) && typeof i.src === "string" && SAFE_ICON_SRC.test(i.src));
}

/**
 * Renames `_meta` to `meta`, strips unsafe icons and stamps `serverId`; every other wire key is
 * kept as sent.
 */
function stamp<T>(wire: JsonObject, serverId: string): T {
  const { _meta, ...rest } = wire;
  const out: JsonObject = rest;
  if (isObject(_meta)) out.meta = _meta;
  if (out.icons !== undefined) out.icons = safeIcons(out.icons);
  // Last, so that no server can claim another server's id through a key of its own.
  out.serverId = serverId;
  return out as T;
}

function rejection(t: unknown): { name: string; wireName?: string } {
  const wire = isObject(t) && typeof t.name === "string" ? t.name : undefined;
  return wire === undefined ? { name: "?" } : { name: displayName(t), wireName: wire };
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
  maxDepth = DEFAULT_MAX_DEPTH,
): { tools: Tool[]; rejected: Rejected[] } {
  const rejected: Rejected[] = [];
  const counts = new Map<string, number>();
  for (const t of wire) {
    if (isObject(t) && typeof t.name === "string") counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  }
  const tools: Tool[] = [];
  for (const t of wire) {
    const problem = toolProblem(t, maxDepth);
    if (problem) {
      rejected.push({ ...rejection(t), reason: problem });
      continue;
    }
    const name = (t as JsonObject).name as string;
    if (headerRules && headerRules((t as JsonObject).inputSchema) !== null) {
      rejected.push({ ...rejection(t), reason: "invalid_x_mcp_header" });
      continue;
    }
    if ((counts.get(name) ?? 0) > 1) {
      rejected.push({ ...rejection(t), reason: "duplicate_name" });
      continue;
    }
    tools.push(stamp<Tool>(t as JsonObject, serverId));
  }
  return { tools, rejected };
}

export function admitResources(
  wire: readonly unknown[],
  serverId: string,
  maxDepth = DEFAULT_MAX_DEPTH,
): Resource[] {
  return wire
    .filter(
      (r) =>
        isObject(r) && typeof r.uri === "string" && typeof r.name === "string" && withinDepth(r, maxDepth),
    )
    .map((r) => stamp<Resource>(r as JsonObject, serverId));
}

export function admitResourceTemplates(
  wire: readonly unknown[],
  serverId: string,
  maxDepth = DEFAULT_MAX_DEPTH,
): ResourceTemplate[] {
  return wire
    .filter(
      (r) =>
        isObject(r) &&
        typeof r.uriTemplate === "string" &&
        typeof r.name === "string" &&
        withinDepth(r, maxDepth),
    )
    .map((r) => stamp<ResourceTemplate>(r as JsonObject, serverId));
}

export function admitPrompts(
  wire: readonly unknown[],
  serverId: string,
  maxDepth = DEFAULT_MAX_DEPTH,
): Prompt[] {
  return wire
    .filter(
      (p) =>
        isObject(p) &&
        typeof p.name === "string" &&
        (p.arguments === undefined || Array.isArray(p.arguments)) &&
        withinDepth(p, maxDepth),
    )
    .map((p) => stamp<Prompt>(p as JsonObject, serverId));
}
