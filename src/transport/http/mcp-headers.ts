/**
 * The request metadata headers of the 2026-07-28 Streamable HTTP transport: `Mcp-Name` and the
 * `Mcp-Param-*` headers mirrored from tool arguments marked with `x-mcp-header`, with the
 * spec's value encoding (a Base64 sentinel for values a header cannot carry as they are).
 */

/** One annotated parameter: where its value is in the arguments, and its header name part. */
export interface McpHeaderAnnotation {
  /** The chain of `properties` keys from the schema root. */
  path: readonly string[];
  /** The `x-mcp-header` value: the header is `Mcp-Param-{name}`. */
  name: string;
}

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PRIMITIVES = new Set(["string", "integer", "boolean"]);
/** Keys whose values are instance data, not schemas: an annotation-like key there is no annotation. */
const DATA_KEYWORDS = new Set(["const", "default", "enum", "examples"]);
const MAX_DEPTH = 64;

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether a schema's `type` is exactly one primitive the spec allows (a `"null"` alongside is tolerated). */
function primitiveType(schema: Json): boolean {
  const t = schema.type;
  if (typeof t === "string") return PRIMITIVES.has(t);
  if (Array.isArray(t)) {
    const rest = t.filter((x) => x !== "null");
    return rest.length === 1 && typeof rest[0] === "string" && PRIMITIVES.has(rest[0]);
  }
  return false;
}

class Invalid extends Error {}

/**
 * Reads the `x-mcp-header` annotations of a tool's `inputSchema`. Throws `Invalid` (with the
 * reason as its message) when any annotation breaks the spec's constraints.
 */
function collect(inputSchema: unknown): McpHeaderAnnotation[] {
  const out: McpHeaderAnnotation[] = [];
  const seen = new Set<string>();
  const walk = (node: unknown, path: string[], reachable: boolean, depth: number): void => {
    if (depth > MAX_DEPTH) throw new Invalid("inputSchema nested too deeply");
    if (Array.isArray(node)) {
      for (const item of node) walk(item, path, false, depth + 1);
      return;
    }
    if (!isObj(node)) return;
    if ("x-mcp-header" in node) {
      const name = node["x-mcp-header"];
      if (!reachable || path.length === 0) {
        throw new Invalid("x-mcp-header on a property not reachable through properties alone");
      }
      if (typeof name !== "string" || name.length === 0) throw new Invalid("x-mcp-header is empty");
      if (!TCHAR.test(name)) throw new Invalid("x-mcp-header is not a valid header name");
      const lower = name.toLowerCase();
      if (seen.has(lower)) throw new Invalid("x-mcp-header repeated");
      if (!primitiveType(node))
        throw new Invalid("x-mcp-header on a parameter that is not string, integer or boolean");
      seen.add(lower);
      out.push({ path: [...path], name });
    }
    for (const key of Object.keys(node)) {
      if (key === "x-mcp-header" || DATA_KEYWORDS.has(key)) continue;
      const value = node[key];
      if (key === "properties" && isObj(value)) {
        for (const prop of Object.keys(value)) {
          walk(value[prop], [...path, prop], reachable, depth + 1);
        }
      } else if (typeof value === "object" && value !== null) {
        walk(value, path, false, depth + 1);
      }
    }
  };
  walk(inputSchema, [], true, 0);
  return out;
}

/**
 * Why a tool's `inputSchema` has invalid `x-mcp-header` annotations, or `null` when it has none
 * or they are all valid. Over HTTP a tool with invalid annotations must be left out of listings.
 * Pure: no I/O, no state.
 */
export function invalidMcpHeaderAnnotations(inputSchema: unknown): string | null {
  try {
    collect(inputSchema);
    return null;
  } catch (err) {
    if (err instanceof Invalid) return err.message;
    throw err;
  }
}

/** The valid annotations of a schema, or `null` when they are invalid. */
export function mcpHeaderAnnotations(inputSchema: unknown): McpHeaderAnnotation[] | null {
  try {
    return collect(inputSchema);
  } catch (err) {
    if (err instanceof Invalid) return null;
    throw err;
  }
}

/** A header-safe value: visible ASCII at both ends, visible ASCII, space or tab between. */
const PLAIN = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;

/** Encodes a header value as the spec says: as is when safe, else `=?base64?...?=`. */
export function encodeHeaderValue(value: string): string {
  if (PLAIN.test(value) && !(value.startsWith("=?base64?") && value.endsWith("?="))) return value;
  return `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;
}

/** The header text of one argument value, or undefined when the header is omitted. */
function headerText(value: unknown): string | undefined {
  if (typeof value === "string") return encodeHeaderValue(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** Adds the `mcp-param-*` headers for `args` to `headers`. */
export function addParamHeaders(
  headers: Record<string, string>,
  annotations: readonly McpHeaderAnnotation[],
  args: unknown,
): void {
  for (const a of annotations) {
    let v: unknown = args;
    for (const key of a.path) {
      if (!isObj(v) || !Object.hasOwn(v, key)) {
        v = undefined;
        break;
      }
      v = v[key];
    }
    const text = headerText(v);
    if (text !== undefined) headers[`mcp-param-${a.name.toLowerCase()}`] = text;
  }
}

/** The `Mcp-Name` source of a request: `params.name`, `params.uri` or `params.taskId`, for the methods that need one. */
export function mcpNameOf(method: string, params: Json | undefined): string | undefined {
  if (!params) return undefined;
  if (method === "tools/call" || method === "prompts/get") {
    return typeof params.name === "string" ? params.name : undefined;
  }
  if (method === "resources/read") return typeof params.uri === "string" ? params.uri : undefined;
  // The tasks extension's HTTP binding (SEP-2663): the task id, so a task's requests route together.
  if (method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel")
    return typeof params.taskId === "string" ? params.taskId : undefined;
  return undefined;
}

/**
 * The `x-mcp-header` annotations the transport has seen, by tool name: learnt from the
 * `tools/list` results passing through, used to mirror a `tools/call`'s arguments into headers.
 */
export class ToolHeaderAnnotations {
  /** Made with the first annotated tool: most servers annotate none. */
  #byName: Map<string, McpHeaderAnnotation[]> | undefined;

  /** Learns from one `tools/list` result (`raw` is its text, to skip the common unannotated case). */
  observe(result: Record<string, unknown>, raw: string): void {
    if (!Array.isArray(result.tools)) return;
    const annotated = raw.includes("x-mcp-header");
    if (!annotated && !this.#byName?.size) return;
    for (const tool of result.tools as unknown[]) {
      if (typeof tool !== "object" || tool === null) continue;
      const name = (tool as { name?: unknown }).name;
      if (typeof name !== "string") continue;
      const a = annotated ? mcpHeaderAnnotations((tool as { inputSchema?: unknown }).inputSchema) : null;
      if (a && a.length > 0) {
        this.#byName ??= new Map();
        this.#byName.set(name, a);
      } else this.#byName?.delete(name);
    }
  }

  /** The standard request headers of a modern request: version, method, name, mirrored params. */
  addTo(h: Record<string, string>, version: string, method: string, params: Json | undefined): void {
    h["mcp-protocol-version"] = version;
    h["mcp-method"] = method;
    const name = mcpNameOf(method, params);
    if (name === undefined) return;
    h["mcp-name"] = encodeHeaderValue(name);
    if (this.#byName?.size && method === "tools/call") {
      const a = this.#byName.get(name);
      if (a) addParamHeaders(h, a, params?.arguments);
    }
  }
}
