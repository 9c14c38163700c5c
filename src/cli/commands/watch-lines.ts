/** The lines `conduit-mcp watch` prints: what each holds, and how it reads for a person or as JSON. */
import {
  type ConnectionState,
  type JsonObject,
  type LogLevel,
  McpClientError,
  sanitizeText,
  sanitizeValue,
} from "../../index.js";

/** The lists a watch keeps: tools, resources (with their templates), prompts. */
export type ListName = "tools" | "resources" | "prompts";

/** What a list now holds, and which names came and went since the last look. */
export interface ListDiff {
  list: ListName;
  added: string[];
  removed: string[];
  count: number;
}

export type ErrorJson = { kind: string; reason: unknown; message: string };

/** One line of output, before it is rendered for a person or as JSON. */
export type Line = { time: Date } & (
  | {
      type: "ready";
      era: string;
      version: string;
      serverInfo: JsonObject | null;
      tools: string[] | null;
      resources: string[] | null;
      prompts: string[] | null;
      subscribed: string[];
      logLevel: LogLevel | null;
    }
  | { type: "state"; from: ConnectionState; to: ConnectionState; reason: string | null; attempt: number }
  | { type: "notification"; method: string; params: JsonObject | null }
  | ({ type: "list_changed"; method: string; error?: ErrorJson } & ListDiff)
  | ({ type: "resync" } & ListDiff)
  | { type: "warning"; method: string; params: JsonObject | null; message: string }
);

export function errorJson(err: unknown): ErrorJson {
  if (err instanceof McpClientError) return err.toJSON() as ErrorJson;
  const message = sanitizeText(err instanceof Error ? err.message : String(err), { maxLength: 300 });
  return { kind: "internal", reason: null, message };
}

// ---- rendering --------------------------------------------------------------------------------

/** The JSON object of a line: `time` (ISO 8601) first, then `type` and the rest. */
export function lineJson(line: Line): JsonObject {
  const { time, ...rest } = line;
  return { time: time.toISOString(), ...rest } as JsonObject;
}

/** Server text on one line, sanitised and clamped. */
export function inline(text: unknown, maxLength = 200): string {
  return sanitizeText(typeof text === "string" ? text : String(text), { maxLength });
}

/** Server data on one line: sanitised, compact, clamped. */
function compact(value: unknown, maxLength = 300): string {
  const text = JSON.stringify(sanitizeValue(value)) ?? "null";
  return inline(text, maxLength);
}

/** `12:34:56.789`, local time. */
function clock(time: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  return `${pad(time.getHours())}:${pad(time.getMinutes())}:${pad(time.getSeconds())}.${pad(time.getMilliseconds(), 3)}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `time method summary`, every server string sanitised. */
export function renderLine(line: Line): string {
  const time = clock(line.time);
  switch (line.type) {
    case "ready": {
      const server = line.serverInfo
        ? `${inline(line.serverInfo.name ?? "?", 100)} ${inline(line.serverInfo.version ?? "", 40)}`.trim()
        : "the server";
      const lists = [
        line.tools && plural(line.tools.length, "tool"),
        line.resources && plural(line.resources.length, "resource"),
        line.prompts && plural(line.prompts.length, "prompt"),
      ].filter(Boolean);
      const parts = [
        lists.length > 0 ? lists.join(", ") : "no lists",
        line.logLevel ? `log level ${line.logLevel}` : "",
        line.subscribed.length > 0
          ? `subscribed to ${line.subscribed.map((u) => inline(u, 120)).join(", ")}`
          : "",
      ].filter(Boolean);
      return `${time} watching ${server} (${line.era} ${inline(line.version, 40)}): ${parts.join("; ")}`;
    }
    case "state": {
      const attempt = line.attempt > 0 ? ` (attempt ${line.attempt})` : "";
      const reason = line.reason ? `: ${inline(line.reason)}` : "";
      return `${time} state ${line.from} -> ${line.to}${attempt}${reason}`;
    }
    case "list_changed":
      return `${time} ${inline(line.method, 128)} ${line.error ? `${line.list} (could not list them again: ${inline(line.error.message)})` : diffSummary(line)}`;
    case "resync":
      return `${time} resync ${diffSummary(line)}`;
    case "warning":
      return `${time} ${line.method} WARNING: ${inline(line.message, 300)}`;
    case "notification":
      return `${time} ${inline(line.method, 128)}${notificationSummary(line.method, line.params)}`;
  }
}

/** `tools +new -old (3 in all)`, or `tools: no names added or removed (3 in all)`. */
function diffSummary(diff: ListDiff): string {
  const names = [
    ...diff.added.map((name) => `+${inline(name, 120)}`),
    ...diff.removed.map((name) => `-${inline(name, 120)}`),
  ];
  const changes = names.length > 0 ? ` ${names.join(" ")}` : ": no names added or removed";
  return `${diff.list}${changes} (${diff.count} in all)`;
}

/** What follows the method: a log entry's level, logger and data; an updated URI; else the params. */
function notificationSummary(method: string, params: JsonObject | null): string {
  if (params === null) return "";
  if (method === "notifications/message") {
    const logger = typeof params.logger === "string" ? ` ${inline(params.logger, 80)}:` : "";
    const data = typeof params.data === "string" ? inline(params.data, 500) : compact(params.data, 500);
    return ` ${inline(params.level ?? "info", 20)}${logger} ${data}`;
  }
  if (method === "notifications/resources/updated" && typeof params.uri === "string") {
    return ` ${inline(params.uri, 200)}`;
  }
  const { _meta, ...rest } = params;
  return Object.keys(rest).length > 0 ? ` ${compact(rest)}` : "";
}
