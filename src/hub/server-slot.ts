import { Client } from "../client/client.js";
import { TOOL_DEFINITION_CHANGED } from "../client/lists.js";
import { CLIENT_DEFAULTS } from "../client/options.js";
import { type CompiledToolFilter, compileToolFilter } from "../client/tool-filter.js";
import type { ClientStatus, Logger, Tool, TransitionEvent } from "../client/types.js";
import { type Backoff, guardedBackoff } from "../shared/backoff.js";
import { ERROR_KINDS, type ErrorKind, McpClientError } from "../shared/errors.js";
import { sanitizeText } from "../shared/sanitize.js";
import { Telemetry } from "../telemetry/events.js";
import { isTransport } from "../transport/transport.js";
import { qualifyToolName } from "../util/qualify.js";
import type { HubClientOptions, HubServerConfig } from "./options.js";
import { gatedTransport, type StartGate } from "./start-gate.js";

/** Why the hub's tool list changed. */
export type ToolsChangeReason =
  | "list_changed"
  | "definition_changed"
  | "failed"
  | "restarted"
  | "added"
  | "removed";

/** How one server answered one listing. */
export interface ServerListing {
  status: "ok" | "failed" | "not_ready";
  /** Why it failed (a listing error, or why the server is down). */
  error?: McpClientError;
  durationMs: number;
  count: number;
}

export interface SlotDeps {
  hubName: string;
  logger: Logger | undefined;
  warn(text: string): void;
  info(text: string): void;
  changed(serverId: string, reason: ToolsChangeReason): void;
  /** The hub's bound on stdio servers starting at once. */
  gate: StartGate;
}

/**
 * One server behind the hub: its `Client` (used through the public API only), its filters, its
 * last listing, and its health: reported down when it leaves `ready`, up when it is back, and
 * started again in the background (with the client's own backoff) when its client gives up.
 */
export class ServerSlot {
  readonly id: string;
  readonly client: Client;
  readonly telemetry: Telemetry;
  readonly #filter: CompiledToolFilter<Tool>;
  readonly #backoff: Backoff;
  readonly #restarts: boolean;
  readonly #deps: SlotDeps;
  readonly #offs: Array<() => void> = [];
  /** The tools of the last listing that answered, filtered; null before the first. */
  tools: Tool[] | null = null;
  /** The last listing was not cached: private to credentials the client cannot identify. */
  uncached = false;
  /** A change was heard since the last listing began. */
  dirty = true;
  /**
   * What `listChangesHeard("tools")` read when the last listing that answered began, if it read
   * the same when it ended: while the client still reads it, no change went unheard since.
   */
  #heard: string | null = null;
  /** Listings in flight: until they end, `tools` may not yet show what the server has. */
  #listings = 0;
  #downSince: number | null = null;
  #downReason: McpClientError | null = null;
  #restartAttempt = 0;
  #restartTimer: NodeJS.Timeout | undefined;
  #closing = false;
  readonly #names = new Map<string, string>();

  /** No change can have gone unheard since the last listing began (the search's list state). */
  announces(): boolean {
    const heard = this.client.listChangesHeard("tools");
    return heard !== null && heard === this.#heard;
  }

