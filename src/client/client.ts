import { Connection } from "../connection/connection.js";
import type { Era, ParamsBuilder, SendOptions } from "../connection/types.js";
import { McpClientError } from "../errors.js";
import { isObject, type JsonObject } from "../protocol/guards.js";
import { callerMeta } from "../protocol/meta.js";
import { ProtocolNegotiator, type Session } from "../protocol/negotiator.js";
import { META } from "../protocol/versions.js";
import { sanitizeText } from "../security/sanitize.js";
import { redactSecrets } from "../security/secret.js";
import { Telemetry } from "../telemetry/events.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../transport/jsonrpc.js";
import { ErrorCodes } from "../transport/jsonrpc.js";
import { admitPrompts, admitResources, admitResourceTemplates, admitTools, type Rejected } from "./intake.js";
import {
  type ClientOptions,
  checkRequestOptions,
  type ResolvedClientOptions,
  resolveClientOptions,
} from "./options.js";
import { type Page, readCursor, walkPages } from "./pagination.js";
import { capturePayload } from "./payload-capture.js";
import { expectComplete, toToolResult } from "./results.js";
import {
  type ClientStatus,
  type CompleteOptions,
  type CompletionRef,
  type ListOptions,
  LOG_LEVELS,
  type LogLevel,
  type Prompt,
  type PromptPage,
  type RequestOptions,
  type Resource,
  type ResourcePage,
  type ResourceTemplate,
  type ResourceTemplatePage,
  type ServerDescription,
  type Tool,
  type ToolPage,
  type ToolResult,
} from "./types.js";

/** The list methods, by the key their results carry. */
const LISTS = {
  tools: "tools/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
  prompts: "prompts/list",
} as const;
type ListKey = keyof typeof LISTS;

/**
 * One MCP server behind a typed API. The constructor validates every option and starts connecting
 * in the background; requests made before the connection is ready wait for it within their own
 * timeout.
 */
export class Client implements AsyncDisposable {
  readonly #o: ResolvedClientOptions;
  readonly #conn: Connection<Session>;
  readonly #telemetry: Telemetry;
  #logLevel: LogLevel | undefined;

