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

/** A `tools/call` result. A tool that ran and failed is a result with `isError: true`. */
export interface ToolResult {
  /** The content blocks as sent. */
  content: JsonObject[];
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
