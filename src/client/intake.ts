import { withinDepth } from "../shared/depth.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import { sanitizeText } from "../shared/sanitize.js";
import { type SchemaProblem, schemaProblem } from "./schema-intake.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "./types.js";

/**
 * Intake: what a server lists becomes the client's `Tool`, `Resource`, `ResourceTemplate` and
 * `Prompt` objects, stamped with the `serverId`. A tool that fails intake never appears in a
 * listing: a definition nested deeper than the client's `maxDepth`, a name outside
 * `[A-Za-z0-9_.-]{1,128}`, a malformed definition (schemas included: `properties` must be an
 * object, `required` an array of strings), a schema that refers outside itself or is over the
 * node budget (schema-intake.ts), or a repeated name (every copy is dropped: which one
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
  | "invalid_x_mcp_header"
  | SchemaProblem;

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
  return (
    schemaProblem(t.inputSchema) ?? (t.outputSchema === undefined ? undefined : schemaProblem(t.outputSchema))
  );
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
  const { tools, rejected } = admitToolPages([wire], [undefined], serverId, headerRules, maxDepth);
  return { tools, rejected };
}

/**
 * What intake made of each item of one page: `local[i]`, the rejection of an item for a reason
 * of its own (its shape, depth, name or header annotations); else `admitted[i]`, its tool, or
 * undefined when its name was repeated in the listing.
 */
export interface PageIntake {
  readonly local: ReadonlyArray<Rejected | undefined>;
  readonly admitted: ReadonlyArray<Tool | undefined>;
}

export interface ToolIntake {
  tools: Tool[];
  rejected: Rejected[];
  /** What intake made of each page, for the next listing to reuse where a page is the same. */
  pages: PageIntake[];
  /** The tools made now (not taken from a page's earlier intake), in listing order. */
  made: Tool[];
}

/**
 * Admits the tools of a listing of `pages`. `known[i]`, when given, is the intake of a page that
 * was exactly the same JSON as page `i` (key order included): its items' own checks are taken
 * from it, and so are their tools. Repeated names are counted over the whole listing every time,
 * so what a page's tool becomes still depends on every other page, as it does without `known`.
 */
export function admitToolPages(
  pages: ReadonlyArray<readonly unknown[]>,
  known: ReadonlyArray<PageIntake | undefined>,
  serverId: string,
  headerRules?: (inputSchema: unknown) => string | null,
  maxDepth = DEFAULT_MAX_DEPTH,
): ToolIntake {
  const rejected: Rejected[] = [];
  const counts = new Map<string, number>();
  for (const wire of pages) {
    for (const t of wire) {
      if (isObject(t) && typeof t.name === "string") counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    }
  }
  const tools: Tool[] = [];
  const made: Tool[] = [];
  // Made at their size, not by push (which leaves room for 16 more): the last listing's intake is
  // kept per client (~0.4 KB for a one-tool listing, issue 26).
  const intakes: PageIntake[] = new Array(pages.length);
  for (let p = 0; p < pages.length; p++) {
    const wire = pages[p] as readonly unknown[];
    const before = known[p];
    const local: Array<Rejected | undefined> = new Array(wire.length);
    const admitted: Array<Tool | undefined> = new Array(wire.length);
    for (let i = 0; i < wire.length; i++) {
      const t = wire[i];
      let own: Rejected | undefined;
      if (before !== undefined) own = before.local[i];
      else {
        const problem = toolProblem(t, maxDepth);
        if (problem) own = { ...rejection(t), reason: problem };
        else if (headerRules && headerRules((t as JsonObject).inputSchema) !== null) {
          own = { ...rejection(t), reason: "invalid_x_mcp_header" };
        }
      }
      local[i] = own;
      if (own !== undefined) {
        rejected.push(own);
        admitted[i] = undefined;
        continue;
      }
      const name = (t as JsonObject).name as string;
      if ((counts.get(name) ?? 0) > 1) {
        rejected.push({ ...rejection(t), reason: "duplicate_name" });
        admitted[i] = undefined;
        continue;
      }
      let tool = before?.admitted[i];
      if (tool === undefined) {
        tool = stamp<Tool>(t as JsonObject, serverId);
        made.push(tool);
      }
      admitted[i] = tool;
      tools.push(tool);
    }
    intakes[p] = { local, admitted };
  }
  return { tools, rejected, pages: intakes, made };
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
