import type { Era, TransitionEvent } from "../connection/types.js";
import { announcesRootsChanged, logLevelIsRequest, pingMethod } from "../protocol/era.js";
import { McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import { OptionError } from "../shared/option-error.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { HttpAuth } from "../transport/factory.js";
import { admitPrompts, admitResources, admitResourceTemplates } from "./intake.js";
import type { ListAllOptions } from "./lists.js";
import type { ServerNotification } from "./notifications/fan-out.js";
import {
  type ClientOptions,
  checkCallToolOptions,
  checkRequestOptions,
  checkToolCall,
  resolveClientOptions,
} from "./options.js";
import { ClientParts } from "./parts.js";
import { completeParams, promptParams, toWireRef } from "./request-params.js";
import { expectComplete } from "./results.js";
import { type ClientSearchOptions, type ClientSearchResult, callableIn, clientSearch } from "./search.js";
import { clientStatus } from "./status.js";
import { AWAIT_TASK_KEYS, type AwaitTaskOptions, type Task } from "./tasks.js";
import type { CallableTool, ToolCaller } from "./tool-caller.js";
import { compileToolFilter, filterListedTools, TOOL_LIST_KEYS, type ToolListOptions } from "./tool-filter.js";
import {
  type CallToolOptions,
  type ClientStatus,
  type CompleteOptions,
  type CompletionRef,
  type GetPromptResult,
  type ListOptions,
  LOG_LEVELS,
  type LogLevel,
  type Prompt,
  type PromptPage,
  type ReadResourceResult,
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

/**
 * One MCP server behind a typed API. The constructor validates every option and starts connecting
 * in the background; requests made before the connection is ready wait for it within their own
 * timeout. The public API only (about 450 lines, one short method per operation, each with its
 * documentation); the work is in parts.ts and the files it wires.
 */
export class Client implements AsyncDisposable, ToolCaller {
  readonly #p: ClientParts;
  /** Made on first search (an index per client was ~1.3 KB, issue 26). */
  #search: ReturnType<typeof clientSearch> | undefined;

  constructor(options: ClientOptions) {
    this.#p = new ClientParts(resolveClientOptions(options), this);
    this.#p.conn.start();
  }

  /** The `name` option. */
  get name(): string {
    return this.#p.o.name;
  }

  /** The operator-assigned id stamped on every Tool, Resource and Prompt. */
  get serverId(): string {
    return this.#p.o.serverId;
  }

  // ---- control -------------------------------------------------------------------------------

  /** Resolves once the handshake is done; rejects with `timeout`, or `closed` if it gave up. */
  ready(options: { timeout?: number } = {}): Promise<void> {
    return this.#p.conn.whenReady(options.timeout ?? this.#p.o.requestTimeout);
  }

  /** Reads state without I/O: `{ state, era, version, reason, fallbackReason? }`. */
  status(): ClientStatus {
    return clientStatus(this.#p.conn);
  }

  /** The negotiated era; it keeps answering while the client reconnects. */
  era(): Era {
    const s = this.#p.conn.session;
    if (!s) throw new McpClientError("unavailable", "not_ready");
    return s.era;
  }

  /** What the server said of itself in the handshake. */
  serverInfo(): ServerDescription {
    const s = this.#p.conn.session;
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
    if (!this.#p.o.includeInstructions) return null;
    const text = this.#p.conn.session?.instructions;
    return text ? sanitizeText(text, { keepNewlines: true, maxLength: 16_384 }) : null;
  }

  /** A token while `kind`'s list_changed surely reaches this client, changed by any gap; else null. */
  listChangesHeard(kind: "tools" | "resources" | "prompts"): string | null {
    return this.#p.listChangesHeard(kind);
  }
  /** Fails pending requests with `closed` and stops the server; stays closed until `reconnect()`. */
  async close(): Promise<void> {
    this.#p.subs.close();
    this.#p.fanOut.close();
    this.#p.lists.close();
    await this.#p.conn.close();
    this.#p.closeWarnings();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Drops the connection (requests in flight fail with `transport`) and connects again now.
   * Revives a client that gave up with `onGiveUp: "stay"`, or one closed with `close()`.
   */
  reconnect(): Promise<void> {
    this.#p.lists.open();
    return this.#p.conn.reconnect();
  }

  /**
   * Replaces the credentials of an HTTP transport (any `auth` form; `credentialId` with a
   * function) and reconnects: requests in flight fail with `transport`, listen streams and a
   * legacy session close. Private cached lists of the old credentials are deleted before it
   * returns. Throws a `TypeError` for invalid credentials, or for a transport without credentials.
   */
  async setAuth(auth: HttpAuth | null | undefined, options: { credentialId?: string } = {}): Promise<void> {
    const credentials = this.#p.o.transportObject?.credentials;
    if (credentials === undefined) {
      throw new TypeError("conduit-mcp: setAuth needs a transport that carries credentials (HTTP)");
    }
    credentials.replace(auth, options);
    this.#p.lists.dropPrivate();
    await this.#p.conn.reconnect({ join: false });
  }

  /**
   * Calls `listener` on every state change (`{ from, to, reason, attempt }`), the same facts as
   * the `connection:transition` event, for this client only. Returns the unsubscribe function.
   * A client that gives up with `onGiveUp: "stop"` says so here: `to: "closed"` for good.
   */
  onStateChange(listener: (event: TransitionEvent) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("conduit-mcp: listener must be a function");
    this.#p.stateListeners ??= new Set();
    const listeners = this.#p.stateListeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  // ---- requests ------------------------------------------------------------------------------

  /** `ping` (legacy) or `server/discover` (modern). */
  async ping(options?: RequestOptions): Promise<void> {
    const opts = checkRequestOptions(options);
    // server/discover cannot carry input_required (nor can ping): only a complete result will do.
    expectComplete(await this.#p.requester.request(pingMethod, undefined, opts));
  }

  listTools(options?: ListOptions): Promise<ToolPage> {
    return this.#p.page("tools", options).then(({ items, nextCursor }) => ({
      tools: this.#p.admitTools(items),
      nextCursor,
    }));
  }

  listResources(options?: ListOptions): Promise<ResourcePage> {
    return this.#p.page("resources", options).then(({ items, nextCursor }) => ({
      resources: admitResources(items, this.#p.o.serverId, this.#p.o.maxDepth),
      nextCursor,
    }));
  }

  listResourceTemplates(options?: ListOptions): Promise<ResourceTemplatePage> {
    return this.#p.page("resourceTemplates", options).then(({ items, nextCursor }) => ({
      resourceTemplates: admitResourceTemplates(items, this.#p.o.serverId, this.#p.o.maxDepth),
      nextCursor,
    }));
  }

  listPrompts(options?: ListOptions): Promise<PromptPage> {
    return this.#p.page("prompts", options).then(({ items, nextCursor }) => ({
      prompts: admitPrompts(items, this.#p.o.serverId, this.#p.o.maxDepth),
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
    const tools = await this.#watching(this.#p.lists.all(this.#p.lists.tools, opts));
    return filterListedTools(tools, opts, this.#p.o.serverId, (text) => this.#p.warn(text));
  }

  /** The `ToolCaller` view: every tool, under its own name, with this client's server id. */
  async listCallableTools(options?: ListAllOptions & ToolListOptions): Promise<CallableTool[]> {
    const tools = await this.listAllTools(options);
    return callableIn(this.#p.o, tools);
  }

  /** `hub.searchTools` over `listCallableTools`: `{ tool, score }`, best first (docs/tool-search.md). */
  searchTools(query: string, options?: ClientSearchOptions): Promise<ClientSearchResult[]> {
    this.#search ??= clientSearch((o) => this.listCallableTools(o));
    return this.#search.search(query, options as ClientSearchOptions & Record<string, unknown>);
  }

  async listAllResources(options?: ListAllOptions): Promise<Resource[]> {
    const opts = checkRequestOptions(options, ["refresh"]) as ListAllOptions;
    return this.#watching(this.#p.lists.all(this.#p.lists.resources, opts));
  }

  async listAllResourceTemplates(options?: ListAllOptions): Promise<ResourceTemplate[]> {
    const opts = checkRequestOptions(options, ["refresh"]) as ListAllOptions;
    return this.#watching(this.#p.lists.all(this.#p.lists.resourceTemplates, opts));
  }

  async listAllPrompts(options?: ListAllOptions): Promise<Prompt[]> {
    const opts = checkRequestOptions(options, ["refresh"]) as ListAllOptions;
    return this.#watching(this.#p.lists.all(this.#p.lists.prompts, opts));
  }

  /** The cached tool list, never asking the server (`not_found`/`not_cached` before a listing). */
  cachedTools(): Tool[] {
    return this.#p.lists.cachedTools();
  }

  /** One cached tool by name, never asking the server. */
  tool(name: string): Tool {
    return this.#p.lists.tool(name);
  }

  // ---- notifications and subscriptions -------------------------------------------------------

  /**
   * Calls `listener` with `{ method, params }` for every server notification except progress
   * (which goes to the request's caller) and cancellation. Returns the unsubscribe function.
   */
  onNotification(listener: (notification: ServerNotification) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("conduit-mcp: listener must be a function");
    return this.#p.fanOut.subscribe(listener);
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
    return this.#p.fanOut.iterate(options.signal, size);
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
    const deadline = this.#p.requester.deadline(opts);
    await this.#p.conn.whenReady(deadline.left(), opts.signal);
    await this.#p.subs.subscribe(uri, opts, deadline);
  }

  async unsubscribe(uri: string, options?: RequestOptions): Promise<void> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const opts = checkRequestOptions(options);
    // One deadline for the wait for ready and the request (or acknowledgment) together.
    const deadline = this.#p.requester.deadline(opts);
    await this.#p.conn.whenReady(deadline.left(), opts.signal);
    await this.#p.subs.unsubscribe(uri, opts, deadline);
  }

  /**
   * Calls a tool. A tool that ran and failed resolves with `isError: true`; only a failure to get
   * an answer rejects. With `task: "return"` the result is a `Task` when the server makes one;
   * with `task: "await"` the task is polled to its end within `timeout` (see docs/tasks.md).
   * An answer shaped for a model is `callForModel(client, name, args, options)` (docs/requests.md).
   */
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
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: CallToolOptions,
  ): Promise<ToolResult | Task> {
    // Not an async function: it hands back the call's own promise (an async one would wrap it in
    // another and resolve that a tick later); a bad argument still rejects, never throws.
    try {
      checkToolCall(name, args);
      return this.#p.toolCalls.call(name, args ?? {}, checkCallToolOptions(options));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Asks the server for a task's current state; returns the updated task. */
  getTask(task: Task, options?: RequestOptions): Promise<Task> {
    return this.#p.tasks.get(task, checkRequestOptions(options));
  }

  /** Polls a task to its end (see `callTool(..., { task: "await" })`); `timeout` bounds the whole wait. */
  awaitTask(task: Task, options?: AwaitTaskOptions): Promise<ToolResult> {
    const o = checkRequestOptions(options, AWAIT_TASK_KEYS) as AwaitTaskOptions;
    return this.#p.tasks.await(task, o);
  }

  /** Asks the server to cancel a task (cooperative: it may still finish). */
  cancelTask(task: Task, options?: RequestOptions): Promise<void> {
    return this.#p.tasks.cancel(task, checkRequestOptions(options));
  }

  /** `resources/read`: the server's `ReadResourceResult`. */
  async readResource(uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    if (typeof uri !== "string" || uri.length === 0) throw new TypeError("conduit-mcp: uri must be a string");
    const result = expectComplete(
      await this.#p.requester.withInput("resources/read", { uri }, checkRequestOptions(options)),
    );
    if (!Array.isArray(result.contents)) throw new McpClientError("protocol", "invalid_read_result");
    // The items are passed on as sent, typed by the spec (their fields are not checked).
    return result as ReadResourceResult;
  }

  /** `prompts/get`: arguments are turned into strings; null and undefined values are dropped. */
  async getPrompt(
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    const params = promptParams(name, args);
    const result = expectComplete(
      await this.#p.requester.withInput("prompts/get", params, checkRequestOptions(options)),
    );
    if (!Array.isArray(result.messages)) throw new McpClientError("protocol", "invalid_prompt_result");
    // The messages are passed on as sent, typed by the spec (their fields are not checked).
    return result as GetPromptResult;
  }

  /** `completion/complete` for a prompt argument or a resource template variable. */
  async complete(
    ref: CompletionRef,
    argument: { name: string; value: string },
    options?: CompleteOptions,
  ): Promise<JsonObject> {
    const wireRef = toWireRef(ref);
    const opts = checkRequestOptions(options, ["context"]) as CompleteOptions;
    const params = completeParams(wireRef, argument, opts.context);
    const result = expectComplete(await this.#p.requester.request("completion/complete", params, opts));
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
    const deadline = this.#p.requester.deadline(opts);
    if (this.#p.conn.state !== "ready") await this.#p.conn.whenReady(deadline.left(), opts.signal);
    if (logLevelIsRequest(this.#p.conn.session)) {
      await this.#p.requester.request("logging/setLevel", { level }, opts, { deadline });
    }
    this.#p.shaper.logLevel = level;
  }

  /**
   * Tells a legacy server that the roots changed (`notifications/roots/list_changed`), so that it
   * asks for them again. Returns true when sent; false when there is no one to tell: a modern
   * server (it asks for roots in each call's input rounds, so there is nothing to announce), a
   * client without `handler.listRoots` or with `roots.listChanged: false`, or a connection that
   * is not ready.
   */
  notifyRootsChanged(): boolean {
    const r = this.#p.input.legacyCapabilities().roots as JsonObject | undefined;
    if (!r?.listChanged || this.#p.conn.state !== "ready" || !announcesRootsChanged(this.#p.conn.session))
      return false;
    this.#p.conn.notify("notifications/roots/list_changed");
    return true;
  }

  /** A listing was asked for: in modern, its changes are now worth a listen stream. */
  async #watching<T>(work: Promise<T>): Promise<T> {
    this.#p.subs.onInterestChanged();
    return work;
  }
}
