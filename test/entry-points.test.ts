/**
 * The entry points export exactly the names reviewed here (issue 25, "a smaller front door"): a
 * name added to an entry fails this test until it is added to the list below, on purpose, so the
 * root entry cannot silently grow back into a list of internals. Names are read from the entry
 * file's re-export statements (TypeScript's parser: an entry is a list of `export ... from`),
 * and the values also from importing it. The packed package's subpaths are checked in
 * test/package.test.ts, their import weight in test/import-weight.test.ts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Every name an entry file exports, types included. */
function exportedNames(file: string): string[] {
  const path = fileURLToPath(new URL(`../${file}`, import.meta.url));
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      // `export * from` would export whatever the module grows: an entry names each export.
      if (!statement.exportClause || !ts.isNamedExports(statement.exportClause))
        throw new Error(`${file}: export * is not a reviewed list`);
      names.push(...statement.exportClause.elements.map((e) => e.name.text));
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      throw new Error(`${file}: an entry re-exports; it declares nothing of its own`);
    }
  }
  return names.sort();
}

const sorted = (names: Iterable<string>) => [...names].sort();

/** The root entry, `conduit-mcp`, by what an application does with it. */
const ROOT: Record<string, string[]> = {
  "the client": [
    "Client",
    "VERSION",
    "ClientOptions",
    "ClientStatus",
    "ConnectionState",
    "TransitionEvent",
    "Backoff",
    "Logger",
    "LogLevel",
    "LOG_LEVELS",
    "Era",
    "ProtocolChoice",
    "ProtocolVersion",
    "PROTOCOL_CHOICES",
    "ServerDescription",
    "Implementation",
    "TelemetryOptions",
    "CapturePayloads",
  ],
  "requests and results": [
    "RequestOptions",
    "CallToolOptions",
    "ListOptions",
    "ListAllOptions",
    "CompleteOptions",
    "CompletionRef",
    "ProgressParams",
    "Tool",
    "ToolAnnotations",
    "ToolResult",
    "ToolPage",
    "Prompt",
    "PromptMessage",
    "PromptPage",
    "GetPromptResult",
    "Resource",
    "ResourceTemplate",
    "ResourcePage",
    "ResourceTemplatePage",
    "ReadResourceResult",
    "ResourceContents",
    "TextResourceContents",
    "BlobResourceContents",
    "JsonObject",
    "Task",
    "TaskStatus",
    "AwaitTaskOptions",
  ],
  "content blocks": [
    "ContentBlock",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "EmbeddedResource",
    "Annotations",
    "UnknownContentBlock",
    "UnknownContentType",
  ],
  "answering the server and notifications": [
    "InputHandler",
    "InputContext",
    "InputOptions",
    "InputRefusal",
    "ElicitationMode",
    "NotificationContext",
    "ServerNotification",
    "TOOL_DEFINITION_CHANGED",
  ],
  events: ["subscribe", "EventName"],
  "errors and secrets": [
    "McpClientError",
    "McpClientErrorConstructor",
    "ErrorKind",
    "ErrorReason",
    "ReasonCode",
    "ErrorDetail",
    "ErrorDetails",
    "DetailOf",
    "DenialDetail",
    "DependencyDetail",
    "HookDetail",
    "JsonRpcDetail",
    "ServerDownDetail",
    "StrictSchemaDetail",
    "OptionError",
    "OptionProblem",
    "Secret",
    "MaybeSecret",
    "sanitizeText",
    "sanitizeValue",
  ],
  transports: [
    "StdioTransport",
    "StdioTransportOptions",
    "HttpTransport",
    "HttpTransportOptions",
    "HttpAuth",
    "HttpAuthFunction",
    "HttpAuthRequest",
    "HttpTlsOptions",
    "Resolver",
    "ServerUrlPolicy",
    "InProcessTransport",
    "InProcessTransportOptions",
    "InProcessServer",
    "InProcessSession",
    "InProcessPeer",
    "OfficialServer",
    "OfficialServerFactory",
    "Transport",
    "TransportSink",
    "JsonRpcMessage",
    "JsonRpcRequest",
    "JsonRpcResponse",
    "JsonRpcNotification",
    "RequestId",
  ],
  OAuth: [
    "oauth",
    "clientCredentials",
    "AuthProviderFactory",
    "AuthProvider",
    "AuthProviderContext",
    "AuthCredential",
    "AuthChallengeEvent",
    "FileTokenStore",
    "MemoryTokenStore",
    "OAuthOptions",
    "ClientCredentialsOptions",
    "DpopOption",
    "EnterpriseOptions",
    "PrivateKeyInput",
    "StoredClient",
    "StoredTokens",
    "TokenEndpointAuthMethod",
    "TokenKey",
    "TokenStore",
  ],
  "stores a fleet shares": [
    "Stores",
    "BudgetStore",
    "EraRecord",
    "EraStore",
    "Grant",
    "GrantKey",
    "GrantStore",
    "ListCacheStore",
    "ListChangeListener",
    "ListKey",
    "ListKind",
    "RateLimit",
    "StoredList",
    "MemoryBudgetStore",
    "MemoryEraStore",
    "MemoryGrantStore",
    "MemoryListCacheStore",
  ],
  "the hub and config files": [
    "Hub",
    "HubOptions",
    "HubClientOptions",
    "HubServerConfig",
    "HubListing",
    "HubListOptions",
    "HubStatus",
    "HubTool",
    "ServerInstructions",
    "ServerListing",
    "ToolsChange",
    "ToolsChangeReason",
    "loadServersConfig",
    "LoadServersConfigOptions",
    "qualifyToolName",
  ],
  "tool search": [
    "ClientSearchOptions",
    "ClientSearchResult",
    "EmbedFunction",
    "HubSearchOptions",
    "HubSearchResult",
    "SearchToolsOptions",
  ],
  "the call pipeline": ["ToolCall", "CallTool", "ToolCallInterceptor"],
  "tools for a model": [
    "callForModel",
    "ModelCallOptions",
    "toLlmResult",
    "LlmResult",
    "LlmPart",
    "LlmErrorKind",
    "LlmShapeOptions",
    "LlmCallToolOptions",
    "LlmOutcomeOptions",
    "Provenance",
    "CallableTool",
    "ToolCaller",
    "ToolFilterOptions",
    "ToolListOptions",
  ],
};

