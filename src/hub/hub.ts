// The Hub class is the hub's public API, one method per operation (its parts live beside it:
// server-slot, routes, tool-index, dispatch, gather, types).
import type { Client } from "../client/client.js";
import type { ListAllOptions } from "../client/lists.js";
import {
  CLIENT_DEFAULTS,
  checkCallToolOptions,
  checkInterceptors,
  checkRequestOptions,
  checkToolCall,
} from "../client/options.js";
import type { Task } from "../client/tasks.js";
import type { CallableTool, ToolCaller } from "../client/tool-caller.js";
import { compileToolFilter, TOOL_FILTER_KEYS } from "../client/tool-filter.js";
import type {
  CallToolOptions,
  ClientStatus,
  GetPromptResult,
  Logger,
  Prompt,
  ReadResourceResult,
  RequestOptions,
  Resource,
  ResourceTemplate,
  ToolResult,
} from "../client/types.js";
import { Governor } from "../governance/governor.js";
import {
  callShaped,
  type LlmCallToolOptions,
  SHAPES_FOR_MODEL,
  unknownProvenance,
  wantsLlmShape,
} from "../shaping/llm-call.js";
import type { LlmResult } from "../shaping/llm-result.js";
import { McpClientError } from "../shared/errors.js";
import { sanitizeText } from "../shared/sanitize.js";
import { redactSecrets } from "../shared/secret.js";
import type { ToolCallInterceptor } from "../shared/tool-call.js";
import type { Stores } from "../stores/index.js";
import { captureContext } from "../telemetry/open-telemetry.js";
import { deadline, dispatch, type ServerChain, serverChain } from "./dispatch.js";
import { gather } from "./gather.js";
import {
  checkServerConfig,
  checkServerId,
  type HubClientOptions,
  type HubOptions,
  type HubServerConfig,
  resolveHubOptions,
  withGrants,
} from "./options.js";
import { Routes } from "./routes.js";
import { type HubSearchOptions, type HubSearchResult, hideDenied, hubSearch } from "./search.js";
import { type ServerListing, ServerSlot, type ToolsChangeReason } from "./server-slot.js";
import { StartGate } from "./start-gate.js";
import type { Route } from "./tool-index.js";
import type {
  HubListing,
  HubListOptions,
  HubStatus,
  HubTool,
  ServerInstructions,
  ToolsChange,
} from "./types.js";

const LIST_KEYS = ["timeout", "signal", "refresh", ...TOOL_FILTER_KEYS] as const;
const defaultLogger: Logger = { warn: (m) => console.error(`[conduit-mcp] warning: ${m}`) };

/**
 * Many MCP servers behind one tool list. Every server gets its own `Client` (the hub uses only
 * the public client API); tools are named `mcp__<server>__<tool>` (`qualifyToolName`), and calls
 * are routed by that name. One server failing, hanging or closing never fails the hub.
 */
