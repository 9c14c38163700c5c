import { guardedBackoff } from "../connection/backoff.js";
import { Connection } from "../connection/connection.js";
import type { Era, ServerRequestInfo, TransitionEvent } from "../connection/types.js";
import { Governor } from "../governance/governor.js";
import {
  announcesRootsChanged,
  logLevelIsRequest,
  pingMethod,
  RequestShaper,
  routesNotifications,
  takesServerRequests,
} from "../protocol/era.js";
import { ProtocolNegotiator, type Session } from "../protocol/negotiator.js";
import { Deadline } from "../shared/deadline.js";
import { withinDepth } from "../shared/depth.js";
import { McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../shared/jsonrpc.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import { OptionError } from "../shared/option-error.js";
import { sanitizeText } from "../shared/sanitize.js";
import { redactSecrets } from "../shared/secret.js";
import { Telemetry } from "../telemetry/events.js";
import { OpenTelemetryBridge } from "../telemetry/open-telemetry.js";
import type { HttpAuth } from "../transport/factory.js";
import { qualifyToolName } from "../util/qualify.js";
import type { CredentialIdentity } from "./cache/list-cache.js";
import { InputService } from "./input/service.js";
import { admitPrompts, admitResources, admitResourceTemplates, admitTools, type Rejected } from "./intake.js";
import { LIST_METHODS, type ListAllOptions, Lists } from "./lists.js";
import { callShaped, type LlmCallToolOptions, wantsLlmShape } from "./llm-call.js";
import type { LlmResult } from "./llm-result.js";
import { NotificationFanOut, type ServerNotification } from "./notifications/fan-out.js";
import {
  type ClientOptions,
  checkCallToolOptions,
  checkRequestOptions,
  checkToolCall,
  type ResolvedClientOptions,
  resolveClientOptions,
} from "./options.js";
import { type Page, readCursor } from "./pagination.js";
import { promptArguments, toWireRef } from "./request-params.js";
import { Requester } from "./requester.js";
import { expectComplete } from "./results.js";
import { Subscriptions } from "./subscriptions.js";
import { type AwaitTaskOptions, type Task, Tasks } from "./tasks.js";
import type { CallableTool, ToolCaller } from "./tool-caller.js";
import { ToolCalls } from "./tool-calls.js";
import { compileToolFilter, filterListedTools, TOOL_LIST_KEYS, type ToolListOptions } from "./tool-filter.js";
import { tracedNegotiator } from "./traced-negotiator.js";
import {
  type CallToolOptions,
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
import { VERSION } from "./version.js";

type ListKey = keyof typeof LIST_METHODS;
const LIST_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(LIST_METHODS));

/**
 * One MCP server behind a typed API. The constructor validates every option and starts connecting
 * in the background; requests made before the connection is ready wait for it within their own
 * timeout.
 */
export class Client implements AsyncDisposable, ToolCaller {
  readonly #o: ResolvedClientOptions;
  readonly #conn: Connection<Session>;
  readonly #telemetry: Telemetry;
  /** Spans and metrics through OpenTelemetry, when asked for. */
  readonly #otel: OpenTelemetryBridge | null;
  /** Shapes params per era; holds the log level a modern request carries. */
  readonly #shaper: RequestShaper;
  readonly #requester: Requester;
  readonly #stateListeners = new Set<(event: TransitionEvent) => void>();
  readonly #fanOut: NotificationFanOut;
  readonly #lists: Lists;
  readonly #subs: Subscriptions;
  readonly #tasks: Tasks;
  readonly #input: InputService;
  readonly #toolCalls: ToolCalls;

  constructor(options: ClientOptions) {
    const o = resolveClientOptions(options);
    this.#o = o;
    this.#otel = o.openTelemetry
      ? new OpenTelemetryBridge(o.openTelemetry.options, o.openTelemetry.peer, VERSION)
      : null;
    this.#telemetry = new Telemetry(() => ({
      client: o.name,
      serverId: o.serverId,
      transport: o.transportKind,
      era: this.#conn.session?.era ?? null,
    }));
    this.#input = new InputService(o.input, {
      client: o.name,
      serverId: o.serverId,
      era: () => this.#conn.session?.era ?? null,
      warn: (text) => this.#warn(text),
      pauseDeadline: (id) => this.#conn.pauseDeadline(id),
    });
    this.#shaper = new RequestShaper({
      clientInfo: o.clientInfo,
      modernCapabilities: () => this.#input.modernCapabilities(),
    });
    const negotiator = new ProtocolNegotiator({
      protocol: o.protocol,
      prior: o.prior,
      probeTimeout: o.probeTimeout,
      handshakeTimeout: o.requestTimeout,
      clientInfo: o.clientInfo,
      legacyCapabilities: () => this.#input.legacyCapabilities(),
      modernCapabilities: () => this.#input.modernCapabilities(),
    });
    this.#conn = new Connection<Session>({
      transport: o.transport,
      negotiator: this.#otel ? tracedNegotiator(negotiator, this.#otel) : negotiator,
      telemetry: this.#telemetry,
      maxInFlight: o.maxInFlight,
      maxQueued: o.maxQueued,
      reconnect: {
        backoff: guardedBackoff(o.backoff, (text) => this.#warn(text), o.maxBackoff),
        maxReconnects: o.maxReconnects,
        stableAfter: o.stableAfter,
        onGiveUp: o.onGiveUp,
      },
      healthCheck:
        o.healthCheckInterval === null
          ? null
          : {
              interval: o.healthCheckInterval,
              method: pingMethod,
              build: (s, token) => this.#shaper.params(undefined, s, token, {}),
            },
      hooks: {
        notification: (m) => this.#onNotification(m),
        serverRequest: (m, info) => this.#onServerRequest(m, info),
        warn: (text) => this.#warn(text),
        transition: (event) => this.#onTransition(event),
        sessionRenewed: () => this.#resendSessionState(),
        checkResult: (method, result) => this.#checkResult(method, result),
      },
    });
    this.#requester = new Requester({
      connection: this.#conn,
      shaper: this.#shaper,
      otel: this.#otel,
      input: this.#input,
      requestTimeout: o.requestTimeout,
      maxTotalTimeout: o.maxTotalTimeout,
    });
    const requester = this.#requester;
    this.#fanOut = new NotificationFanOut({
      logRateLimit: o.logRateLimit,
      telemetry: this.#telemetry,
      warn: (text) => this.#warn(text),
      listChanged: (kind) => this.#lists.changed(kind),
      forward: (n) => this.#input.deliver(n),
    });
    this.#lists = new Lists({
      serverId: o.serverId,
      requestTimeout: o.requestTimeout,
      maxDepth: o.maxDepth,
      maxCacheTtl: o.maxCacheTtl,
      identity: () => this.#credentialIdentity(),
      credentialGeneration: () => this.#credentialGeneration(),
      telemetry: this.#telemetry,
      warn: (text) => this.#warn(text),
      fetchPage: (kind, cursor, opts) =>
        requester
          .request(LIST_METHODS[kind], cursor === undefined ? {} : { cursor }, opts)
          .then(expectComplete),
      admitTools: (items) => this.#intakeTools(items),
      toolRejected: (r) => this.#toolRejected(r),
      announce: (n) => this.#fanOut.announce(n),
    });
    this.#subs = new Subscriptions({
      era: () => this.#conn.session?.era ?? null,
      ready: () => this.#conn.state === "ready",
      serverCapabilities: () => this.#conn.session?.capabilities ?? null,
      interest: () => {
        const anyone = this.#fanOut.hasSubscribers || this.#input.takesNotifications;
        return {
          tools: anyone || this.#lists.interest("tools"),
          resources: anyone || this.#lists.interest("resources"),
          prompts: anyone || this.#lists.interest("prompts"),
        };
      },
      listen: (filter, signal, onId) =>
        this.#conn.request(
          "subscriptions/listen",
          (session, token, id) => {
            onId(id);
            // Task status notifications need the tasks extension declared on the listen itself.
            const withTasks = filter.taskIds !== undefined;
            return this.#shaper.params({ notifications: filter }, session, token, { withTasks });
          },
          // The client's own stream: no deadline, and none of the caller's maxInFlight slots.
          { deadline: new Deadline(Number.POSITIVE_INFINITY), signal, background: true },
        ),
      request: (method, params, opts) => requester.request(method, params, opts),
      backoff: guardedBackoff(o.backoff, (text) => this.#warn(text), o.maxBackoff),
      requestTimeout: o.requestTimeout,
      warn: (text) => this.#warn(text),
    });
    this.#tasks = new Tasks({
      serverId: o.serverId,
      connection: this.#conn,
      requester,
      identity: () => this.#credentialIdentity(),
      findTool: async (name, deadline, signal) => {
        const find = (tools: Tool[] | undefined) => tools?.find((t) => t.name === name);
        return (
          find(this.#lists.tools.peek()) ??
          find(await this.listAllTools({ timeout: deadline.left(), signal }))
        );
      },
      input: this.#input,
      watch: (taskId) => this.#subs.watchTask(taskId),
      warn: (text) => this.#warn(text),
    });
    this.#toolCalls = new ToolCalls({
      serverId: o.serverId,
      principal: o.principal,
      requestTimeout: o.requestTimeout,
      validateOutput: o.validateOutput,
      connection: this.#conn,
      requester,
      lists: this.#lists,
      tasks: this.#tasks,
      governor: o.governance && new Governor(o.governance, this.#telemetry),
      tracing: { telemetry: this.#telemetry, otel: this.#otel, capture: o.capturePayloads },
      listAllTools: (opts) => this.listAllTools(opts),
    });
    this.#fanOut.onConsumersChanged(() => this.#subs.onInterestChanged());
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
  async close(): Promise<void> {
    this.#subs.close();
    this.#fanOut.close();
    await this.#conn.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Drops the connection (requests in flight fail with `transport`) and connects again now.
   * Revives a client that gave up with `onGiveUp: "stay"`, or one closed with `close()`.
   */
  reconnect(): Promise<void> {
    return this.#conn.reconnect();
  }

  /**
   * Replaces the credentials of an HTTP transport (any `auth` form; `credentialId` with a
   * function) and reconnects: requests in flight fail with `transport`, listen streams and a
   * legacy session close. Private cached lists of the old credentials are deleted before it
   * returns. Throws a `TypeError` for invalid credentials, or for a transport without credentials.
   */
  async setAuth(auth: HttpAuth | null | undefined, options: { credentialId?: string } = {}): Promise<void> {
    const credentials = this.#o.transportObject?.credentials;
    if (credentials === undefined) {
      throw new TypeError("conduit-mcp: setAuth needs a transport that carries credentials (HTTP)");
    }
    credentials.replace(auth, options);
    this.#lists.dropPrivate();
    await this.#conn.reconnect({ join: false });
  }

  /**
   * Calls `listener` on every state change (`{ from, to, reason, attempt }`), the same facts as
   * the `connection:transition` event, for this client only. Returns the unsubscribe function.
   * A client that gives up with `onGiveUp: "stop"` says so here: `to: "closed"` for good.
   */
  onStateChange(listener: (event: TransitionEvent) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("conduit-mcp: listener must be a function");
    this.#stateListeners.add(listener);
    return () => {
      this.#stateListeners.delete(listener);
    };
  }

  // ---- requests ------------------------------------------------------------------------------

  /** `ping` (legacy) or `server/discover` (modern). */
  async ping(options?: RequestOptions): Promise<void> {
    const opts = checkRequestOptions(options);
    // server/discover cannot carry input_required (nor can ping): only a complete result will do.
    expectComplete(await this.#requester.request(pingMethod, undefined, opts));
  }

  listTools(options?: ListOptions): Promise<ToolPage> {
    return this.#page("tools", options).then(({ items, nextCursor }) => ({
      tools: this.#admitTools(items),
      nextCursor,
    }));
  }

  listResources(options?: ListOptions): Promise<ResourcePage> {
    return this.#page("resources", options).then(({ items, nextCursor }) => ({
      resources: admitResources(items, this.#o.serverId, this.#o.maxDepth),
      nextCursor,
    }));
  }

  listResourceTemplates(options?: ListOptions): Promise<ResourceTemplatePage> {
    return this.#page("resourceTemplates", options).then(({ items, nextCursor }) => ({
      resourceTemplates: admitResourceTemplates(items, this.#o.serverId, this.#o.maxDepth),
      nextCursor,
    }));
  }

  listPrompts(options?: ListOptions): Promise<PromptPage> {
    return this.#page("prompts", options).then(({ items, nextCursor }) => ({
      prompts: admitPrompts(items, this.#o.serverId, this.#o.maxDepth),
      nextCursor,
    }));
  }

  /**
   * Every tool, through the cache: served while fresh (the server's `ttlMs`), else fetched page
   * by page with the pagination caps. Tools that fail intake are left out. `refresh: true`
   * bypasses a fresh list.
   */
  async listAllTools(options?: ListAllOptions & ToolListOptions): Promise<Tool[]> {
    const opts = checkRequestOptions(options, ["refresh", ...TOOL_LIST_KEYS]) as ListAllOptions &
      ToolListOptions;
    // Filters are checked before any I/O, so a bad one is a TypeError, not a wasted listing.
    compileToolFilter(opts);
    if (opts.qualify !== undefined && typeof opts.qualify !== "boolean") {
      throw new TypeError('conduit-mcp: option "qualify" must be a boolean');
    }
    const tools = await this.#watching(this.#lists.all(this.#lists.tools, opts));
    return filterListedTools(tools, opts, this.#o.serverId, (text) => this.#warn(text));
  }

  /** The `ToolCaller` view: every tool, under its own name, with this client's server id. */
  async listCallableTools(options?: ListAllOptions & ToolListOptions): Promise<CallableTool[]> {
    const tools = await this.listAllTools(options);
    return tools.map((tool) => ({ name: tool.name, serverId: this.#o.serverId, tool }));
  }

  async listAllResources(options?: ListAllOptions): Promise<Resource[]> {
    const opts = checkRequestOptions(options, ["refresh"]) as ListAllOptions;
    return this.#watching(this.#lists.all(this.#lists.resources, opts));
  }

  async listAllResourceTemplates(options?: ListAllOptions): Promise<ResourceTemplate[]> {
    const opts = checkRequestOptions(options, ["refresh"]) as ListAllOptions;
    return this.#watching(this.#lists.all(this.#lists.resourceTemplates, opts));
  }

  async listAllPrompts(options?: ListAllOptions): Promise<Prompt[]> {
    const opts = checkRequestOptions(options, ["refresh"]) as ListAllOptions;
    return this.#watching(this.#lists.all(this.#lists.prompts, opts));
  }

  /** The cached tool list, never asking the server (`not_found`/`not_cached` before a listing). */
  cachedTools(): Tool[] {
    return this.#lists.cachedTools();
  }

  /** One cached tool by name, never asking the server. */
  tool(name: string): Tool {
    return this.#lists.tool(name);
  }

  // ---- notifications and subscriptions -------------------------------------------------------

  /**
   * Calls `listener` with `{ method, params }` for every server notification except progress
   * (which goes to the request's caller) and cancellation. Returns the unsubscribe function.
   */
  onNotification(listener: (notification: ServerNotification) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("conduit-mcp: listener must be a function");
    return this.#fanOut.subscribe(listener);
  }

  /**
   * The same notifications as an async iterator, until `signal` aborts or the loop breaks. A
   * consumer slower than the server loses the oldest entries (counted in the iterator's `dropped`).
   */
  notifications(
    options: { signal?: AbortSignal; bufferSize?: number } = {},
  ): AsyncIterableIterator<ServerNotification> & {
    dropped: number;
  } {
    if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
      throw new OptionError("signal", "invalid", "an AbortSignal");
    }
    const size = options.bufferSize ?? 1000;
    if (!Number.isSafeInteger(size) || size < 1)
      throw new OptionError("bufferSize", "invalid", "a positive integer");
    return this.#fanOut.iterate(options.signal, size);
  }

  /**
   * Subscribes to one resource's updates (`notifications/resources/updated` reach notification
   * subscribers). Legacy: `resources/subscribe`. Modern: resolves once a listen stream's
   * acknowledgment covers `uri`. Survives reconnects: sent again each time the client is ready.
   */
  async subscribe(uri: string, options?: RequestOptions): Promise<void> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const opts = checkRequestOptions(options);
    // One deadline for the wait for ready and the request (or acknowledgment) together.
    const deadline = this.#requester.deadline(opts);
    await this.#conn.whenReady(deadline.left(), opts.signal);
    await this.#subs.subscribe(uri, { ...opts, timeout: deadline.left() });
  }

  async unsubscribe(uri: string, options?: RequestOptions): Promise<void> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const opts = checkRequestOptions(options);
    // One deadline for the wait for ready and the request (or acknowledgment) together.
    const deadline = this.#requester.deadline(opts);
    await this.#conn.whenReady(deadline.left(), opts.signal);
    await this.#subs.unsubscribe(uri, { ...opts, timeout: deadline.left() });
  }

  /**
   * Calls a tool. A tool that ran and failed resolves with `isError: true`; only a failure to get
   * an answer rejects. With `task: "return"` the result is a `Task` when the server makes one;
   * with `task: "await"` the task is polled to its end within `timeout` (see docs/tasks.md).
   * With `shape: "llm"` the answer is shaped for a model, failures included (docs/requests.md).
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: LlmCallToolOptions,
  ): Promise<LlmResult>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions & { task?: "await" },
  ): Promise<ToolResult>;
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallToolOptions & { task: "return" },
  ): Promise<ToolResult | Task>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<ToolResult | Task>;
  async callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions | LlmCallToolOptions,
  ): Promise<ToolResult | Task | LlmResult> {
    checkToolCall(name, args);
    if (wantsLlmShape(options)) {
      const serverId = this.#o.serverId;
      const provenance = { serverId, tool: name, qualifiedName: qualifyToolName(serverId, name) };
      return callShaped(
        (o) => this.callTool(name, args, o),
        options as LlmCallToolOptions,
        () => provenance,
      );
    }
    return this.#toolCalls.call(name, args ?? {}, checkCallToolOptions(options));
  }

  /** Asks the server for a task's current state; returns the updated task. */
  getTask(task: Task, options?: RequestOptions): Promise<Task> {
    return this.#tasks.get(task, checkRequestOptions(options));
  }

  /** Polls a task to its end (see `callTool(..., { task: "await" })`); `timeout` bounds the whole wait. */
  awaitTask(task: Task, options?: AwaitTaskOptions): Promise<ToolResult> {
    const o = checkRequestOptions(options) as AwaitTaskOptions;
    return this.#tasks.await(task, o);
  }

  /** Asks the server to cancel a task (cooperative: it may still finish). */
  cancelTask(task: Task, options?: RequestOptions): Promise<void> {
    return this.#tasks.cancel(task, checkRequestOptions(options));
  }

  /** `resources/read`: the server's `ReadResourceResult`. */
  async readResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const result = expectComplete(
      await this.#requester.withInput("resources/read", { uri }, checkRequestOptions(options)),
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
    const params: JsonObject = { name };
    const strArgs = promptArguments(args);
    if (strArgs) params.arguments = strArgs;
    const result = expectComplete(
      await this.#requester.withInput("prompts/get", params, checkRequestOptions(options)),
    );
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
      if (!isObject(opts.context)) throw new OptionError("context", "invalid", "an object");
      params.context = opts.context;
    }
    const result = expectComplete(await this.#requester.request("completion/complete", params, opts));
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
    const deadline = this.#requester.deadline(opts);
    if (this.#conn.state !== "ready") await this.#conn.whenReady(deadline.left(), opts.signal);
    if (logLevelIsRequest(this.#conn.session)) {
      await this.#requester.request("logging/setLevel", { level }, opts, deadline);
    }
    this.#shaper.logLevel = level;
  }

  /**
   * Tells a legacy server that the roots changed (`notifications/roots/list_changed`), so that it
   * asks for them again. Returns true when sent; false when there is no one to tell: a modern
   * server (it asks for roots in each call's input rounds, so there is nothing to announce), a
   * client without `handler.listRoots` or with `roots.listChanged: false`, or a connection that
   * is not ready.
   */
  notifyRootsChanged(): boolean {
    const r = this.#input.legacyCapabilities().roots as JsonObject | undefined;
    if (!r?.listChanged || this.#conn.state !== "ready" || !announcesRootsChanged(this.#conn.session))
      return false;
    this.#conn.notify("notifications/roots/list_changed");
    return true;
  }

  // ---- internals -----------------------------------------------------------------------------

  async #page(key: ListKey, options: ListOptions | undefined): Promise<Page> {
    const opts = checkRequestOptions(options, ["cursor"]) as ListOptions;
    if (opts.cursor !== undefined && typeof opts.cursor !== "string") {
      throw new OptionError("cursor", "invalid", "a string");
    }
    return this.#fetchPage(key, opts.cursor, opts);
  }

  async #fetchPage(key: ListKey, cursor: string | undefined, opts: RequestOptions): Promise<Page> {
    const result = expectComplete(
      await this.#requester.request(LIST_METHODS[key], cursor === undefined ? {} : { cursor }, opts),
    );
    const items = result[key];
    if (!Array.isArray(items)) throw new McpClientError("protocol", "invalid_list_result");
    return { items, nextCursor: readCursor(result.nextCursor) };
  }

  /** A listing was asked for: in modern, its changes are now worth a listen stream. */
  async #watching<T>(work: Promise<T>): Promise<T> {
    this.#subs.onInterestChanged();
    return work;
  }

  /** Counts the transport's credential changes (0 for a transport without credentials). */
  #credentialGeneration(): number {
    return this.#o.transportObject?.credentials?.generation ?? 0;
  }

  /** Whose credentials the transport sends (the cache keys private lists by it). */
  #credentialIdentity(): CredentialIdentity {
    return this.#o.transportIdentity?.() ?? { kind: "none" };
  }

  /** Intake of a listing's tools; over HTTP, `x-mcp-header` annotations must be valid too. */
  #intakeTools(items: unknown[]): { tools: Tool[]; rejected: Rejected[] } {
    return admitTools(items, this.#o.serverId, this.#o.toolRule, this.#o.maxDepth);
  }

  /**
   * Every result is bounded in depth before anyone reads it, except listings: there each item is
   * checked at intake, so one deep tool is left out instead of failing the whole list.
   */
  #checkResult(method: string, result: JsonObject): McpClientError | undefined {
    if (LIST_METHOD_NAMES.has(method) || withinDepth(result, this.#o.maxDepth)) return undefined;
    return new McpClientError("protocol", "max_depth_exceeded", { limit: this.#o.maxDepth });
  }

  #admitTools(items: unknown[]): Tool[] {
    const { tools, rejected } = this.#intakeTools(items);
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

  /**
   * A new connection, or a renewed legacy session, knows nothing of what the old one was told:
   * resource subscriptions and listen streams, and (legacy) the log level, are sent again.
   */
  #resendSessionState(): void {
    this.#subs.onReady();
    const level = this.#shaper.logLevel;
    if (level && logLevelIsRequest(this.#conn.session)) {
      this.#requester.request("logging/setLevel", { level }, {}).catch((err) => {
        this.#warn(`sending the log level again failed: ${String(err)}`);
      });
    }
  }

  #onTransition(event: TransitionEvent): void {
    if (event.from === "ready") this.#lists.markStale();
    if (event.from === "ready") this.#input.connectionLost();
    if (event.to === "ready") this.#resendSessionState();
    if (event.to === "reconnecting") this.#otel?.reconnecting(event.attempt);
    for (const listener of this.#stateListeners) {
      try {
        listener(event);
      } catch (err) {
        this.#warn(`a state listener threw: ${String(err)}`);
      }
    }
  }

  #onNotification(m: JsonRpcNotification): void {
    const params = isObject(m.params) ? m.params : undefined;
    if (routesNotifications(this.#conn.session) && this.#subs.route(m.method, params) === "drop") return;
    // Cancellation is about requests, not news: not delivered to subscribers.
    if (m.method === "notifications/cancelled") return this.#input.cancelled(params);
    // Task status carries task ids, which stay inside the client: it only wakes the waiter.
    if (m.method === "notifications/tasks" || m.method === "notifications/tasks/status") {
      return this.#tasks.notified(params);
    }
    this.#fanOut.receive(m.method, params);
  }

  async #onServerRequest(m: JsonRpcRequest, info: ServerRequestInfo): Promise<JsonObject> {
    if (m.method === "ping") return {};
    // Bounded like results, before any handler sees the params.
    if (!withinDepth(m.params, this.#o.maxDepth)) {
      this.#warn(`refused a ${m.method} request from the server: params nested deeper than maxDepth`);
      throw { code: ErrorCodes.invalidParams, message: "Invalid params: nested too deeply" };
    }
    // Sampling, elicitation and roots (modern servers ask through input_required results).
    if (takesServerRequests(this.#conn.session)) return this.#input.serverRequest(m, info);
    throw { code: ErrorCodes.methodNotFound, message: "Method not found" };
  }
}
