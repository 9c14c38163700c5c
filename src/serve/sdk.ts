import { keepHandler, keepInfo } from "./handlers.js";

/**
 * The part of the official server SDK (`@modelcontextprotocol/server`, an optional peer) that
 * serve uses, typed here so nothing of it is imported before `serve()` runs: loaded once, lazily.
 */

export interface SdkContext {
  mcpReq: {
    signal: AbortSignal;
    inputResponses?: Record<string, unknown>;
    requestState: () => unknown;
    /** 2026-07-28: the request's envelope `_meta` keys (the SDK takes them out of `params._meta`). */
    envelope?: Record<string, unknown>;
    notify: (n: { method: string; params?: Record<string, unknown> }) => Promise<void>;
  };
  http?: { authInfo?: { extra?: Record<string, unknown> } };
}

export interface SdkServer {
  setRequestHandler(
    method: string,
    handler: (request: { params?: Record<string, unknown> }, ctx: SdkContext) => Promise<unknown>,
  ): void;
  getClientCapabilities(): Record<string, unknown> | undefined;
  sendToolListChanged(): Promise<void>;
  sendResourceListChanged(): Promise<void>;
  sendPromptListChanged(): Promise<void>;
  sendLoggingMessage(params: { level: string; logger?: string; data: unknown }): Promise<void>;
  projectCallToolResult(
    result: Record<string, unknown>,
    schema: Record<string, unknown> | undefined,
  ): unknown;
  connect(transport: unknown): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
}

export interface SdkHttpHandler {
  fetch(request: Request, options?: { authInfo?: unknown; parsedBody?: unknown }): Promise<Response>;
  close(): Promise<void>;
  notify: { toolsChanged(): void; promptsChanged(): void; resourcesChanged(): void };
}

export interface SdkHttpTransport {
  handleRequest(request: Request, options?: { parsedBody?: unknown; authInfo?: unknown }): Promise<Response>;
  close(): Promise<void>;
  sessionId?: string;
}

export interface Sdk {
  Server: new (info: { name: string; version: string }, options: Record<string, unknown>) => SdkServer;
  ProtocolError: new (code: number, message: string, data?: unknown) => Error;
  inputRequired: (spec: { inputRequests: Record<string, unknown>; requestState?: string }) => unknown;
  createMcpHandler: (
    factory: (ctx: { era: string; authInfo?: { extra?: Record<string, unknown> } }) => SdkServer,
    options: Record<string, unknown>,
  ) => SdkHttpHandler;
  isLegacyRequest: (request: Request, parsedBody?: unknown) => Promise<boolean>;
  isInitializeRequest: (body: unknown) => boolean;
  /** The SDK's own era classification of an HTTP request (headers and body; validates the envelope). */
  classifyInboundRequest: (request: {
    httpMethod: string;
    body: unknown;
    protocolVersionHeader?: string;
    mcpMethodHeader?: string;
    mcpNameHeader?: string;
  }) => { kind: string; messageKind?: string };
  SUPPORTED_PROTOCOL_VERSIONS: readonly string[];
  WebStandardStreamableHTTPServerTransport: new (options: Record<string, unknown>) => SdkHttpTransport;
}

/** The SDK's stdio transport, as serve's fast path extends it (stdio-fast.ts). */
export interface StdioWire {
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface SdkStdio {
  StdioServerTransport: new () => StdioWire;
  serveStdio: (
    factory: (ctx: { era: string }) => SdkServer,
    options: Record<string, unknown>,
  ) => { close(): Promise<void> };
}

const PACKAGE = "@modelcontextprotocol/server";

function missing(err: unknown): Error {
  return new Error(
    `conduit-mcp: serve needs the optional peer dependency ${PACKAGE} (>=2.4.0 <3); install it with: npm install ${PACKAGE}`,
    { cause: err },
  );
}

export async function loadSdk(): Promise<Sdk> {
  let sdk: Sdk;
  try {
    sdk = (await import("@modelcontextprotocol/server")) as unknown as Sdk;
  } catch (err) {
    throw missing(err);
  }
  // Servers that also keep their handlers, so the fast path (fast-call.ts) runs the same ones.
  const Server = class extends sdk.Server {
    constructor(info: { name: string; version: string }, options: Record<string, unknown>) {
      super(info, options);
      keepInfo(this, info);
    }
    override setRequestHandler(...args: Parameters<SdkServer["setRequestHandler"]>): void {
      keepHandler(this, args[0], args[1]);
      super.setRequestHandler(...args);
    }
  };
  return { ...sdk, Server };
}

export async function loadStdio(): Promise<SdkStdio> {
  try {
    return (await import("@modelcontextprotocol/server/stdio")) as unknown as SdkStdio;
  } catch (err) {
    throw missing(err);
  }
}
