/** The `conduit-mcp/serve` entry: a hub or a client served as one MCP server (docs/serve.md). */
export type { AuditEntry, AuditSink } from "./audit.js";
export { type Caller, readCallersFile } from "./callers.js";
export { HTTP_LIMITS, type HttpLimits } from "./http.js";
export { type ServeHandle, type ServeOptions, type ServeTransport, serve } from "./serve.js";
export type { ServeTaskOptions } from "./task-map.js";
export type { ServePolicy } from "./tool-calls.js";
export { serveInputHandler } from "./upstream-input.js";