/** The names of ROOT that are values (the rest are types). */
const ROOT_VALUES = [
  "Client",
  "callForModel",
  "clientCredentials",
  "oauth",
  "FileTokenStore",
  "HttpTransport",
  "Hub",
  "InProcessTransport",
  "LOG_LEVELS",
  "McpClientError",
  "MemoryTokenStore",
  "MemoryBudgetStore",
  "MemoryEraStore",
  "MemoryGrantStore",
  "MemoryListCacheStore",
  "OptionError",
  "PROTOCOL_CHOICES",
  "Secret",
  "StdioTransport",
  "TOOL_DEFINITION_CHANGED",
  "VERSION",
  "loadServersConfig",
  "qualifyToolName",
  "sanitizeText",
  "sanitizeValue",
  "subscribe",
  "toLlmResult",
];

/** Names the root entry no longer exports, and where they live now ("internal": nowhere public). */
const MOVED: Record<string, "governance" | "telemetry" | "http" | "internal"> = {
  refuse: "governance",
  toolDigest: "governance",
  definitionOf: "governance",
  sendAgainAfter: "governance",
  EVENT_NAMES: "telemetry",
  CHANNEL_PREFIX: "telemetry",
  encodeHeaderValue: "http",
  mcpHeaderAnnotations: "http",
  invalidMcpHeaderAnnotations: "http",
  Governor: "internal",
  classifyProbe: "internal",
  fullJitter: "internal",
  Deadline: "internal",
  ERROR_KINDS: "internal",
  ERROR_REASONS: "internal",
  OPTION_PROBLEMS: "internal",
  LEGACY_VERSIONS: "internal",
  MODERN_VERSIONS: "internal",
  MRTR_LIMITS: "internal",
  CONFIG_LIMITS: "internal",
  MAX_QUALIFIED_NAME: "internal",
  TASKS_EXTENSION: "internal",
};

const SUBPATHS = {
  governance: { file: "src/governance/index.ts", load: () => import("../src/governance/index.js") },
  telemetry: { file: "src/telemetry/index.ts", load: () => import("../src/telemetry/index.js") },
  http: { file: "src/transport/http/public.ts", load: () => import("../src/transport/http/public.js") },
} as const;

