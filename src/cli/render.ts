import { isDeepStrictEqual } from "node:util";
import type {
  JsonObject,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerDescription,
  Tool,
  ToolResult,
} from "../index.js";
import { sanitizeText, sanitizeValue } from "../index.js";

// Every server-provided string shown on the terminal goes through one of these two.
/** One line of server text: no newlines, clamped. */
function inline(text: unknown, maxLength = 200): string {
  return sanitizeText(typeof text === "string" ? text : String(text), { maxLength });
}

/**
 * A block of server text: line breaks kept (blank lines too), clamped. Sanitised line by line
 * because `sanitizeText`'s `keepNewlines` folds a run of line breaks into one, losing blank lines.
 */
function block(text: string, maxLength = 100_000): string {
  const clean = text
    .split(/\r\n|[\r\n\u2028\u2029]/)
    .map((line) => sanitizeText(line))
    .join("\n");
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

const DESCRIPTION_MAX = 80;

/**
 * Characters JSON.stringify leaves raw that a terminal may act on or that change how text reads:
 * DEL and C1 controls, zero-width, bidi and line/paragraph separators. Escaping them keeps the
 * document byte-for-byte equivalent for a parser while nothing reaches the terminal raw.
 */
const JSON_UNSAFE = /[\u007F-\u009F\u061C\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;

/** One JSON document (one line and a newline) with terminal-unsafe characters escaped. */
export function jsonDocument(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return `${escapeJsonUnsafe(text)}\n`;
}

function escapeJsonUnsafe(text: string): string {
  return text.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

const COMPACT_JSON_MAX = 100;

/** Server data as JSON for a human: one line when short, else indented; sanitised, then escaped. */
function prettyJson(value: unknown): string {
  const clean = sanitizeValue(value);
  const compact = JSON.stringify(clean) ?? "null";
  return escapeJsonUnsafe(compact.length <= COMPACT_JSON_MAX ? compact : JSON.stringify(clean, null, 2));
}

/**
 * Two columns: the first padded to its longest entry, the second as given. Entries are already
 * clamped (names to 64 characters, URIs to 120), so the padding is bounded and every row aligns.
 */
function columns(rows: Array<[string, string]>): string {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => (right ? `${left.padEnd(width)}  ${right}` : left)).join("\n");
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

// ---- info -----------------------------------------------------------------------------------

export function renderInfo(description: ServerDescription): string {
  const info = description.serverInfo;
  const server = info
    ? [inline(info.name, 100), inline(info.version, 40), info.title ? `(${inline(info.title, 100)})` : ""]
        .filter(Boolean)
        .join(" ")
    : "(not given)";
  const rows: Array<[string, string]> = [
    ["server:", server],
    ["era:", description.era],
    ["version:", inline(description.version, 40)],
    ["capabilities:", renderCapabilities(description.capabilities) || "(none)"],
  ];
  if (description.instructions) {
    // Continuation lines of the instructions line up under the first.
    const text = block(description.instructions, 2_000).replace(/\n/g, `\n${" ".repeat(15)}`);
    rows.push(["instructions:", text]);
  }
  return `${columns(rows)}\n`;
}

/** `tools (listChanged), resources (subscribe)`: each capability and its flags that are true. */
function renderCapabilities(capabilities: JsonObject): string {
  return Object.entries(capabilities)
    .map(([key, value]) => {
      const flags =
        typeof value === "object" && value !== null
          ? Object.entries(value)
              .filter(([, on]) => on === true)
              .map(([flag]) => inline(flag, 40))
          : [];
      return flags.length > 0 ? `${inline(key, 40)} (${flags.join(", ")})` : inline(key, 40);
    })
    .join(", ");
}

// ---- lists ----------------------------------------------------------------------------------

/** Search results: rank, score, name and description, one line each. */
export function renderSearch(
  found: ReadonlyArray<{ name: string; serverId: string; score: number; tool: Tool }>,
): string {
  if (found.length === 0) return "(no tool matched)\n";
  return `${columns(
    found.map((f) => [
      `${f.score.toFixed(2).padStart(6)}  ${inline(f.name, 90)}`,
      inline(f.tool.description ?? f.tool.title ?? "", DESCRIPTION_MAX),
    ]),
  )}\n`;
}

export function renderTools(tools: readonly Tool[]): string {
  if (tools.length === 0) return "(no tools)\n";
  return `${columns(tools.map((t) => [inline(t.name, 64), inline(t.description ?? t.title ?? "", DESCRIPTION_MAX)]))}\n`;
}

export function renderResources(
  resources: readonly Resource[],
  templates: readonly ResourceTemplate[],
): string {
  if (resources.length === 0 && templates.length === 0) return "(no resources)\n";
  const describe = (r: { name: string; title?: string; mimeType?: string }) =>
    [inline(r.title ?? r.name, DESCRIPTION_MAX), r.mimeType ? `(${inline(r.mimeType, 60)})` : ""]
      .filter(Boolean)
      .join(" ");
  const rows: Array<[string, string]> = resources.map((r) => [inline(r.uri, 120), describe(r)]);
  if (templates.length > 0) {
    if (rows.length > 0) rows.push(["", ""]);
    rows.push(["templates:", ""]);
    for (const t of templates) rows.push([inline(t.uriTemplate, 120), describe(t)]);
  }
  return `${columns(rows)}\n`;
}

export function renderPrompts(prompts: readonly Prompt[]): string {
  if (prompts.length === 0) return "(no prompts)\n";
  const usage = (p: Prompt) =>
    [
      inline(p.name, 64),
      ...(p.arguments ?? []).map((a) => (a.required ? `<${inline(a.name, 40)}>` : `[${inline(a.name, 40)}]`)),
    ].join(" ");
  return `${columns(prompts.map((p) => [usage(p), inline(p.description ?? p.title ?? "", DESCRIPTION_MAX)]))}\n`;
}

// ---- results --------------------------------------------------------------------------------

/**
 * Text blocks as their text; any other block as a one-line summary; then structured content,
 * unless a text block already holds the same data as JSON (the spec asks servers to send both).
 */
export function renderToolResult(result: ToolResult): string {
  const parts = result.content.map(renderContentBlock);
  if (result.structured !== null && !repeatedAsText(result)) {
    parts.push(`structured content: ${prettyJson(result.structured)}`);
  }
  if (parts.length === 0) return "(no content)\n";
  return parts.map(withNewline).join("");
}

/** Whether some text block is the structured content serialised as JSON. */
function repeatedAsText(result: ToolResult): boolean {
  return result.content.some((block) => {
    if (!isObject(block) || block.type !== "text" || typeof block.text !== "string") return false;
    try {
      return isDeepStrictEqual(JSON.parse(block.text), result.structured);
    } catch {
      return false;
    }
  });
}

export function renderReadResult(result: JsonObject): string {
  const contents = Array.isArray(result.contents) ? result.contents : [];
  if (contents.length === 0) return "(no contents)\n";
  const many = contents.length > 1;
  return contents
    .map((c: unknown) => {
      const item = isObject(c) ? c : {};
      const header = many ? `--- ${inline(item.uri ?? "", 120)}${mimeSuffix(item.mimeType)}\n` : "";
      if (typeof item.text === "string") return header + withNewline(block(item.text));
      if (typeof item.blob === "string") {
        return `${header}[blob${mimeSuffix(item.mimeType)}, ${base64Bytes(item.blob)} bytes]\n`;
      }
      return `${header}[contents without text or blob]\n`;
    })
    .join("");
}

export function renderPromptResult(result: JsonObject): string {
  const messages = Array.isArray(result.messages) ? result.messages : [];
  const lines: string[] = [];
  if (typeof result.description === "string" && result.description) {
    lines.push(withNewline(`description: ${inline(result.description)}`));
  }
  for (const m of messages) {
    const message = isObject(m) ? m : {};
    const role = inline(message.role ?? "?", 20);
    // A message's content is one block in the spec; tolerate a list too.
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const text = blocks.map(renderContentBlock).join("\n");
    lines.push(withNewline(`${role}: ${text}`));
  }
  if (lines.length === 0) return "(no messages)\n";
  return lines.join("");
}

/** One content block: its text, or a bracketed summary such as `[image image/png, 1234 bytes]`. */
export function renderContentBlock(value: unknown): string {
  if (!isObject(value)) return "[invalid content block]";
  const type = typeof value.type === "string" ? inline(value.type, 40) : "?";
  switch (value.type) {
    case "text":
      return typeof value.text === "string" ? block(value.text) : "[text block without text]";
    case "image":
    case "audio": {
      const size = typeof value.data === "string" ? `, ${base64Bytes(value.data)} bytes` : "";
      return `[${type}${mimeSuffix(value.mimeType)}${size}]`;
    }
    case "resource_link":
      return `[resource link ${inline(value.uri ?? "", 120)}${value.name ? ` (${inline(value.name, 80)})` : ""}]`;
    case "resource": {
      const r = isObject(value.resource) ? value.resource : {};
      const size =
        typeof r.text === "string"
          ? `, ${r.text.length} characters`
          : typeof r.blob === "string"
            ? `, ${base64Bytes(r.blob)} bytes`
            : "";
      return `[resource ${inline(r.uri ?? "", 120)}${mimeSuffix(r.mimeType)}${size}]`;
    }
    default:
      return `[${type} block]`;
  }
}

function mimeSuffix(mimeType: unknown): string {
  return typeof mimeType === "string" && mimeType ? ` ${inline(mimeType, 60)}` : "";
}

function base64Bytes(data: string): number {
  return Buffer.byteLength(data, "base64");
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// ---- JSON shapes ----------------------------------------------------------------------------

/** The `CallToolResult` as on the wire, from the library's `ToolResult`. */
export function toolResultJson(result: ToolResult): JsonObject {
  const out: JsonObject = { content: result.content };
  if (result.structured !== null) out.structuredContent = result.structured;
  out.isError = result.isError;
  if (result.meta !== null) out._meta = result.meta;
  return { ...out, ...result.extra };
}

/** A list item without the client-assigned `serverId`, which says nothing about the server. */
export function withoutServerId<T extends { serverId: string }>(item: T): Omit<T, "serverId"> {
  const { serverId: _serverId, ...rest } = item;
  return rest;
}

/** A result without `resultType`, a modern-era wire detail, so both eras print alike. */
export function withoutResultType(result: JsonObject): JsonObject {
  const { resultType: _resultType, ...rest } = result;
  return rest;
}
