/**
 * The root entry, `conduit-mcp`: what an application uses (docs/README.md "Entry points").
 * Governance, telemetry wiring and the HTTP header helpers have subpaths of their own; internals
 * are exported by none. test/entry-points.test.ts holds the reviewed list of these names: a new
 * one is added there on purpose.
 */
export { FileTokenStore } from "./auth/file-store.js";
export { MemoryTokenStore } from "./auth/memory-store.js";
// Values for the HTTP transport's `auth`; cheap to import (the flows load on first use).
export { clientCredentials, oauth } from "./auth/oauth.js";
export type {
  ClientCredentialsOptions,
  DpopOption,
  EnterpriseOptions,
  OAuthOptions,
  PrivateKeyInput,
  StoredClient,
  StoredTokens,
  TokenEndpointAuthMethod,
  TokenKey,
  TokenStore,
} from "./auth/types.js";
export { Client } from "./client/client.js";
export type {
  ElicitationMode,
  InputContext,
  InputHandler,
  InputOptions,
  InputRefusal,
  NotificationContext,
} from "./client/input/options.js";
export type { ListAllOptions } from "./client/lists.js";
export { TOOL_DEFINITION_CHANGED } from "./client/lists.js";
export type { ServerNotification } from "./client/notifications/fan-out.js";
export type { CapturePayloads, ClientOptions, TelemetryOptions } from "./client/options.js";
// Tool search over a hub's or a client's tools (src/search/, docs/tool-search.md).
export type { ClientSearchOptions, ClientSearchResult } from "./client/search.js";
export type { AwaitTaskOptions, Task, TaskStatus } from "./client/tasks.js";
export type { CallableTool, ToolCaller } from "./client/tool-caller.js";
export type { ToolFilterOptions, ToolListOptions } from "./client/tool-filter.js";
export type {
  Annotations,
  AudioContent,
  BlobResourceContents,
  CallToolOptions,
  ClientStatus,
  CompleteOptions,
  CompletionRef,
  ConnectionState,
  ContentBlock,
  EmbeddedResource,
  Era,
  GetPromptResult,
  ImageContent,
  Implementation,
  JsonObject,
  ListOptions,
  Logger,
  LogLevel,
  ProgressParams,
  Prompt,
  PromptMessage,
  PromptPage,
  ReadResourceResult,
  RequestOptions,
  Resource,
  ResourceContents,
  ResourceLink,
  ResourcePage,
  ResourceTemplate,
  ResourceTemplatePage,
  ServerDescription,
  TextContent,
  TextResourceContents,
  Tool,
  ToolAnnotations,
  ToolPage,
  ToolResult,
  UnknownContentBlock,
  UnknownContentType,
} from "./client/types.js";
export { LOG_LEVELS } from "./client/types.js";
export { VERSION } from "./client/version.js";
export type { TransitionEvent } from "./connection/types.js";
export { type LoadServersConfigOptions, loadServersConfig } from "./hub/config/load-servers-config.js";
export { Hub } from "./hub/hub.js";
export type { HubClientOptions, HubOptions, HubServerConfig } from "./hub/options.js";
export type { EmbedFunction, HubSearchOptions, HubSearchResult, SearchToolsOptions } from "./hub/search.js";
export type { ServerListing, ToolsChangeReason } from "./hub/server-slot.js";
export type {
  HubListing,
  HubListOptions,
  HubStatus,
  HubTool,
  ServerInstructions,
  ToolsChange,
} from "./hub/types.js";
export type { Resolver, ServerUrlPolicy } from "./security/url-policy.js";
// Model shaping, a floor above the client (src/shaping/).
export { callForModel, type ModelCallOptions } from "./shaping/call-for-model.js";
export type { LlmCallToolOptions, LlmOutcomeOptions } from "./shaping/llm-call.js";
export {
  type LlmErrorKind,
  type LlmPart,
  type LlmResult,
  type LlmShapeOptions,
  type Provenance,
  toLlmResult,
} from "./shaping/llm-result.js";
export type { Backoff } from "./shared/backoff.js";
export type { ReasonCode } from "./shared/error-reasons.js";
export {
  type DenialDetail,
  type DependencyDetail,
  type DetailOf,
  type ErrorDetail,
  type ErrorDetails,
  type ErrorKind,
  type ErrorReason,
  type HookDetail,
  type JsonRpcDetail,
  McpClientError,
  type McpClientErrorConstructor,
  type ServerDownDetail,
  type StrictSchemaDetail,
} from "./shared/errors.js";
export type {
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcRequest,
  JsonRpcResponse,
  RequestId,
} from "./shared/jsonrpc.js";
export { OptionError, type OptionProblem } from "./shared/option-error.js";
export { sanitizeText, sanitizeValue } from "./shared/sanitize.js";
export { type MaybeSecret, Secret } from "./shared/secret.js";
export type { CallTool, ToolCall, ToolCallInterceptor } from "./shared/tool-call.js";
export { PROTOCOL_CHOICES, type ProtocolChoice, type ProtocolVersion } from "./shared/versions.js";
// The state a fleet shares (docs/fleet.md): the store interfaces and their in-memory defaults.
export type {
  BudgetStore,
  EraRecord,
  EraStore,
  Grant,
  GrantKey,
  GrantStore,
  ListCacheStore,
  ListChangeListener,
  ListKey,
  ListKind,
  RateLimit,
  StoredList,
  Stores,
} from "./stores/index.js";
export {
  MemoryBudgetStore,
  MemoryEraStore,
  MemoryGrantStore,
  MemoryListCacheStore,
} from "./stores/index.js";
export { type EventName, subscribe } from "./telemetry/events.js";
// What a credential source of your own implements (oauth() is one).
export type {
  AuthChallengeEvent,
  AuthCredential,
  AuthProvider,
  AuthProviderContext,
  AuthProviderFactory,
} from "./transport/credentials.js";
export type {
  HttpAuth,
  HttpAuthFunction,
  HttpAuthRequest,
  HttpTlsOptions,
  HttpTransportOptions,
} from "./transport/http/options.js";
export { HttpTransport } from "./transport/http/transport.js";
export {
  type InProcessPeer,
  type InProcessServer,
  type InProcessSession,
  InProcessTransport,
  type InProcessTransportOptions,
  type OfficialServer,
  type OfficialServerFactory,
} from "./transport/in-process.js";
export { StdioTransport } from "./transport/stdio.js";
export type { StdioTransportOptions } from "./transport/stdio-options.js";
export type { Transport, TransportSink } from "./transport/transport.js";
export { qualifyToolName } from "./util/qualify.js";