describe("the root entry", () => {
  it("exports exactly the reviewed names, types included", () => {
    const reviewed = Object.values(ROOT).flat();
    expect(new Set(reviewed).size, "a name listed twice").toBe(reviewed.length);
    expect(exportedNames("src/index.ts")).toEqual(sorted(reviewed));
  });

  it("exports exactly the reviewed values", async () => {
    expect(sorted(Object.keys(await import("../src/index.js")))).toEqual(sorted(ROOT_VALUES));
    // Every value is a reviewed name too.
    expect(ROOT_VALUES.filter((name) => !Object.values(ROOT).flat().includes(name))).toEqual([]);
  });
});

describe("the subpaths", () => {
  it("conduit-mcp/telemetry exports exactly the reviewed names", async () => {
    expect(exportedNames(SUBPATHS.telemetry.file)).toEqual(
      sorted([
        "CHANNEL_PREFIX",
        "EVENT_NAMES",
        "EventName",
        "subscribe",
        "OpenTelemetryOptions",
        "TracerProviderLike",
        "MeterProviderLike",
      ]),
    );
    const telemetry = await SUBPATHS.telemetry.load();
    expect(sorted(Object.keys(telemetry))).toEqual(["CHANNEL_PREFIX", "EVENT_NAMES", "subscribe"]);
    // One function, whichever entry it is imported from.
    expect(telemetry.subscribe).toBe((await import("../src/index.js")).subscribe);
  });

  it("conduit-mcp/http exports exactly the reviewed names", async () => {
    expect(exportedNames(SUBPATHS.http.file)).toEqual(
      sorted([
        "encodeHeaderValue",
        "mcpHeaderAnnotations",
        "invalidMcpHeaderAnnotations",
        "McpHeaderAnnotation",
      ]),
    );
    expect(sorted(Object.keys(await SUBPATHS.http.load()))).toEqual([
      "encodeHeaderValue",
      "invalidMcpHeaderAnnotations",
      "mcpHeaderAnnotations",
    ]);
  });

  it("conduit-mcp/serve exports exactly the reviewed names", async () => {
    expect(exportedNames("src/serve/index.ts")).toEqual(
      sorted([
        "AuditEntry",
        "AuditSink",
        "Caller",
        "readCallersFile",
        "HTTP_LIMITS",
        "HttpLimits",
        "ServeHandle",
        "ServeOptions",
        "ServeTransport",
        "serve",
        "ServePolicy",
        "serveInputHandler",
        "ServeTaskOptions",
      ]),
    );
    expect(sorted(Object.keys(await import("../src/serve/index.js")))).toEqual([
      "HTTP_LIMITS",
      "readCallersFile",
      "serve",
      "serveInputHandler",
    ]);
  });

  it("every name moved out of the root is in its new home and not in the root (CHANGELOG.md)", async () => {
    const root = exportedNames("src/index.ts");
    const homes = {
      governance: Object.keys(await SUBPATHS.governance.load()),
      telemetry: Object.keys(await SUBPATHS.telemetry.load()),
      http: Object.keys(await SUBPATHS.http.load()),
    };
    for (const [name, home] of Object.entries(MOVED)) {
      expect(root, name).not.toContain(name);
      if (home === "internal") {
        for (const names of Object.values(homes)) expect(names, name).not.toContain(name);
      } else expect(homes[home], `${name} in conduit-mcp/${home}`).toContain(name);
    }
  });
});

describe("conduit-mcp/tool-search", () => {
  it("exports exactly the reviewed values (and the three adapters their tool-search names)", async () => {
    expect(sorted(Object.keys(await import("../src/adapters/tool-search.js")))).toEqual(
      sorted(["portableToolSearch", "toolManifestTokens", "toLlmResult", "CALL_TOOL_PARAMETERS"]),
    );
    const anthropic = Object.keys(await import("../src/adapters/anthropic.js"));
    expect(anthropic).toEqual(
      expect.arrayContaining(["ANTHROPIC_SEARCH_TOOL", "toAnthropicToolSearchResult"]),
    );
    expect(Object.keys(await import("../src/adapters/openai.js"))).toContain("answerToolSearch");
    expect(Object.keys(await import("../src/adapters/ai-sdk.js"))).toEqual(
      expect.arrayContaining(["AI_SDK_SEARCH_TOOL", "aiSdkToolSearch"]),
    );
  });
});