  constructor(id: string, config: HubServerConfig, defaults: HubClientOptions, deps: SlotDeps) {
    this.id = id;
    this.#deps = deps;
    const own = config.client ?? {};
    const merged = { ...defaults, ...own };
    this.#filter = compileToolFilter<Tool>(config, `servers.${id}`, () =>
      deps.warn(`server "${id}": a tool filter function threw; the tool is hidden`),
    );
    try {
      this.client = new Client({
        ...merged,
        logger: merged.logger ?? deps.logger,
        name: `${deps.hubName}/${id}`,
        serverId: id,
        transport: gatedTransport(config.transport, deps.gate),
      });
    } catch (err) {
      if (err instanceof TypeError) {
        throw new TypeError(`conduit-mcp: server "${id}": ${err.message.replace(/^conduit-mcp: /, "")}`);
      }
      throw err;
    }
    // The client's guard, so a restart never hands a timer more than maxBackoff (1e12 would fire
    // at once, over and over); the client reports a bad backoff itself, so this one is silent.
    this.#backoff = guardedBackoff(merged.backoff, () => {}, merged.maxBackoff ?? CLIENT_DEFAULTS.maxBackoff);
    // "stop" means closed for good: the operator asked for no restart.
    this.#restarts = merged.onGiveUp !== "stop";
    const kind = isTransport(config.transport) ? config.transport.kind : String(config.transport.type);
    this.telemetry = new Telemetry(() => ({
      client: deps.hubName,
      serverId: id,
      transport: kind,
      era: this.client.status().era,
    }));
    this.#offs.push(
      this.client.onStateChange((e) => this.#onTransition(e)),
      this.client.onNotification((n) => {
        if (n.method === "notifications/tools/list_changed") this.#changed("list_changed");
        else if (n.method === TOOL_DEFINITION_CHANGED) this.#changed("definition_changed");
      }),
    );
  }

  /** Reported down (not ready since it left `ready`, or never ready and failed once). */
  get down(): boolean {
    return this.#downSince !== null;
  }

  /** The `unavailable` / `server_down` error of a server that is down, naming its failure. */
  downError(): McpClientError {
    return this.#downReason ?? new McpClientError("unavailable", "server_down");
  }

  status(): ClientStatus {
    return this.client.status();
  }

  /** The public name of one of this server's tools (remembered: listings repeat the same names). */
  publicName(toolName: string): string {
    let name = this.#names.get(toolName);
    if (name === undefined) {
      // A server that renames its tools endlessly cannot grow this without bound.
      if (this.#names.size >= 10_000) this.#names.clear();
      name = qualifyToolName(this.id, toolName);
      this.#names.set(toolName, name);
    }
    return name;
  }

  /** Whether `tool` passes this server's filters (patterns match its own or its public name). */
  admits(tool: Tool): boolean {
    return this.#filter.test([tool.name, this.publicName(tool.name)], tool);
  }

  /** A listing is in flight (its answer is not in `tools` yet). */
  get listing(): boolean {
    return this.#listings > 0;
  }

  /**
   * Lists this server's tools within `timeout`; never rejects. Concurrent listings are one
   * `tools/list` at the server (the client shares its refresh), each waiting within its own
   * timeout and signal.
   */
  async list(options: { timeout: number; signal?: AbortSignal; refresh?: boolean }): Promise<ServerListing> {
    const start = Date.now();
    if (this.#closing) {
      return {
        status: "not_ready",
        error: new McpClientError("closed", "server_removed"),
        durationMs: 0,
        count: 0,
      };
    }
    if (this.#downSince !== null) {
      const error = this.#downReason ?? new McpClientError("unavailable", "server_down");
      return { status: "not_ready", error, durationMs: 0, count: 0 };
    }
    // Nothing heard since the last listing, from a server whose changes this client has heard
    // without a break since that listing began: its last listing is still its list, so a hundred
    // servers are not asked again for one change. A listing in flight is joined instead: its
    // answer is not in `tools` yet.
    const last = this.tools;
    const settled = !this.dirty && this.#listings === 0 && last !== null;
    const heard = this.client.listChangesHeard("tools");
    if (!options.refresh && settled && !this.uncached && heard !== null && heard === this.#heard) {
      return { status: "ok", durationMs: 0, count: last.length };
    }
    // Cleared before asking: a change heard while the listing runs marks it again.
    this.dirty = false;
    this.#listings += 1;
    try {
      const listed = await this.client.listAllTools({
        timeout: options.timeout,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.refresh ? { refresh: true } : {}),
      });
      this.tools = this.#filter.active ? listed.filter((t) => this.admits(t)) : listed;
      this.uncached = !this.#cached();
      // A break while it ran (a stream lost and back): a change may have gone unheard.
      this.#heard = heard === this.client.listChangesHeard("tools") ? heard : null;
      return { status: "ok", durationMs: Date.now() - start, count: this.tools.length };
    } catch (err) {
      this.dirty = true;
      this.#heard = null;
      const error =
        err instanceof McpClientError
          ? err
          : new McpClientError("protocol", "listing_failed", undefined, { cause: err });
      return { status: "failed", error, durationMs: Date.now() - start, count: 0 };
    } finally {
      this.#listings -= 1;
    }
  }

  /** Resolves when the server is ready, reported down, or after `timeout`. */
  settled(timeout: number): Promise<void> {
    if (this.client.status().state === "ready" || this.#downSince !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const timer = setTimeout(done, timeout);
      const off = this.client.onStateChange((e) => {
        if (e.to === "ready" || e.to === "reconnecting" || e.to === "closed") done();
      });
    });
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#restartTimer);
    this.#restartTimer = undefined;
    for (const off of this.#offs.splice(0)) off();
    await closeApart(this.client);
  }

  #cached(): boolean {
    try {
      this.client.cachedTools();
      return true;
    } catch {
      return false;
    }
  }

  #changed(reason: ToolsChangeReason): void {
    this.dirty = true;
    this.#deps.changed(this.id, reason);
  }

  #onTransition(e: TransitionEvent): void {
    if (this.#closing) return;
    if (e.to === "ready") {
      clearTimeout(this.#restartTimer);
      this.#restartTimer = undefined;
      if (this.#downSince === null) return;
      const downFor = Date.now() - this.#downSince;
      this.#downSince = null;
      this.#downReason = null;
      this.#restartAttempt = 0;
      this.telemetry.emit("hub:server_restarted", () => ({ downFor }));
      this.#changed("restarted");
      return;
    }
    if (e.to !== "reconnecting" && e.to !== "closed") return;
    // Someone closed the client itself (not the hub): that is a decision, not a failure to heal.
    const closedByUser = e.to === "closed" && e.reason === "closed: client_closed";
    if (this.#downSince === null) {
      this.#downSince = Date.now();
      const reason = e.reason ?? "unknown";
      const errorKind = kindOf(reason);
      // One reason wherever the outage shows (listing, calls, warning): server_down, with the failure.
      this.#downReason = new McpClientError("unavailable", "server_down", undefined, {
        detail: { server: this.id, failure: sanitizeText(reason, { maxLength: 200 }) },
      });
      this.#deps.warn(
        `server "${this.id}" is down (${sanitizeText(reason, { maxLength: 200 })}); its tools leave the list`,
      );
      this.telemetry.emit("hub:server_failed", () => ({ errorKind, reason, attempt: e.attempt }));
      this.#changed("failed");
    }
    if (e.to === "closed" && !closedByUser) this.#scheduleRestart();
  }

  /** The client gave up: start it again after the backoff (attempts grow until it is back). */
  #scheduleRestart(): void {
    if (!this.#restarts) {
      this.#deps.info(`server "${this.id}" gave up with onGiveUp "stop"; the hub does not restart it`);
      return;
    }
    clearTimeout(this.#restartTimer);
    const delay = this.#backoff(this.#restartAttempt++);
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = undefined;
      if (this.#closing) return;
      this.client.reconnect().catch((err) => {
        this.#deps.warn(`server "${this.id}" could not be restarted: ${String(err)}`);
      });
    }, delay);
  }
}

/**
 * Closes `client` from a fresh microtask: the `closed` error its connection keeps holds the stack
 * it was made on, and a stack keeps every frame's receiver, so one made under `Hub.close` would
 * keep a closed hub (and every server's slot) reachable for as long as the client lingers.
 */
function closeApart(client: Client): Promise<void> {
  return new Promise((resolve, reject) => queueMicrotask(() => client.close().then(resolve, reject)));
}

/** The error kind at the front of a safe message (`"transport: server_exited"`). */
function kindOf(message: string): ErrorKind {
  const head = message.split(":", 1)[0] as ErrorKind;
  return (ERROR_KINDS as readonly string[]).includes(head) ? head : "unavailable";
}