  constructor(options: ClientOptions) {
    const o = resolveClientOptions(options);
    this.#o = o;
    this.#telemetry = new Telemetry(() => ({
      client: o.name,
      serverId: o.serverId,
      transport: o.transportKind,
      era: this.#conn.session?.era ?? null,
    }));
    const negotiator = new ProtocolNegotiator({
      protocol: o.protocol,
      prior: o.prior,
      probeTimeout: o.probeTimeout,
      handshakeTimeout: o.requestTimeout,
      clientInfo: o.clientInfo,
      legacyCapabilities: () => ({}),
      modernCapabilities: () => ({}),
    });
    this.#conn = new Connection<Session>({
      transport: o.transport,
      negotiator,
      telemetry: this.#telemetry,
      maxInFlight: o.maxInFlight,
      maxQueued: o.maxQueued,
      hooks: {
        notification: (m) => this.#onNotification(m),
        serverRequest: (m) => this.#onServerRequest(m),
        warn: (text) => this.#warn(text),
      },
    });
    this.#conn.start();
  }

  /** The `name` option. */
  get name(): string {
    return this.#o.name;
  }

  /** The operator-assigned id stamped on every Tool, Resource and Prompt. */
  get serverId(): string {
    return this.#o.serverId;
  }

  // ---- control -------------------------------------------------------------------------------

  /** Resolves once the handshake is done; rejects with `timeout`, or `closed` if it gave up. */
  ready(options: { timeout?: number } = {}): Promise<void> {
    return this.#conn.whenReady(options.timeout ?? this.#o.requestTimeout);
  }

  /** Reads state without I/O: `{ state, era, version, reason }`. */
  status(): ClientStatus {
    const s = this.#conn.session;
    const reason = this.#conn.reason;
    return {
      state: this.#conn.state,
      era: s?.era ?? null,
      version: s?.version ?? null,
      reason: reason ? reason.message : null,
    };
  }

  /** The negotiated era; it keeps answering while the client reconnects. */
  era(): Era {
    const s = this.#conn.session;
    if (!s) throw new McpClientError("unavailable", "not_ready");
    return s.era;
  }

  /** What the server said of itself in the handshake. */
  serverInfo(): ServerDescription {
    const s = this.#conn.session;
    if (!s) throw new McpClientError("unavailable", "not_ready");
    return {
      era: s.era,
      version: s.version,
      serverInfo: s.serverInfo,
      capabilities: s.capabilities,
      instructions: s.instructions === null ? null : sanitizeText(s.instructions, { keepNewlines: true }),
    };
  }

  /**
   * The server's instructions prepared for a model's context: null unless the client was created
   * with `includeInstructions: true`; sanitised and clamped to 16 384 characters when on.
   */
  instructionsForLlm(): string | null {
    if (!this.#o.includeInstructions) return null;
    const text = this.#conn.session?.instructions;
    return text ? sanitizeText(text, { keepNewlines: true, maxLength: 16_384 }) : null;
  }

  /** Fails pending requests with `closed` and stops the server; stays closed until `reconnect()`. */
  close(): Promise<void> {
    return this.#conn.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Drops the connection (requests in flight fail with `transport`) and connects again now. */
  reconnect(): Promise<void> {
    return this.#conn.reconnect();
  }

  // ---- requests ------------------------------------------------------------------------------

  /** `ping` (legacy) or `server/discover` (modern). */
  async ping(options?: RequestOptions): Promise<void> {
    const opts = checkRequestOptions(options);
    await this.#request((s) => (s.era === "modern" ? "server/discover" : "ping"), undefined, opts);
  }

  listTools(options?: ListOptions): Promise<ToolPage> {
    return this.#page("tools", options).then(({ items, nextCursor }) => ({
      tools: this.#admitTools(items),
      nextCursor,
    }));
  }

  listResources(options?: ListOptions): Promise<ResourcePage> {
    return this.#page("resources", options).then(({ items, nextCursor }) => ({
      resources: admitResources(items, this.#o.serverId),
      nextCursor,
    }));
  }

  listResourceTemplates(options?: ListOptions): Promise<ResourceTemplatePage> {
    return this.#page("resourceTemplates", options).then(({ items, nextCursor }) => ({
      resourceTemplates: admitResourceTemplates(items, this.#o.serverId),
      nextCursor,
    }));
  }

  listPrompts(options?: ListOptions): Promise<PromptPage> {
    return this.#page("prompts", options).then(({ items, nextCursor }) => ({
      prompts: admitPrompts(items, this.#o.serverId),
      nextCursor,
    }));
  }

  /** Every page of `tools/list`, with the pagination caps; tools that fail intake are left out. */
  async listAllTools(options?: RequestOptions): Promise<Tool[]> {
    return this.#admitTools(await this.#walk("tools", options));
  }

  async listAllResources(options?: RequestOptions): Promise<Resource[]> {
    return admitResources(await this.#walk("resources", options), this.#o.serverId);
  }

  async listAllResourceTemplates(options?: RequestOptions): Promise<ResourceTemplate[]> {
    return admitResourceTemplates(await this.#walk("resourceTemplates", options), this.#o.serverId);
  }

  async listAllPrompts(options?: RequestOptions): Promise<Prompt[]> {
    return admitPrompts(await this.#walk("prompts", options), this.#o.serverId);
  }

  /**
   * Calls a tool. A tool that ran and failed resolves with `isError: true`; only a failure to get
   * an answer rejects.
   */
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<ToolResult> {
    if (typeof name !== "string" || name.length === 0)
      throw new TypeError("conduit-mcp: tool name must be a string");
    if (args !== undefined && !isObject(args))
      throw new TypeError("conduit-mcp: tool arguments must be an object");
    const opts = checkRequestOptions(options);
    const tel = this.#telemetry;
    const traced =
      tel.active("tool_call:start") || tel.active("tool_call:stop") || tel.active("tool_call:exception");
    if (!traced) {
      const wire = await this.#request("tools/call", { name, arguments: args ?? {} }, opts);
      return toToolResult(expectComplete(wire));
    }
    const start = Date.now();
    const toolName = sanitizeText(name, { maxLength: 128 });
    const capture = this.#o.capturePayloads;
    tel.emit("tool_call:start", () => ({
      toolName,
      ...(capture ? { arguments: capturePayload(capture, args ?? {}) } : {}),
    }));
    try {
      const wire = await this.#request("tools/call", { name, arguments: args ?? {} }, opts);
      const result = toToolResult(expectComplete(wire));
      tel.emit("tool_call:stop", () => ({
        toolName,
        status: "ok",
        errorKind: null,
        isError: result.isError,
        rounds: 1,
        duration: Date.now() - start,
        ...(capture
          ? {
              result: capturePayload(capture, {
                content: result.content,
                isError: result.isError,
                structuredContent: result.structured,
              }),
            }
          : {}),
      }));
      return result;
    } catch (err) {
      const aborted = opts.signal?.aborted === true && err === opts.signal.reason;
      if (err instanceof McpClientError || aborted) {
        tel.emit("tool_call:stop", () => ({
          toolName,
          status: aborted ? "cancelled" : "error",
          errorKind: err instanceof McpClientError ? err.kind : null,
          isError: null,
          rounds: 1,
          duration: Date.now() - start,
          ...(capture ? { result: null } : {}),
        }));
      } else {
        tel.emit("tool_call:exception", () => ({ toolName, duration: Date.now() - start }));
      }
      throw err;
    }
  }

  /** `resources/read`: the server's `ReadResourceResult`. */
  async readResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const result = expectComplete(
      await this.#request("resources/read", { uri }, checkRequestOptions(options)),
    );
    if (!Array.isArray(result.contents)) throw new McpClientError("protocol", "invalid_read_result");
    return result;
  }

  /** `prompts/get`: arguments are turned into strings; null and undefined values are dropped. */
  async getPrompt(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<JsonObject> {
    if (typeof name !== "string" || name.length === 0)
      throw new TypeError("conduit-mcp: prompt name must be a string");
    if (args !== undefined && !isObject(args))
      throw new TypeError("conduit-mcp: prompt arguments must be an object");
    const strArgs: Record<string, string> = {};
    for (const [k, v] of Object.entries(args ?? {})) {
      if (v === null || v === undefined) continue;
      strArgs[k] = typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
    }
    const params: JsonObject = { name };
    if (Object.keys(strArgs).length > 0) params.arguments = strArgs;
    const result = expectComplete(await this.#request("prompts/get", params, checkRequestOptions(options)));
    if (!Array.isArray(result.messages)) throw new McpClientError("protocol", "invalid_prompt_result");
    return result;
  }

  /** `completion/complete` for a prompt argument or a resource template variable. */
  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    options?: CompleteOptions,
  ): Promise<JsonObject> {
    const wireRef = toWireRef(ref);
    if (!isObject(argument) || typeof argument.name !== "string" || typeof argument.value !== "string") {
      throw new TypeError("conduit-mcp: argument must be { name: string, value: string }");
    }
    const opts = checkRequestOptions(options, ["context"]) as CompleteOptions;
    const params: JsonObject = { ref: wireRef, argument: { name: argument.name, value: argument.value } };
    if (opts.context !== undefined) {
      if (!isObject(opts.context)) throw new TypeError('conduit-mcp: option "context" must be an object');
      params.context = opts.context;
    }
    const result = expectComplete(await this.#request("completion/complete", params, opts));
    if (!isObject(result.completion) || !Array.isArray(result.completion.values)) {
      throw new McpClientError("protocol", "invalid_complete_result");
    }
    return result;
  }

  /**
   * The least severe server log level wanted. Legacy: a `logging/setLevel` request. Modern: kept
   * and sent in every later request's `_meta`.
   */
  async setLogLevel(level: LogLevel, options?: RequestOptions): Promise<void> {
    if (!LOG_LEVELS.includes(level)) throw new TypeError(`conduit-mcp: unknown log level "${String(level)}"`);
    const opts = checkRequestOptions(options);
    // One deadline for the wait and the request together.
    const deadline = Date.now() + (opts.timeout ?? this.#o.requestTimeout);
    if (this.#conn.state !== "ready") await this.#conn.whenReady(deadline - Date.now(), opts.signal);
    if (this.#conn.session?.era === "modern") {
      this.#logLevel = level;
      return;
    }
    await this.#request(
      "logging/setLevel",
      { level },
      { ...opts, timeout: Math.max(1, deadline - Date.now()) },
    );
    this.#logLevel = level;
  }

  // ---- internals -----------------------------------------------------------------------------

  /**
   * Sends one request. `params` gains `_meta` as the era wants it when the request is sent
   * (which may be after the handshake, for a request made while connecting); a method given as
   * a function of the session (ping) is resolved then too.
   */
  #request(
    method: string | ((s: Session) => string),
    params: JsonObject | undefined,
    opts: RequestOptions,
  ): Promise<JsonObject> {
    const o = this.#o;
    const send: SendOptions = {
      timeout: opts.timeout ?? o.requestTimeout,
      maxTotalTimeout: opts.maxTotalTimeout ?? o.maxTotalTimeout,
      signal: opts.signal,
      onProgress: opts.onProgress,
      resetTimeoutOnProgress: opts.resetTimeoutOnProgress,
    };
    const build: ParamsBuilder<Session> = (session, token) => {
      const p: JsonObject = params ? { ...params } : {};
      if (session.era === "modern") {
        const m = callerMeta(opts.meta, opts.traceparent, true) ?? {};
        m[META.protocolVersion] = session.version;
        m[META.clientCapabilities] = {};
        m[META.clientInfo] = o.clientInfo;
        if (this.#logLevel) m[META.logLevel] = this.#logLevel;
        if (token !== undefined) m.progressToken = token;
        p._meta = m;
      } else {
        let m = callerMeta(opts.meta, undefined, false);
        if (token !== undefined) {
          m ??= {};
          m.progressToken = token;
        }
        if (m) p._meta = m;
      }
      return p;
    };
    return this.#conn.request(method, build, send);
  }

  async #page(key: ListKey, options: ListOptions | undefined): Promise<Page> {
    const opts = checkRequestOptions(options, ["cursor"]) as ListOptions;
    if (opts.cursor !== undefined && typeof opts.cursor !== "string") {
      throw new TypeError('conduit-mcp: option "cursor" must be a string');
    }
    return this.#fetchPage(key, opts.cursor, opts);
  }

  async #fetchPage(key: ListKey, cursor: string | undefined, opts: RequestOptions): Promise<Page> {
    const result = expectComplete(
      await this.#request(LISTS[key], cursor === undefined ? {} : { cursor }, opts),
    );
    const items = result[key];
    if (!Array.isArray(items)) throw new McpClientError("protocol", "invalid_list_result");
    return { items, nextCursor: readCursor(result.nextCursor) };
  }

  /** Walks every page within one deadline: `timeout` bounds the whole walk. */
  #walk(key: ListKey, options: RequestOptions | undefined): Promise<unknown[]> {
    const opts = checkRequestOptions(options);
    const deadline = Date.now() + (opts.timeout ?? this.#o.requestTimeout);
    return walkPages((cursor) => {
      const left = deadline - Date.now();
      if (left <= 0) throw new McpClientError("timeout", "deadline_exceeded");
      return this.#fetchPage(key, cursor, { ...opts, timeout: left });
    });
  }

  #admitTools(items: unknown[]): Tool[] {
    const { tools, rejected } = admitTools(items, this.#o.serverId);
    for (const r of rejected) this.#toolRejected(r);
    return tools;
  }

  #toolRejected(r: Rejected): void {
    this.#warn(`server "${this.#o.serverId}" listed a tool that was left out (${r.reason}): ${r.name}`);
    this.#telemetry.emit("tool:rejected", () => ({ toolName: r.name, reason: r.reason }));
  }

  #warn(text: string): void {
    try {
      this.#o.logger.warn(redactSecrets(sanitizeText(text, { maxLength: 500 })));
    } catch {
      // A logger that throws must not take the connection down.
    }
  }

  #onNotification(m: JsonRpcNotification): void {
    this.#telemetry.emit("notification", () => ({ method: sanitizeText(m.method, { maxLength: 128 }) }));
  }

  async #onServerRequest(m: JsonRpcRequest): Promise<JsonObject> {
    if (m.method === "ping") return {};
    throw { code: ErrorCodes.methodNotFound, message: "Method not found" };
  }
}

function toWireRef(input: CompletionRef): JsonObject {
  const ref: JsonObject | undefined = isObject(input) ? input : undefined;
  if (ref) {
    if (ref.type === "ref/prompt" && typeof ref.name === "string")
      return { type: "ref/prompt", name: ref.name };
    if (ref.type === "ref/resource" && typeof ref.uri === "string")
      return { type: "ref/resource", uri: ref.uri };
    if (typeof ref.prompt === "string") return { type: "ref/prompt", name: ref.prompt };
    if (typeof ref.resource === "string") return { type: "ref/resource", uri: ref.resource };
  }
  throw new TypeError(
    "conduit-mcp: ref must be { prompt: name }, { resource: uriTemplate } or a wire reference",
  );
}
