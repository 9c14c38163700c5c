import type { ConnectionState, TransitionEvent } from "../connection/types.js";
import type { ContentBlock, ResourceContents } from "../shared/content.js";
import type { Implementation, JsonObject } from "../shared/guards.js";
import type { RequestOptions } from "../shared/request-options.js";
import type { Tool } from "../shared/tool.js";
import type { Era } from "../shared/versions.js";

export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceContents,
  ResourceLink,
  TextContent,
  TextResourceContents,
  UnknownContentBlock,
  UnknownContentType,
} from "../shared/content.js";
export type { CallToolOptions, ProgressParams, RequestOptions } from "../shared/request-options.js";
export type { Tool, ToolAnnotations, ToolResult } from "../shared/tool.js";
export type { ConnectionState, Era, Implementation, JsonObject, TransitionEvent };

export interface ListOptions extends RequestOptions {
  /** The page to fetch: a `nextCursor` from the page before. */
  cursor?: string;
}

export interface ClientStatus {
  state: ConnectionState;
  era: Era | null;
  version: string | null;
  /** Why the client is closed or reconnecting (a safe, short message), else null. */
  reason: string | null;
  /**
   * Why the client settled on the legacy era after trying the modern one (`server/discover`), in
   * plain words: the probe's HTTP status or JSON-RPC error, its timeout, or the era store's record.
   * Absent when the era is modern or modern was not tried (`protocol: "legacy"`, a pinned version).
   */
  fallbackReason?: string;
}

export interface ServerDescription {
  era: Era;
  version: string;
  serverInfo: Implementation | null;
  capabilities: JsonObject;
  /** The server's instructions, sanitised for display (not for a model: see `instructionsForLlm`). */
  instructions: string | null;
}

export interface Resource {
  serverId: string;
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  meta?: JsonObject;
  [key: string]: unknown;
}

export interface ResourceTemplate {
  serverId: string;
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  meta?: JsonObject;
  [key: string]: unknown;
}

export interface Prompt {
  serverId: string;
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean; [key: string]: unknown }>;
  meta?: JsonObject;
  [key: string]: unknown;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
  [key: string]: unknown;
}

/** `prompts/get`'s result. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** `resources/read`'s result. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

export interface ToolPage {
  tools: Tool[];
  nextCursor: string | null;
}
export interface ResourcePage {
  resources: Resource[];
  nextCursor: string | null;
}
export interface ResourceTemplatePage {
  resourceTemplates: ResourceTemplate[];
  nextCursor: string | null;
}
export interface PromptPage {
  prompts: Prompt[];
  nextCursor: string | null;
}

export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
export const LOG_LEVELS: readonly LogLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** What `complete()` completes: a prompt's argument or a resource template's variable. */
export type CompletionRef =
  | { type: "ref/prompt"; name: string }
  | { type: "ref/resource"; uri: string }
  | { prompt: string }
  | { resource: string };

export interface CompleteOptions extends RequestOptions {
  /** Previously resolved arguments (`context.arguments`). */
  context?: { arguments?: Record<string, string> };
}

/** Where the client writes its own warnings. Every message is sanitised and has no secrets. */
export interface Logger {
  debug?(message: string): void;
  info?(message: string): void;
  warn(message: string): void;
  error?(message: string): void;
}
