import type { Backoff } from "../shared/backoff.js";
import type { Deadline } from "../shared/deadline.js";
import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import { isObject, type JsonObject } from "../shared/guards.js";
import { ErrorCodes } from "../shared/jsonrpc.js";
import type { Era } from "../shared/versions.js";
import { META } from "../shared/versions.js";
import { TASKS_EXTENSION } from "./tasks.js";
import type { RequestOptions } from "./types.js";

/** The `notifications` filter of `subscriptions/listen`. */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** The tasks extension: status notifications of these tasks. */
  taskIds?: string[];
}

/** At most this many listens exist at once (a new one is opened before the old one closes). */
export const MAX_LISTENS = 4;

export interface SubscriptionDeps {
  era(): Era | null;
  ready(): boolean;
  serverCapabilities(): JsonObject | null;
  /** Who wants to hear list changes of each kind (a cached list, a subscriber, a handler). */
  interest(): { tools: boolean; resources: boolean; prompts: boolean };
  /**
   * Sends `subscriptions/listen` with `filter`; `onId` learns its request id once sent. Resolves
   * with its response when the server ends it; rejects when cancelled or the transport fails.
   */
  listen(filter: ListenFilter, signal: AbortSignal, onId: (id: number) => void): Promise<JsonObject>;
  /** A plain request (legacy `resources/subscribe` and `resources/unsubscribe`), within `deadline`. */
  request(
    method: string,
    params: JsonObject,
    options: RequestOptions,
    deadline?: Deadline,
  ): Promise<JsonObject>;
  backoff: Backoff;
  warn(text: string): void;
}

interface Listen {
  id: number | undefined;
  filter: ListenFilter;
  key: string;
  controller: AbortController;
  acked: Promise<ListenFilter>;
  ack: (honored: ListenFilter) => void;
  fail: (err: unknown) => void;
  ended: boolean;
  /** What the server's acknowledgment said it sends on this listen (undefined before it). */
  honored: ListenFilter | undefined;
}

/** The listen filter's flag for each list's list_changed. */
const LIST_FLAGS = {
  tools: "toolsListChanged",
  resources: "resourcesListChanged",
  prompts: "promptsListChanged",
} as const;
type ListFlag = (typeof LIST_FLAGS)[keyof typeof LIST_FLAGS];

/** What to do with a notification that arrived with (or without) a subscription id. */
export type Routing = "deliver" | "drop";

/**
 * Resource subscriptions in both eras, and the modern `subscriptions/listen` streams the client
 * opens itself: one listen whose filter is the union of what its consumers want and the server
 * advertises, replaced (new first, old closed once the new one is acknowledged) when that
 * changes, and reopened after the backoff when it ends.
 */
export class Subscriptions {
  readonly #d: SubscriptionDeps;
  // The collections are made on first use: most clients never subscribe, await a task or open a
  // listen, and four empty ones are ~0.7 KB per client (issue 12).
  #uris: Set<string> | undefined;
  /** Tasks someone is waiting for (counted: several waiters may share one). */
  #taskIds: Map<string, number> | undefined;
  /** Live listens, oldest first, and the same by request id once sent. */
  #listens: Set<Listen> | undefined;
  #byId: Map<number, Listen> | undefined;
  #current: Listen | undefined;
  #reopenTimer: NodeJS.Timeout | undefined;
  #reopenAttempt = 0;
  #closed = false;
  /** The server refused `subscriptions/listen` outright: none is opened until the next connection. */
  #refused = false;
  #refusalWarned = false;
  /** Counts the times a list's changes stopped being heard (its last acknowledged listen ended). */
  #breaks = 0;

  constructor(deps: SubscriptionDeps) {
    this.#d = deps;
  }

  /** The resources subscribed to. */
  get uris(): string[] {
    return this.#uris ? [...this.#uris] : [];
  }

  /** Within `deadline`, the caller's: the request (legacy) or the acknowledgment (modern). */
  async subscribe(uri: string, options: RequestOptions, deadline: Deadline): Promise<void> {
    this.#requireSupport();
    if (this.#d.era() === "legacy") {
      await this.#d.request("resources/subscribe", { uri }, options, deadline);
      this.#uris ??= new Set();
      this.#uris.add(uri);
      return;
    }
    this.#uris ??= new Set();
    this.#uris.add(uri);
    let honored: ListenFilter;
    try {
      honored = await this.#waitAck(this.#update(), options, deadline);
    } catch (err) {
      this.#uris?.delete(uri);
      throw err;
    }
    if (!honored.resourceSubscriptions?.includes(uri)) {
      this.#uris?.delete(uri);
      this.#update();
      throw new McpClientError("protocol", "subscription_not_acknowledged");
    }
  }

