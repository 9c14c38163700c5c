import type { ConnectionState, ProgressParams } from "../connection/types.js";
import type { Implementation, JsonObject } from "../shared/guards.js";
import type { Era } from "../shared/versions.js";

export type { ConnectionState, Era, Implementation, JsonObject, ProgressParams };

/** Options every request function takes. */
export interface RequestOptions {
  /** Milliseconds before the request is cancelled (`kind: "timeout"`). Default: `requestTimeout`. */
  timeout?: number;
  /** Aborting cancels the request on the wire; the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Called with each `notifications/progress` for this request. */
  onProgress?: (progress: ProgressParams) => void;
  /** Restart `timeout` on each progress notification, up to `maxTotalTimeout`. Default false. */
  resetTimeoutOnProgress?: boolean;
  /** The ceiling for `resetTimeoutOnProgress`. Default: the client's `maxTotalTimeout` (300 000). */
  maxTotalTimeout?: number;
  /** Merged into the request's `_meta`; reserved keys are dropped. */
  meta?: Record<string, unknown>;
  /** W3C trace context for a modern request's `_meta`; dropped unless well formed. */
  traceparent?: string;
  /** `ctx.assigns` for the handler callbacks answering input requests of this call. Default: the client's `assigns`. */
  assigns?: Record<string, unknown>;
}

/** `callTool`'s options: the request options, and how to run the call as a server task. */
export interface CallToolOptions extends RequestOptions {
  /**
   * `"return"`: a `Task` when the server makes one. `"await"`: poll the task to its end and return
   * the result, `timeout` bounding the whole wait. Absent: no task (a legacy tool whose
   * `execution.taskSupport` is `"required"` is still run as one, and awaited).
   */
  task?: "return" | "await";
  /** Legacy: the `task.ttl` (ms) to ask for. */
  taskTtl?: number;
  /** Governance: whose call this is (grants are keyed by it). Default: the client's `principal`. */
  principal?: string;
  /** Governance: shown to the policy, the hooks and the approver; never sent. */
  context?: Record<string, unknown>;
  /** Governance: `"idempotent"` lets a failed call be sent again (see docs/governance.md). */
  retry?: "idempotent";
}

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
}

export interface ServerDescription {
  era: Era;
  version: string;
  serverInfo: Implementation | null;
  capabilities: JsonObject;
  /** The server's instructions, sanitised for display (not for a model: see `instructionsForLlm`). */
  instructions: string | null;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
  [key: string]: unknown;
}

/** A tool as listed by a server, stamped with the operator's `serverId`. */
export interface Tool {
  serverId: string;
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
  icons?: JsonObject[];
  execution?: { taskSupport?: "forbidden" | "optional" | "required"; [key: string]: unknown };
  /** The definition's `_meta`. */
  meta?: JsonObject;
  [key: string]: unknown;
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

/** The spec's content-block annotations: a hint for the client, never checked. */
export type Annotations = {
  audience?: Array<"user" | "assistant">;
  priority?: number;
  lastModified?: string;
};

export type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

export type ImageContent = {
  type: "image";
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

export type AudioContent = {
  type: "audio";
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/** A resource the server can read; it need not be in `resources/list`. */
export type ResourceLink = {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: JsonObject[];
  annotations?: Annotations;
  _meta?: JsonObject;
};

export type TextResourceContents = {
  uri: string;
  text: string;
  mimeType?: string;
  _meta?: JsonObject;
};

export type BlobResourceContents = {
  uri: string;
  /** Base64. */
  blob: string;
  mimeType?: string;
  _meta?: JsonObject;
};

/** One item of `resources/read`'s `contents`: tell them apart with `"text" in item`. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

export type EmbeddedResource = {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/**
 * The `type` of a content block this version does not know (a later spec's, or a server's own).
 * At run time it is the string the server sent; the type is a brand only so that comparing
 * `block.type === "text"` rules this case out (a plain `string` here would keep it in every
 * branch). Compare it to a string of your own with `String(block.type) === "video"`.
 */
export declare enum UnknownContentType {
  Unknown = "(a content type this version does not know)",
}

/** A content block of a type this version does not know: passed on as sent, never dropped. */
export type UnknownContentBlock = {
  type: UnknownContentType;
  [key: string]: unknown;
};

/**
 * A content block as a server sends it in a tool result or a prompt message: the spec's five
 * kinds, narrowed by `type`, and a typed fallback for any other. Blocks are passed on as sent
 * (the client does not check their fields), so a known `type` with missing fields is the
 * server's mistake to guard against where it matters.
 */
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource
  | UnknownContentBlock;

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

/** A `tools/call` result. A tool that ran and failed is a result with `isError: true`. */
export interface ToolResult {
  /** The content blocks as sent. */
  content: ContentBlock[];
  /** `structuredContent`, or null. */
  structured: unknown;
  isError: boolean;
  /** The result's `_meta`, or null. */
  meta: JsonObject | null;
  /** Every other key of the result. */
  extra: JsonObject;
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