export class Hub implements ToolCaller, AsyncDisposable {
  readonly #name: string;
  readonly #listTimeout: number;
  readonly #clientOptions: HubClientOptions;
  readonly #logger: Logger;
  readonly #slots = new Map<string, ServerSlot>();
  readonly #listeners = new Set<(change: ToolsChange) => void>();
  readonly #routes: Routes;
  /** The hub's `interceptors`, outermost in every server's chain. */
  readonly #interceptors: readonly ToolCallInterceptor[];
  /** The hub's `stores` (docs/fleet.md): each server's governance keeps its grants in `grants`. */
  readonly #stores: Stores;
  /** The hub's `governance`, one governor for every server without governance of its own. */
  readonly #governor: Governor | null;
  /** Each server's chain, composed when it is added (dispatch.ts). */
  readonly #chains = new WeakMap<ServerSlot, ServerChain>();
  readonly #gate: StartGate;
  #closed = false;
  /** `callForModel(hub, ...)` is `callTool(..., { shape: "llm" })`: the route names hidden tools too. */
  readonly [SHAPES_FOR_MODEL] = true;
  /** The tool search index, fed by `listTools` (search.ts). */
  readonly #search = hubSearch(
    (o) => this.listTools(o),
    (changed) => this.onToolsChanged(changed),
    this.#slots,
  );

  constructor(options: HubOptions) {
    const o = resolveHubOptions(options);
    this.#name = o.name;
    this.#listTimeout = o.listTimeout;
    this.#clientOptions = o.clientOptions;
    this.#logger = o.logger ?? o.clientOptions.logger ?? defaultLogger;
    this.#routes = new Routes({
      slots: this.#slots,
      listTimeout: this.#listTimeout,
      warn: (text) => this.#warn(text),
    });
    this.#interceptors = o.interceptors;
    this.#stores = o.stores;
    this.#governor = o.governance && new Governor(o.governance);
    this.#gate = new StartGate(o.startConcurrency);
    try {
      for (const [id, config] of o.servers) this.#slots.set(id, this.#slot(id, config));
    } catch (err) {
      // A server's client options were refused: the clients already started are stopped.
      for (const slot of this.#slots.values()) void slot.close();
      this.#slots.clear();
      throw err;
    }
  }

  /**
   * Settles when every server is ready or has failed, or after `timeout` (default: the list
   * timeout). Never rejects because a server failed: the status it returns says which did.
   */
  async ready(options: { timeout?: number } = {}): Promise<HubStatus> {
    const timeout = options.timeout ?? this.#listTimeout;
    if (!Number.isSafeInteger(timeout) || timeout < 1) {
      throw new TypeError('conduit-mcp: option "timeout" must be an integer >= 1');
    }
    await Promise.all([...this.#slots.values()].map((s) => s.settled(timeout)));
    return this.status();
  }

  /** Every server's `{ state, era, version, reason }`, without I/O. */
  status(): HubStatus {
    const servers: Record<string, ClientStatus> = {};
    for (const [id, slot] of this.#slots) servers[id] = slot.status();
    return { servers };
  }

  /** The ids of the servers, in the order they were given. */
  serverIds(): string[] {
    return [...this.#slots.keys()];
  }

  /** The `Client` of one server, for everything the hub does not wrap. */
  client(serverId: string): Client {
    return this.#get(serverId).client;
  }

  /** Calls `listener` when a server's tools may have changed. Returns the unsubscribe function. */
  onToolsChanged(listener: (change: ToolsChange) => void): () => void {
    if (typeof listener !== "function") throw new TypeError("conduit-mcp: listener must be a function");
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Adds a server at run time; it connects in the background. */
  add(serverId: string, config: HubServerConfig): void {
    this.#open();
    checkServerId(serverId, [...this.#slots.keys()]);
    checkServerConfig(config, serverId);
    this.#slots.set(serverId, this.#slot(serverId, config));
    this.#emitChange(serverId, "added");
  }

  /** Removes a server and closes its client: its calls in flight fail with `kind: "closed"`. */
  async remove(serverId: string): Promise<void> {
    const slot = this.#get(serverId);
    this.#slots.delete(serverId);
    this.#routes.rebuild();
    this.#emitChange(serverId, "removed");
    await slot.close();
  }

  /** Closes every server's client. Calls made afterwards fail with `kind: "closed"`. */
  async close(): Promise<void> {
    this.#closed = true;
    const slots = [...this.#slots.values()];
    this.#slots.clear();
    this.#routes.clear();
    this.#listeners.clear();
    await Promise.all(slots.map((s) => s.close()));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /**
   * Every tool of every server that answered within the list timeout, under its public name.
   * Servers are asked in parallel; one that is down, fails or hangs is left out of this listing.
   */
  async listTools(options?: HubListOptions): Promise<HubTool[]> {
    return (await this.listToolsDetailed(options)).tools;
  }

  /** `listTools`, with how each server answered: `{ status, error?, durationMs, count }`. */
  async listToolsDetailed(options?: HubListOptions): Promise<HubListing> {
    this.#open();
    const o = checkRequestOptions(options, LIST_KEYS) as HubListOptions;
    const view = compileToolFilter<HubTool>(o, "", () =>
      this.#warn("a tool filter function threw; the tool is hidden"),
    );
    const timeout = o.timeout ?? this.#listTimeout;
    const slots = [...this.#slots.values()];
    const answers = await Promise.all(
      slots.map((s) =>
        s.list({ timeout, ...(o.signal ? { signal: o.signal } : {}), refresh: o.refresh === true }),
      ),
    );
    if (o.signal?.aborted) throw o.signal.reason;
    this.#routes.rebuild();
    const servers: Record<string, ServerListing> = {};
    const answered = new Set<string>();
    slots.forEach((s, i) => {
      servers[s.id] = answers[i]!;
      if (answers[i]!.status === "ok") answered.add(s.id);
    });
    const tools: HubTool[] = [];
    for (const [name, route] of this.#routes.all) {
      if (!answered.has(route.serverId)) continue;
      const item = { name, serverId: route.serverId, tool: route.tool };
      if (!view.active || view.test([name, route.toolName], item)) tools.push(item);
    }
    hideDenied(tools, (id) => this.#chains.get(this.#slots.get(id)!));
    return { tools, servers };
  }

  /**
   * The tools that best match a task-style query, best first (`{ tool, score }`), over the same
   * tools `listTools` gives; `limit` (default 10), `servers`, `embed` (docs/tool-search.md).
   */
  searchTools(query: string, options?: HubSearchOptions): Promise<HubSearchResult[]> {
    return this.#search.search(query, options as HubSearchOptions & Record<string, unknown>);
  }

  /** The `ToolCaller` view: the same as `listTools`. */
  listCallableTools(options?: ListAllOptions & HubListOptions): Promise<CallableTool[]> {
    return this.listTools(options);
  }

  /**
   * Calls a tool by its public name. An unknown, collided or filtered name is `kind: "not_found"`
   * whatever the caller guesses; a tool of a server that is down is `kind: "unavailable"`.
   * With `shape: "llm"` the answer is shaped for a model, with the routed server and tool as its
   * provenance (docs/hub.md).
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
    options?: CallToolOptions | LlmCallToolOptions,
  ): Promise<ToolResult | Task | LlmResult> {
    // Not async: a routed call costs no promise of its own (issue 26); what throws is a rejection.
    try {
      checkToolCall(name, args);
      if (wantsLlmShape(options)) {
        let routed: Route | undefined;
        const provenance = () =>
          routed
            ? { serverId: routed.serverId, tool: routed.toolName, qualifiedName: name }
            : unknownProvenance(undefined, name);
        return callShaped(
          (o) => this.#call(name, args, o, (r) => (routed = r)),
          args,
          options as LlmCallToolOptions,
          provenance,
        );
      }
      return this.#call(name, args, options as CallToolOptions | undefined);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** A call by public name; `onRoute` learns where it went (for a shaped result's provenance). */
  #call(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallToolOptions | undefined,
    onRoute?: (route: Route) => void,
  ): Promise<ToolResult | Task> {
    try {
      const opts = checkCallToolOptions(options);
      this.#open();
      // Before the first await: the call's spans belong to the caller's context, however the
      // context manager follows (or does not follow) the awaits below.
      const inCaller = captureContext();
      const ready = this.#routes.ready(name);
      // The common call: no closure, no clock read (nothing of its own to time, nobody to tell).
      if (ready && opts.timeout === undefined && !onRoute)
        return dispatch(this.#chains.get(this.#get(ready.serverId))!, ready, args, { ...opts, inCaller });
      const start = Date.now();
      const send = (route: Route) => {
        onRoute?.(route);
        // One deadline: a listing made to resolve the name counts against the call's timeout.
        const timed = opts.timeout === undefined ? opts : { ...opts, timeout: deadline(opts.timeout, start) };
        // THE place a routed call reaches a server (dispatch.ts), in the caller's context.
        return dispatch(this.#chains.get(this.#get(route.serverId))!, route, args, { ...timed, inCaller });
      };
      // A known name on a server with nothing to re-list routes without a turn of the event loop.
      return ready ? send(ready) : this.#routes.resolve(name, opts).then(send);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Every ready server's resources (each stamped with its `serverId`). */
  listResources(options?: { timeout?: number; signal?: AbortSignal }): Promise<Resource[]> {
    return this.#gather("resources", (c, o) => c.listAllResources(o), options);
  }

  listResourceTemplates(options?: { timeout?: number; signal?: AbortSignal }): Promise<ResourceTemplate[]> {
    return this.#gather("resources", (c, o) => c.listAllResourceTemplates(o), options);
  }

  listPrompts(options?: { timeout?: number; signal?: AbortSignal }): Promise<Prompt[]> {
    return this.#gather("prompts", (c, o) => c.listAllPrompts(o), options);
  }

  async readResource(serverId: string, uri: string, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.#get(serverId).client.readResource(uri, options);
  }

  async getPrompt(
    serverId: string,
    name: string,
    args?: Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<GetPromptResult> {
    return this.#get(serverId).client.getPrompt(name, args, options);
  }

  /**
   * The sanitised instructions of the servers whose clients opted in (`includeInstructions:
   * true`), each marked with its server id. Never merged into anything by default.
   */
  instructionsForLlm(): ServerInstructions[] {
    const out: ServerInstructions[] = [];
    for (const [serverId, slot] of this.#slots) {
      const instructions = slot.client.instructionsForLlm();
      if (instructions) out.push({ serverId, instructions });
    }
    return out;
  }

  #gather<T>(
    capability: "resources" | "prompts",
    list: (c: Client, o: { timeout: number; signal?: AbortSignal }) => Promise<T[]>,
    options: { timeout?: number; signal?: AbortSignal } | undefined,
  ): Promise<T[]> {
    this.#open();
    return gather([...this.#slots.values()], capability, list, checkRequestOptions(options), {
      listTimeout: this.#listTimeout,
      warn: (text) => this.#warn(text),
    });
  }

  #slot(id: string, config: HubServerConfig): ServerSlot {
    // A server's own governance replaces the hub's. Checked before its client starts.
    const governor = config.governance
      ? new Governor(withGrants(config.governance, this.#stores), `servers.${id}.governance`)
      : this.#governor;
    const server = checkInterceptors(config.interceptors, `servers.${id}.interceptors`);
    const slot = new ServerSlot(id, config, this.#clientOptions, {
      hubName: this.#name,
      logger: this.#logger,
      warn: (text) => this.#warn(text),
      info: (text) => this.#info(text),
      changed: (serverId, reason) => this.#emitChange(serverId, reason),
      gate: this.#gate,
    });
    const client = { ...this.#clientOptions, ...(config.client ?? {}) };
    this.#chains.set(
      slot,
      serverChain(slot, {
        hub: this.#interceptors,
        governor,
        server,
        principal: client.principal ?? null,
        timeout: client.requestTimeout ?? CLIENT_DEFAULTS.requestTimeout,
      }),
    );
    return slot;
  }

  #get(serverId: string): ServerSlot {
    if (typeof serverId !== "string") throw new TypeError("conduit-mcp: server id must be a string");
    this.#open();
    const slot = this.#slots.get(serverId);
    if (!slot) throw new McpClientError("not_found", "unknown_server");
    return slot;
  }

  #open(): void {
    if (this.#closed) throw new McpClientError("closed", "hub_closed");
  }

  #emitChange(serverId: string, reason: ToolsChangeReason): void {
    for (const listener of this.#listeners) {
      try {
        listener({ serverId, reason });
      } catch (err) {
        this.#warn(`an onToolsChanged listener threw: ${String(err)}`);
      }
    }
  }

  #info(text: string): void {
    try {
      this.#logger.info?.(redactSecrets(sanitizeText(text, { maxLength: 500 })));
    } catch {
      // As for warnings.
    }
  }

  #warn(text: string): void {
    try {
      this.#logger.warn(redactSecrets(sanitizeText(text, { maxLength: 500 })));
    } catch {
      // A logger that throws must not take the hub down.
    }
  }
}
