import { Connection } from "../connection/connection.js";
import type { ServerRequestInfo, TransitionEvent } from "../connection/types.js";
import {
  logLevelIsRequest,
  pingMethod,
  RequestShaper,
  routesNotifications,
  takesServerRequests,
} from "../protocol/era.js";
import { ProtocolNegotiator, type Session } from "../protocol/negotiator.js";
import { type Backoff, defaultBackoff, guardedBackoff } from "../shared/backoff.js";
import { withinDepth } from "../shared/depth.js";
import { McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../shared/jsonrpc.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import { OptionError } from "../shared/option-error.js";
import { sanitizeText } from "../shared/sanitize.js";
import { redactSecrets } from "../shared/secret.js";
import { MemoryBudgetStore } from "../stores/budgets.js";
import { Telemetry } from "../telemetry/events.js";
import { OpenTelemetryBridge } from "../telemetry/open-telemetry.js";
import { Budget } from "./budget.js";
import type { CredentialIdentity } from "./cache/list-cache.js";
import { InputService } from "./input/service.js";
import { admitTools, type Rejected } from "./intake.js";
import { LIST_METHODS, type ListAllOptions, Lists } from "./lists.js";
import { NotificationFanOut } from "./notifications/fan-out.js";
import { checkRequestOptions, type ResolvedClientOptions } from "./options.js";
import { type Page, readCursor } from "./pagination.js";
import { PartsLink } from "./parts-link.js";
import { Requester } from "./requester.js";
import { expectComplete } from "./results.js";
import { Subscriptions } from "./subscriptions.js";
import { Tasks } from "./tasks.js";
import { ToolCalls } from "./tool-calls.js";
import { tracedNegotiator } from "./traced-negotiator.js";
import type { ListOptions, RequestOptions, Tool } from "./types.js";
import { VERSION } from "./version.js";
import { WarnLimiter } from "./warn-limit.js";

type ListKey = keyof typeof LIST_METHODS;
const LIST_METHOD_NAMES: ReadonlySet<string> = new Set(Object.values(LIST_METHODS));

/**
 * What a `Client` is made of, wired once: the connection, the request path (shaper, requester),
 * the input handler, notifications, lists, subscriptions, tasks and tool calls, and the hooks by
 * which the connection reports up (notifications, server requests, transitions, result checks).
 * `Client` is the public API over these; nothing here is exported from the package.
 */
export class ClientParts {
  readonly o: ResolvedClientOptions;
  readonly conn: Connection<Session>;
  readonly telemetry: Telemetry;
  /** Spans and metrics through OpenTelemetry, when asked for. */
  readonly otel: OpenTelemetryBridge | null;
  /** Shapes params per era; holds the log level a modern request carries. */
  readonly shaper: RequestShaper;
  readonly requester: Requester;
  /** The client's onStateChange listeners, made with the first one. */
  stateListeners: Set<(event: TransitionEvent) => void> | undefined;
  readonly fanOut: NotificationFanOut;
  readonly lists: Lists;
  readonly subs: Subscriptions;
  /** Made on first use (a task call, `getTask`...): most clients never see a task. */
  #tasks: Tasks | undefined;
  /** Counts the connections made ready: what one heard says nothing of the next. */
  #readies = 0;
  readonly #link: PartsLink;
  readonly input: InputService;
  readonly toolCalls: ToolCalls;
  /** The connection's and the listens' backoff, guarded (a pure function of the attempt). */
  readonly backoff: Backoff;
  readonly #owner: { listAllTools(options?: ListAllOptions): Promise<Tool[]> };

  constructor(o: ResolvedClientOptions, owner: { listAllTools(options?: ListAllOptions): Promise<Tool[]> }) {
    this.o = o;
    this.#owner = owner;
    // What the parts ask of each other: one object, its methods on its prototype (parts-link.ts).
    const link = new PartsLink(this);
    this.backoff = o.backoff
      ? guardedBackoff(
          o.backoff,
          ({ problem, attempt, delay, text }) => {
            this.warn(text);
            this.telemetry.emit("connection:backoff_invalid", () => ({ problem, attempt, delay }));
          },
          o.maxBackoff,
        )
      : defaultBackoff(o.maxBackoff);
    this.otel = o.openTelemetry
      ? new OpenTelemetryBridge(o.openTelemetry.options, o.openTelemetry.peer, VERSION)
      : null;
    this.telemetry = new Telemetry(link);
    this.input = new InputService(o.input, link);
    this.shaper = new RequestShaper(link);
    if (o.stores.eras) link.eras = { store: o.stores.eras, key: o.storeKey };
    if (o.stores.lists) link.shared = { store: o.stores.lists, origin: originId(), server: o.storeKey };
    const negotiator = new ProtocolNegotiator(link);
    this.conn = new Connection<Session>({
      transport: o.transport,
      negotiator: this.otel ? tracedNegotiator(negotiator, this.otel) : negotiator,
      telemetry: this.telemetry,
      maxInFlight: o.maxInFlight,
      maxQueued: o.maxQueued,
      // The reconnect policy's fields, in the config itself (an object of its own was ~70 B).
      backoff: this.backoff,
      maxReconnects: o.maxReconnects,
      stableAfter: o.stableAfter,
      onGiveUp: o.onGiveUp,
      healthCheck:
        o.healthCheckInterval === null
          ? null
          : {
              interval: o.healthCheckInterval,
              method: pingMethod,
              build: (s, token) => this.shaper.params(undefined, s, token),
            },
      hooks: link,
    });
    this.requester = new Requester({
      connection: this.conn,
      shaper: this.shaper,
      otel: this.otel,
      input: this.input,
      requestTimeout: o.requestTimeout,
      maxTotalTimeout: o.maxTotalTimeout,
      toolHeaders: o.toolRule !== undefined,
    });
    this.requester.budget = o.rateLimit
      ? new Budget(o.stores.budgets ?? new MemoryBudgetStore(), o.storeKey, o.rateLimit)
      : undefined;
    // OAuth sources without a store of their own keep tokens in the shared one.
    const credentials = o.transportObject?.credentials;
    if (o.stores.tokens && credentials) credentials.tokenStore = o.stores.tokens;
    this.fanOut = new NotificationFanOut(link);
    this.lists = new Lists(link);
    this.subs = new Subscriptions(link);
    this.#link = link;
    this.toolCalls = new ToolCalls(link);
  }

  /** The owning client's `listAllTools` (its checks and cache): tasks and governance look tools up. */
  listAllTools(options?: ListAllOptions): Promise<Tool[]> {
    return this.#owner.listAllTools(options);
  }

  get tasks(): Tasks {
    this.#tasks ??= new Tasks(this.#link);
    return this.#tasks;
  }

  /** One page of a list (`list*()`): the cursor checked, the items not yet admitted. */
  async page(key: ListKey, options: ListOptions | undefined): Promise<Page> {
    const opts = checkRequestOptions(options, ["cursor"]) as ListOptions;
    if (opts.cursor !== undefined && typeof opts.cursor !== "string") {
      throw new OptionError("cursor", "invalid", "a string");
    }
    return this.#fetchPage(key, opts.cursor, opts);
  }

  async #fetchPage(key: ListKey, cursor: string | undefined, opts: RequestOptions): Promise<Page> {
    const result = expectComplete(
      await this.requester.request(LIST_METHODS[key], cursor === undefined ? {} : { cursor }, opts),
    );
    const items = result[key];
    if (!Array.isArray(items)) throw new McpClientError("protocol", "invalid_list_result");
    return { items, nextCursor: readCursor(result.nextCursor) };
  }

  /** Counts the transport's credential changes (0 for a transport without credentials). */
  credentialGeneration(): number {
    return this.o.transportObject?.credentials?.generation ?? 0;
  }

  /** Whose credentials the transport sends (the cache keys private lists by it). */
  credentialIdentity(): CredentialIdentity {
    return this.o.transportIdentity?.() ?? { kind: "none" };
  }

  /** Intake of a listing's tools; over HTTP, `x-mcp-header` annotations must be valid too. */
  #intakeTools(items: unknown[]): { tools: Tool[]; rejected: Rejected[] } {
    return admitTools(items, this.o.serverId, this.o.toolRule, this.o.maxDepth);
  }

  /**
   * Every result is bounded in depth before anyone reads it, except listings: there each item is
   * checked at intake, so one deep tool is left out instead of failing the whole list.
   */
  checkResult(method: string, result: JsonObject): McpClientError | undefined {
    if (LIST_METHOD_NAMES.has(method) || withinDepth(result, this.o.maxDepth)) return undefined;
    return new McpClientError("protocol", "max_depth_exceeded", { limit: this.o.maxDepth });
  }

  admitTools(items: unknown[]): Tool[] {
    const { tools, rejected } = this.#intakeTools(items);
    for (const r of rejected) this.toolRejected(r);
    return tools;
  }

  toolRejected(r: Rejected): void {
    this.warn(`server "${this.o.serverId}" listed a tool that was left out (${r.reason}): ${r.name}`);
    this.telemetry.emit("tool:rejected", () => ({ toolName: r.name, reason: r.reason }));
  }

  warn(text: string): void {
    // Made on the first warning: most clients never log one.
    this.#warnLimit ??= new WarnLimiter((t) => {
      try {
        this.o.logger.warn(redactSecrets(sanitizeText(t, { maxLength: 500 })));
      } catch {
        // A logger that throws must not take the connection down.
      }
    });
    this.#warnLimit.warn(text);
  }

  #warnLimit: WarnLimiter | undefined;

  /** At close: the count of left-out warnings said now, its timer gone. */
  closeWarnings(): void {
    this.#warnLimit?.close();
  }

  /**
   * A new connection, or a renewed legacy session, knows nothing of what the old one was told:
   * resource subscriptions and listen streams, and (legacy) the log level, are sent again.
   */
  resendSessionState(): void {
    this.subs.onReady();
    const level = this.shaper.logLevel;
    if (level && logLevelIsRequest(this.conn.session)) {
      this.requester.request("logging/setLevel", { level }, {}).catch((err) => {
        this.warn(`sending the log level again failed: ${String(err)}`);
      });
    }
  }

  /** See `Client.listChangesHeard`. */
  listChangesHeard(kind: "tools" | "resources" | "prompts"): string | null {
    const s = this.conn.session;
    const caps = s?.capabilities[kind];
    if (!s || this.conn.state !== "ready" || !isObject(caps) || caps.listChanged !== true) return null;
    // Modern: an acknowledged listen. Legacy: the transport's stream for what comes unasked.
    const t = this.o.transportObject;
    const n = s.era === "modern" ? this.subs.heard(kind) : t?.notificationStream ? t.notificationStream() : 0;
    return n === null ? null : `${this.#readies}.${n}`;
  }

  onTransition(event: TransitionEvent): void {
    if (event.to === "ready") this.#readies += 1;
    if (event.from === "ready") this.lists.markStale();
    if (event.from === "ready") this.input.connectionLost();
    if (event.to === "ready") this.resendSessionState();
    if (event.to === "reconnecting") this.otel?.reconnecting(event.attempt);
    if (this.stateListeners)
      for (const listener of this.stateListeners) {
        try {
          listener(event);
        } catch (err) {
          this.warn(`a state listener threw: ${String(err)}`);
        }
      }
  }

  onNotification(m: JsonRpcNotification): void {
    const params = isObject(m.params) ? m.params : undefined;
    if (routesNotifications(this.conn.session) && this.subs.route(m.method, params) === "drop") return;
    // Cancellation is about requests, not news: not delivered to subscribers.
    if (m.method === "notifications/cancelled") return this.input.cancelled(params);
    // Task status carries task ids, which stay inside the client: it only wakes the waiter.
    if (m.method === "notifications/tasks" || m.method === "notifications/tasks/status") {
      // No Tasks made yet: no task is waited on, nothing to wake.
      return this.#tasks?.notified(params);
    }
    this.fanOut.receive(m.method, params);
  }

  /**
   * Not an async function: the handler's own promise is handed on as it is (an async function
   * would adopt it, two turns later), so an answer made at once (a ping, a refusal) is written
   * in the turn after the request was read, before the caller of a call whose response came
   * after that request goes on (it hears its answer one turn after it was read).
   */
  onServerRequest(m: JsonRpcRequest, info: ServerRequestInfo): Promise<JsonObject> {
    if (m.method === "ping") return Promise.resolve({});
    // Bounded like results, before any handler sees the params.
    if (!withinDepth(m.params, this.o.maxDepth)) {
      this.warn(`refused a ${m.method} request from the server: params nested deeper than maxDepth`);
      return Promise.reject({ code: ErrorCodes.invalidParams, message: "Invalid params: nested too deeply" });
    }
    // Sampling, elicitation and roots (modern servers ask through input_required results).
    if (takesServerRequests(this.conn.session)) return this.input.serverRequest(m, info);
    return Promise.reject({ code: ErrorCodes.methodNotFound, message: "Method not found" });
  }
}

let origins = 0;
/**
 * Names one client in the list store's notices (so it skips its own): unique across processes,
 * not secret; node:crypto stays out of the core's import.
 */
function originId(): string {
  origins += 1;
  return `${process.pid}.${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}.${origins}`;
}
