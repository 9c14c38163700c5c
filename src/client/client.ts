import { guardedBackoff } from "../connection/backoff.js";
import { Connection } from "../connection/connection.js";
import type {
  Era,
  ParamsBuilder,
  SendOptions,
  ServerRequestInfo,
  TransitionEvent,
} from "../connection/types.js";
import { type GovernedStats, Governor } from "../governance/governor.js";
import { ProtocolNegotiator, type Session } from "../protocol/negotiator.js";
import { validateJson } from "../schema/validator.js";
import { Deadline } from "../shared/deadline.js";
import { withinDepth } from "../shared/depth.js";
import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../shared/jsonrpc.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import { callerMeta, isValidTraceparent } from "../shared/meta.js";
import { OptionError } from "../shared/option-error.js";
import { sanitizeText } from "../shared/sanitize.js";
import { redactSecrets } from "../shared/secret.js";
import { META } from "../shared/versions.js";
import { Telemetry } from "../telemetry/events.js";
import {
  OpenTelemetryBridge,
  type RequestSpan,
  type RequestTarget,
  type ToolCallSpan,
} from "../telemetry/open-telemetry.js";
import type { HttpAuth } from "../transport/factory.js";
import { qualifyToolName } from "../util/qualify.js";
import type { CredentialIdentity } from "./cache/list-cache.js";
import { governedCall } from "./governed.js";
import { requestWithInput } from "./input/mrtr.js";
import { InputService } from "./input/service.js";
import { admitPrompts, admitResources, admitResourceTemplates, admitTools, type Rejected } from "./intake.js";
import { type ListAllOptions, Lists } from "./lists.js";
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
import { capturePayload } from "./payload-capture.js";
import { expectComplete, toToolResult } from "./results.js";
import { Subscriptions } from "./subscriptions.js";
import { type AwaitTaskOptions, TASKS_EXTENSION, type Task, Tasks } from "./tasks.js";
import type { CallableTool, ToolCaller } from "./tool-caller.js";
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

/** Marks internal request options whose modern `_meta` declares the tasks extension. */
const WITH_TASKS = Symbol("withTasks");
/** Marks internal request options with the OpenTelemetry span of the `callTool` they belong to. */
const TOOL_SPAN = Symbol("toolSpan");
/** The extension result type a call that declared tasks may answer with. */
const TASK_RESULT: ReadonlySet<string> = new Set(["task"]);