  async unsubscribe(uri: string, options: RequestOptions, deadline: Deadline): Promise<void> {
    const had = this.#uris?.delete(uri) ?? false;
    if (this.#d.era() === "legacy") {
      if (had) await this.#d.request("resources/unsubscribe", { uri }, options, deadline);
      return;
    }
    this.#update();
  }

  /**
   * While an acknowledged listen carries `kind`'s list_changed, a number that changes whenever
   * none did for a while since (so a change may have gone unheard); else null.
   */
  heard(kind: keyof typeof LIST_FLAGS): number | null {
    return this.#covered(LIST_FLAGS[kind]) ? this.#breaks : null;
  }

  #covered(flag: ListFlag): boolean {
    if (this.#listens) for (const l of this.#listens) if (!l.ended && l.honored?.[flag]) return true;
    return false;
  }

  /** The connection became ready (again): everything is sent again. */
  onReady(): void {
    this.#reopenAttempt = 0;
    this.#refused = false;
    this.#forgetAll();
    this.#current = undefined;
    if (this.#d.era() === "legacy") {
      for (const uri of this.#uris ?? []) {
        this.#d.request("resources/subscribe", { uri }, {}).catch((err) => {
          this.#d.warn(`re-subscribing to a resource failed: ${String(err)}`);
        });
      }
      return;
    }
    this.#update();
  }

  /**
   * A task is being awaited: its status notifications are worth a listen (when the server offers
   * the tasks extension). Returns the function that ends the interest.
   */
  watchTask(taskId: string): () => void {
    this.#taskIds ??= new Map();
    const ids = this.#taskIds;
    ids.set(taskId, (ids.get(taskId) ?? 0) + 1);
    this.onInterestChanged();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (ids.get(taskId) ?? 1) - 1;
      if (n <= 0) ids.delete(taskId);
      else ids.set(taskId, n);
      this.onInterestChanged();
    };
  }

  /** Consumers came or went: the listen filter may have changed. */
  onInterestChanged(): void {
    if (this.#d.era() === "modern" && this.#d.ready()) this.#update();
  }

  /**
   * Routes a modern notification by its subscription id: acknowledgments are consumed here,
   * notifications of a live listen are delivered, those of unknown or closed listens dropped.
   * A notification without a subscription id (a request's own log entry) is delivered.
   */
  route(method: string, params: JsonObject | undefined): Routing {
    const meta = isObject(params?._meta) ? params._meta : undefined;
    const sid = meta?.[META.subscriptionId];
    if (method === "notifications/cancelled") {
      const listen = this.#byId?.get(params?.requestId as number);
      if (listen) this.#end(listen, new McpClientError("transport", "listen_cancelled_by_server"));
      return listen ? "drop" : "deliver";
    }
    if (sid === undefined) return "deliver";
    const listen = typeof sid === "number" ? this.#byId?.get(sid) : undefined;
    if (!listen || listen.ended) return "drop";
    if (method === "notifications/subscriptions/acknowledged") {
      const honored = readFilter(params?.notifications);
      listen.honored ??= honored;
      listen.ack(honored);
      return "drop";
    }
    return "deliver";
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#reopenTimer);
    this.#forgetAll();
    this.#current = undefined;
  }

  /** Forgets every live listen (a copy is walked: forgetting removes it from the set). */
  #forgetAll(except?: Listen): void {
    if (!this.#listens) return;
    for (const l of [...this.#listens]) if (l !== except) this.#forget(l);
  }

  #requireSupport(): void {
    const caps = this.#d.serverCapabilities();
    const resources = isObject(caps?.resources) ? caps.resources : undefined;
    if (caps && resources?.subscribe !== true) {
      throw new McpClientError("protocol", "subscriptions_not_supported");
    }
  }

  /** The filter the consumers want, cut to what the server advertises. */
  #filter(): ListenFilter {
    const caps = this.#d.serverCapabilities() ?? {};
    const interest = this.#d.interest();
    const listChanged = (kind: string) =>
      isObject(caps[kind]) && (caps[kind] as JsonObject).listChanged === true;
    const f: ListenFilter = {};
    if (interest.tools && listChanged("tools")) f.toolsListChanged = true;
    if (interest.prompts && listChanged("prompts")) f.promptsListChanged = true;
    if (interest.resources && listChanged("resources")) f.resourcesListChanged = true;
    const resources = isObject(caps.resources) ? caps.resources : undefined;
    if (this.#uris && this.#uris.size > 0 && resources?.subscribe === true)
      f.resourceSubscriptions = [...this.#uris].sort();
    const extensions = isObject(caps.extensions) ? caps.extensions : undefined;
    if (this.#taskIds && this.#taskIds.size > 0 && isObject(extensions?.[TASKS_EXTENSION]))
      f.taskIds = [...this.#taskIds.keys()].sort();
    return f;
  }

  /** Opens a listen for the current filter unless the current one already has it. */
  #update(): Listen | undefined {
    if (this.#closed || !this.#d.ready()) return this.#current;
    if (this.#refused) return undefined;
    const filter = this.#filter();
    const key = JSON.stringify(filter);
    if (this.#current && !this.#current.ended && this.#current.key === key) return this.#current;
    clearTimeout(this.#reopenTimer);
    if (key === "{}") {
      this.#forgetAll();
      this.#current = undefined;
      return undefined;
    }
    // Room for the new one: the oldest others go first.
    this.#listens ??= new Set();
    const listens = this.#listens;
    for (const l of [...listens]) {
      if (listens.size < MAX_LISTENS) break;
      this.#forget(l);
    }
    return this.#open(filter, key);
  }

  #open(filter: ListenFilter, key: string): Listen {
    let ack!: (f: ListenFilter) => void;
    let fail!: (e: unknown) => void;
    const acked = new Promise<ListenFilter>((resolve, reject) => {
      ack = resolve;
      fail = reject;
    });
    const listen: Listen = {
      id: undefined,
      filter,
      key,
      controller: new AbortController(),
      acked,
      ack,
      fail,
      ended: false,
      honored: undefined,
    };
    this.#listens ??= new Set();
    this.#listens.add(listen);
    this.#current = listen;
    acked.then(
      () => {
        this.#reopenAttempt = 0;
        // The new one is acknowledged: the older ones can go.
        if (this.#current === listen) this.#forgetAll(listen);
      },
      () => {}, // ended before its acknowledgment; nobody may be waiting
    );
    this.#d
      .listen(filter, listen.controller.signal, (id) => {
        listen.id = id;
        if (listen.ended) return;
        this.#byId ??= new Map();
        this.#byId.set(id, listen);
      })
      .then(
        () => this.#end(listen, undefined),
        (err) => this.#end(listen, err),
      );
    return listen;
  }

  /** A listen ended: by us (forget), by the server, or with the transport. */
  #end(listen: Listen, err: unknown): void {
    if (listen.ended) return;
    listen.ended = true;
    listen.fail(err ?? new McpClientError("protocol", "listen_ended"));
    this.#drop(listen);
    if (this.#current !== listen || this.#closed) return;
    this.#current = undefined;
    if (jsonRpcCode(err) === ErrorCodes.methodNotFound) {
      // A definite refusal (it advertised listChanged all the same): asking again changes nothing.
      this.#refused = true;
      if (!this.#refusalWarned) {
        this.#refusalWarned = true;
        this.#d.warn(
          "the server refused subscriptions/listen (method not found): no change notifications until it reconnects",
        );
      }
      return;
    }
    // Reopened after the backoff while the connection stands; a new connection reopens it anyway.
    if (this.#d.ready()) {
      const delay = this.#d.backoff(this.#reopenAttempt++);
      this.#reopenTimer = setTimeout(() => this.#update(), delay);
    }
  }

  #forget(listen: Listen): void {
    if (listen.ended) return;
    listen.ended = true;
    listen.fail(new McpClientError("protocol", "listen_replaced"));
    listen.controller.abort(new McpClientError("closed", "listen_closed"));
    this.#drop(listen);
  }

  #drop(listen: Listen): void {
    this.#listens?.delete(listen);
    if (listen.id !== undefined) this.#byId?.delete(listen.id);
    // A list it carried that no other acknowledged listen carries is unheard from now on.
    const h = listen.honored;
    if (h && Object.values(LIST_FLAGS).some((f) => h[f] && !this.#covered(f))) this.#breaks += 1;
  }

  async #waitAck(
    listen: Listen | undefined,
    options: RequestOptions,
    deadline: Deadline,
  ): Promise<ListenFilter> {
    if (!listen) throw new McpClientError("protocol", "subscription_not_acknowledged");
    return new Promise<ListenFilter>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new McpClientError("timeout", "not_acknowledged")),
        deadline.remaining(),
      );
      const onAbort = () => reject(options.signal!.reason);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      listen.acked
        .then(resolve, () => reject(new McpClientError("protocol", "subscription_not_acknowledged")))
        .finally(() => {
          clearTimeout(timer);
          options.signal?.removeEventListener("abort", onAbort);
        });
    });
  }
}

function readFilter(v: unknown): ListenFilter {
  if (!isObject(v)) return {};
  const f: ListenFilter = {};
  if (v.toolsListChanged === true) f.toolsListChanged = true;
  if (v.promptsListChanged === true) f.promptsListChanged = true;
  if (v.resourcesListChanged === true) f.resourcesListChanged = true;
  if (Array.isArray(v.taskIds)) f.taskIds = v.taskIds.filter((u): u is string => typeof u === "string");
  if (Array.isArray(v.resourceSubscriptions)) {
    f.resourceSubscriptions = v.resourceSubscriptions.filter((u): u is string => typeof u === "string");
  }
  return f;
}