/** The list methods, by the key their results carry. */
const LISTS = {
  tools: "tools/list",
  resources: "resources/list",
  resourceTemplates: "resources/templates/list",
  prompts: "prompts/list",
} as const;
type ListKey = keyof typeof LISTS;
const LIST_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(LISTS));

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
  #logLevel: LogLevel | undefined;
  readonly #stateListeners = new Set<(event: TransitionEvent) => void>();
  readonly #fanOut: NotificationFanOut;
  readonly #lists: Lists;
  readonly #subs: Subscriptions;
  readonly #tasks: Tasks;
  readonly #input: InputService;
  readonly #governor: Governor | null;

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
              method: (s) => (s.era === "modern" ? "server/discover" : "ping"),
              build: (s, token) => this.#build(undefined, {}, s, token),
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
        this.#request(LISTS[kind], cursor === undefined ? {} : { cursor }, opts).then(expectComplete),
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
            const opts = (filter.taskIds ? { [WITH_TASKS]: true } : {}) as RequestOptions;
            return this.#build({ notifications: filter }, opts, session, token);
          },
          // The client's own stream: it takes none of the caller's maxInFlight slots.
          {
            timeout: Number.POSITIVE_INFINITY,
            maxTotalTimeout: Number.POSITIVE_INFINITY,
            signal,
            background: true,
          },
        ),
      request: (method, params, opts) => this.#request(method, params, opts),
      backoff: guardedBackoff(o.backoff, (text) => this.#warn(text), o.maxBackoff),
      requestTimeout: o.requestTimeout,
      warn: (text) => this.#warn(text),
    });
    this.#tasks = new Tasks({
      serverId: o.serverId,
      era: () => this.#conn.session?.era ?? null,
      identity: () => this.#credentialIdentity(),
      requestTimeout: o.requestTimeout,
      request: (method, params, opts) =>
        this.#request(method, params, { ...opts, [WITH_TASKS]: true } as RequestOptions),
      input: this.#input,
      watch: (taskId) => this.#subs.watchTask(taskId),
      warn: (text) => this.#warn(text),
    });
    this.#governor = o.governance && new Governor(o.governance, this.#telemetry);
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
    expectComplete(
      await this.#request((s) => (s.era === "modern" ? "server/discover" : "ping"), undefined, opts),
    );
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
    const deadline = Deadline.after(opts.timeout ?? this.#o.requestTimeout);
    await this.#conn.whenReady(deadline.left(), opts.signal);
    await this.#subs.subscribe(uri, { ...opts, timeout: deadline.left() });
  }

  async unsubscribe(uri: string, options?: RequestOptions): Promise<void> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const opts = checkRequestOptions(options);
    // One deadline for the wait for ready and the request (or acknowledgment) together.
    const deadline = Deadline.after(opts.timeout ?? this.#o.requestTimeout);
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
    const opts = checkCallToolOptions(options);
    if (!this.#otel) return this.#callToolWithEvents(name, args, opts);
    const span = this.#otel.startToolCall(name);
    const capture = this.#o.capturePayloads;
    if (capture) span.payload("arguments", capturePayload(capture, args ?? {}));
    try {
      const result = await this.#callToolWithEvents(name, args, {
        ...opts,
        [TOOL_SPAN]: span,
      } as CallToolOptions);
      const isTask = !("content" in result);
      if (capture && !isTask) {
        const r = result as ToolResult;
        span.payload(
          "result",
          capturePayload(capture, {
            content: r.content,
            isError: r.isError,
            structuredContent: r.structured,
          }),
        );
      }
      span.end({ isError: isTask ? null : (result as ToolResult).isError });
      return result;
    } catch (err) {
      span.end({ error: err, cancelled: opts.signal?.aborted === true && err === opts.signal.reason });
      throw err;
    }
  }

  /** `callTool` with its `tool_call` events (when anyone listens). */
  async #callToolWithEvents(
    name: string,
    args: Record<string, unknown> | undefined,
    opts: CallToolOptions,
  ): Promise<ToolResult | Task> {
    const tel = this.#telemetry;
    const traced =
      tel.active("tool_call:start") || tel.active("tool_call:stop") || tel.active("tool_call:exception");
    const rounds = { count: 0 };
    const stats: GovernedStats = { attempts: 1, decision: null };
    if (!traced) return this.#governed(name, args ?? {}, opts, rounds, stats);
    const start = Date.now();
    const toolName = sanitizeText(name, { maxLength: 128 });
    const capture = this.#o.capturePayloads;
    tel.emit("tool_call:start", () => ({
      toolName,
      ...(capture ? { arguments: capturePayload(capture, args ?? {}) } : {}),
    }));
    try {
      const result = await this.#governed(name, args ?? {}, opts, rounds, stats);
      const isTask = !("content" in result);
      tel.emit("tool_call:stop", () => ({
        toolName,
        status: "ok",
        errorKind: null,
        isError: isTask ? null : (result as ToolResult).isError,
        rounds: rounds.count,
        attempts: stats.attempts,
        decision: stats.decision,
        duration: Date.now() - start,
        ...(capture
          ? {
              result: isTask
                ? null
                : capturePayload(capture, {
                    content: (result as ToolResult).content,
                    isError: (result as ToolResult).isError,
                    structuredContent: (result as ToolResult).structured,
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
          rounds: rounds.count,
          attempts: stats.attempts,
          decision: stats.decision,
          duration: Date.now() - start,
          ...(capture ? { result: null } : {}),
        }));
      } else {
        tel.emit("tool_call:exception", () => ({ toolName, duration: Date.now() - start }));
      }
      throw err;
    }
  }

  /** A call through the governor when the client has one (docs/governance.md), else sent as is. */
  #governed(
    name: string,
    args: Record<string, unknown>,
    opts: CallToolOptions,
    rounds: { count: number },
    stats: GovernedStats,
  ): Promise<ToolResult | Task> {
    const g = this.#governor;
    if (!g) return this.#callTool(name, args, opts, rounds);
    if (opts.task === "return" && g.hasAfterHooks)
      throw new TypeError(
        'conduit-mcp: task: "return" would hand back a task that afterCall hooks never see',
      );
    const call = governedCall(name, args, opts, {
      serverId: this.#o.serverId,
      principal: this.#o.principal,
      requestTimeout: this.#o.requestTimeout,
      listAllTools: (o) => this.listAllTools(o),
    });
    return g.run(call, (a, at) => this.#callTool(name, a, { ...opts, timeout: at.timeout }, rounds), stats);
  }

  /** One tool call, as a task when asked for and the server makes one (either era). */
  async #callTool(
    name: string,
    args: Record<string, unknown>,
    callOpts: CallToolOptions,
    rounds: { count: number },
  ): Promise<ToolResult | Task> {
    let opts = callOpts;
    // Never listed: the call goes out as asked. Listed: a name the listing lacks (withdrawn, or
    // rejected at intake) is looked up again in a fresh listing, or refused with not_found.
    let tool = this.#lists.listed(name);
    if (tool === undefined) {
      const timeout = opts.timeout ?? this.#o.requestTimeout;
      const start = Date.now();
      tool = await this.#lists.callable(name, { timeout, signal: opts.signal });
      opts = { ...opts, timeout: Math.max(1, timeout - (Date.now() - start)) };
    }
    const out = (r: ToolResult) => this.#checkOutput(tool, r);
    const params: JsonObject = { name, arguments: args };
    if (opts.task === undefined && !this.#legacyToolTasks()) {
      // The common case: no task wanted, and none the server could insist on. Sent at once.
      try {
        return out(
          toToolResult(expectComplete(await this.#requestWithInput("tools/call", params, opts, rounds))),
        );
      } catch (err) {
        // Made before the handshake, to a legacy server whose tool must run as a task: it refused
        // with -32601 (so nothing ran), and now that its capabilities are known, it is a task.
        if (jsonRpcCode(err) !== ErrorCodes.methodNotFound || !this.#legacyToolTasks()) throw err;
      }
    }
    const deadline = Date.now() + (opts.timeout ?? this.#o.requestTimeout);
    // No await when ready: what this call sends goes out now, before anything the caller does next.
    if (this.#conn.state !== "ready") await this.#conn.whenReady(deadline - Date.now(), opts.signal);
    const left = () => Math.max(1, deadline - Date.now());
    let task: Task;
    if (this.#conn.session?.era === "modern") {
      const wire = await this.#requestWithInput(
        "tools/call",
        params,
        { ...opts, [WITH_TASKS]: true } as RequestOptions,
        rounds,
        TASK_RESULT,
      );
      if (wire.resultType !== "task") return out(toToolResult(expectComplete(wire)));
      task = this.#tasks.fromModern(wire);
    } else {
      const augment = await this.#legacyTaskSupport(name, opts, left());
      if (!augment) {
        return out(
          toToolResult(
            expectComplete(
              await this.#requestWithInput("tools/call", params, { ...opts, timeout: left() }, rounds),
            ),
          ),
        );
      }
      params.task = opts.taskTtl === undefined ? {} : { ttl: opts.taskTtl };
      rounds.count += 1;
      const wire = await this.#request("tools/call", params, { ...opts, timeout: left() });
      if (!isObject(wire.task)) return out(toToolResult(wire)); // the server ran it at once after all
      task = this.#tasks.fromLegacy(wire);
    }
    if (opts.task === "return") return task;
    return out(
      await this.#tasks.await(task, { timeout: left(), signal: opts.signal, assigns: opts.assigns }),
    );
  }

  /**
   * A tool result checked against the tool's `outputSchema` when the listing gave one (and
   * `validateOutput` is on): `structuredContent` must be an object that matches it, else
   * `protocol` / `output_schema_mismatch`. Results with `isError` are not checked. Synchronous
   * (no extra tick) when there is nothing to check.
   */
  #checkOutput(tool: Tool | null, result: ToolResult): ToolResult | Promise<ToolResult> {
    const schema = tool?.outputSchema;
    if (schema === undefined || !this.#o.validateOutput || result.isError) return result;
    const s = result.structured;
    if (typeof s !== "object" || s === null || Array.isArray(s)) {
      const why = s === null ? "structuredContent is missing" : "structuredContent is not an object";
      throw new McpClientError("protocol", "output_schema_mismatch", { errors: [why] });
    }
    return validateJson(schema, s).then((outcome) => {
      if (outcome.valid) return result;
      throw new McpClientError("protocol", "output_schema_mismatch", { errors: outcome.errors });
    });
  }

  /**
   * Legacy: a call is task-augmented only when the server declares `tasks.requests.tools.call`
   * and the tool allows it: `"required"` always, `"optional"` only when a task was asked for.
   */
  async #legacyTaskSupport(name: string, opts: CallToolOptions, timeout: number): Promise<boolean> {
    if (!this.#legacyToolTasks()) return false;
    let tool: Tool | undefined;
    try {
      tool = this.#lists.tools.peek()?.find((t) => t.name === name);
      tool ??= (await this.listAllTools({ timeout, signal: opts.signal })).find((t) => t.name === name);
    } catch (err) {
      // The connection failed or time ran out: the call fails with it. A server that cannot
      // list its tools gets a plain call.
      if (!McpClientError.is(err, "protocol") && !McpClientError.is(err, "pagination_cycle")) throw err;
      this.#warn(`could not read the tool list to see whether a tool runs as a task: ${String(err)}`);
    }
    const support = tool?.execution?.taskSupport;
    return support === "required" || (support === "optional" && opts.task !== undefined);
  }

  /** Whether the session is legacy and the server declares `tasks.requests.tools.call`. */
  #legacyToolTasks(): boolean {
    const s = this.#conn.session;
    if (s?.era !== "legacy") return false;
    const tasks = isObject(s.capabilities.tasks) ? s.capabilities.tasks : undefined;
    const requests = isObject(tasks?.requests) ? tasks.requests : undefined;
    const tools = isObject(requests?.tools) ? requests.tools : undefined;
    return tools !== undefined && "call" in tools;
  }

  /** Asks the server for a task's current state; returns the updated task. */
  getTask(task: Task, options?: RequestOptions): Promise<Task> {
    return this.#tasks.get(task, { ...checkRequestOptions(options), [WITH_TASKS]: true } as RequestOptions);
  }

  /** Polls a task to its end (see `callTool(..., { task: "await" })`); `timeout` bounds the whole wait. */
  awaitTask(task: Task, options?: AwaitTaskOptions): Promise<ToolResult> {
    const o = checkRequestOptions(options) as AwaitTaskOptions;
    return this.#tasks.await(task, o);
  }

  /** Asks the server to cancel a task (cooperative: it may still finish). */
  cancelTask(task: Task, options?: RequestOptions): Promise<void> {
    return this.#tasks.cancel(task, {
      ...checkRequestOptions(options),
      [WITH_TASKS]: true,
    } as RequestOptions);
  }

  /** `resources/read`: the server's `ReadResourceResult`. */
  async readResource(uri: string, options?: RequestOptions): Promise<JsonObject> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const result = expectComplete(
      await this.#requestWithInput("resources/read", { uri }, checkRequestOptions(options)),
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
    const result = expectComplete(
      await this.#requestWithInput("prompts/get", params, checkRequestOptions(options)),
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

  /**
   * Tells a legacy server that the roots changed (`notifications/roots/list_changed`), so that it
   * asks for them again. Returns true when sent; false when there is no one to tell: a modern
   * server (it asks for roots in each call's input rounds, so there is nothing to announce), a
   * client without `handler.listRoots` or with `roots.listChanged: false`, or a connection that
   * is not ready.
   */
  notifyRootsChanged(): boolean {
    const r = this.#input.legacyCapabilities().roots as JsonObject | undefined;
    if (!r?.listChanged || this.#conn.state !== "ready" || this.#conn.session?.era !== "legacy") return false;
    this.#conn.notify("notifications/roots/list_changed");
    return true;
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
      // Server requests tied to this one (legacy) answer with these assigns.
      context: opts.assigns,
    };
    if (!this.#otel) {
      const build: ParamsBuilder<Session> = (session, token) => this.#build(params, opts, session, token);
      return this.#conn.request(method, build, send);
    }
    const session = this.#conn.session;
    const name = typeof method === "string" ? method : session ? method(session) : "ping";
    const toolSpan = (opts as { [TOOL_SPAN]?: ToolCallSpan })[TOOL_SPAN];
    const span = this.#otel.startRequest(name, targetOf(name, params), toolSpan?.context);
    const build: ParamsBuilder<Session> = (s, token, id) => {
      span.sent(id, s.version, typeof method === "string" ? undefined : method(s));
      return this.#build(params, opts, s, token, span);
    };
    return this.#conn.request(method, build, send).then(
      (result) => {
        span.end({ result });
        if (result.resultType === "input_required") toolSpan?.inputRequired();
        return result;
      },
      (err: unknown) => {
        span.end({ error: err, cancelled: opts.signal?.aborted === true && err === opts.signal.reason });
        throw err;
      },
    );
  }

  /**
   * A request that may answer `input_required` (modern): the handler answers each round and the
   * request is sent again, within the caller's one deadline. `rounds` counts the requests sent.
   */
  #requestWithInput(
    method: "tools/call" | "resources/read" | "prompts/get",
    params: JsonObject,
    opts: RequestOptions,
    rounds = { count: 0 },
    accept?: ReadonlySet<string>,
  ): Promise<JsonObject> {
    return requestWithInput(this.#input, {
      accept,
      params,
      opts,
      timeout: opts.timeout ?? this.#o.requestTimeout,
      maxTotalTimeout: opts.maxTotalTimeout ?? this.#o.maxTotalTimeout,
      send: (p, o) => this.#request(method, p, o),
      rounds,
    });
  }

  /** The modern capabilities with the tasks extension declared (only on requests that take tasks). */
  #tasksCapabilities(): JsonObject {
    const caps = this.#input.modernCapabilities();
    const extensions = isObject(caps.extensions) ? caps.extensions : {};
    return { ...caps, extensions: { ...extensions, [TASKS_EXTENSION]: {} } };
  }

  /** A request's params as the session's era wants them, `_meta` included. */
  #build(
    params: JsonObject | undefined,
    opts: RequestOptions,
    session: Session,
    token: number | undefined,
    span?: RequestSpan,
  ): JsonObject {
    const p: JsonObject = params ? { ...params } : {};
    if (session.era === "modern") {
      // The caller's traceparent (in meta, or the option) wins; else the request span's context.
      const traceparent = isValidTraceparent(opts.traceparent) ? opts.traceparent : span?.traceparent();
      const m = callerMeta(opts.meta, traceparent, true) ?? {};
      m[META.protocolVersion] = session.version;
      m[META.clientCapabilities] = (opts as { [WITH_TASKS]?: boolean })[WITH_TASKS]
        ? this.#tasksCapabilities()
        : this.#input.modernCapabilities();
      m[META.clientInfo] = this.#o.clientInfo;
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
  }

  async #page(key: ListKey, options: ListOptions | undefined): Promise<Page> {
    const opts = checkRequestOptions(options, ["cursor"]) as ListOptions;
    if (opts.cursor !== undefined && typeof opts.cursor !== "string") {
      throw new OptionError("cursor", "invalid", "a string");
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
    if (this.#logLevel && this.#conn.session?.era === "legacy") {
      this.#request("logging/setLevel", { level: this.#logLevel }, {}).catch((err) => {
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
    if (this.#conn.session?.era === "modern" && this.#subs.route(m.method, params) === "drop") return;
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
    if (this.#conn.session?.era === "legacy") return this.#input.serverRequest(m, info);
    throw { code: ErrorCodes.methodNotFound, message: "Method not found" };
  }
}

/** What a request is about, for its span: the tool, the prompt or the resource. */
function targetOf(method: string, params: JsonObject | undefined): RequestTarget {
  const name = typeof params?.name === "string" ? params.name : undefined;
  if (method === "tools/call") return { toolName: name };
  if (method === "prompts/get") return { promptName: name };
  const uri = typeof params?.uri === "string" ? params.uri : undefined;
  return uri === undefined ? {} : { resourceUri: uri };
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
