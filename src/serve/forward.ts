/**
 * What upstream servers say on their own, passed down: list changes (coalesced: a burst of
 * `list_changed` from several servers is one notification per list) and log entries (sanitised,
 * marked with their server, at most `LOG_RATE` a second).
 */
import { sanitizeText, sanitizeValue } from "../shared/sanitize.js";
import type { SdkHttpHandler, SdkServer } from "./sdk.js";
import type { ListKind, Upstream } from "./upstream.js";

const COALESCE_MS = 50;
const LOG_RATE = 20;
const ORDER = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const LEVELS = new Set(ORDER);

export interface LogEntry {
  level: string;
  logger: string;
  data: unknown;
}

/** A 2026-07-28 call that asked for log entries (`io.modelcontextprotocol/logLevel`) on its response stream. */
export interface ScopedLog {
  level: string;
  send: (entry: LogEntry) => void;
}

export class Forwarder {
  /** Instances with a standing channel to their client: legacy sessions and stdio connections. */
  readonly live = new Set<SdkServer>();
  modern: SdkHttpHandler | null = null;
  readonly #pending = new Set<ListKind>();
  #timer: NodeJS.Timeout | null = null;
  readonly #stops: Array<() => void> = [];
  readonly #subscribed = new Set<string>();
  #logWindow = 0;
  #logCount = 0;
  /** Calls in flight per upstream server, and those of them that asked for log entries. */
  readonly #inFlight = new Map<string, number>();
  readonly #scoped = new Map<string, Set<ScopedLog>>();
  /** The lowest level any host asked for, set on every upstream; null until one asks. */
  #upstreamLevel: string | null = null;
  /** The level each standing host (2025 session, stdio connection) set with `logging/setLevel`. */
  readonly #hostLevels = new WeakMap<SdkServer, string>();

  constructor(readonly upstream: Upstream) {
    for (const [id, client] of upstream.clients()) this.#watch(id, client);
    this.#stops.push(
      upstream.onServersChanged((serverId, reason) => {
        if (reason === "added") {
          const found = upstream.clients().find(([id]) => id === serverId);
          if (found) {
            this.#watch(found[0], found[1]);
            if (this.#upstreamLevel) found[1].setLogLevel(this.#upstreamLevel as never).catch(() => {});
          }
        }
        // A server added, removed, failed or back: its tools come or go, and so may its prompts
        // and resources.
        this.changed("tools");
        if (reason !== "list_changed") {
          this.changed("prompts");
          this.changed("resources");
        }
      }),
    );
  }

  #watch(serverId: string, client: ReturnType<Upstream["clients"]>[number][1]): void {
    if (this.#subscribed.has(serverId)) return;
    this.#subscribed.add(serverId);
    this.#stops.push(
      client.onNotification((n) => {
        if (n.method === "notifications/tools/list_changed") this.changed("tools");
        else if (n.method === "notifications/prompts/list_changed") this.changed("prompts");
        else if (n.method === "notifications/resources/list_changed") this.changed("resources");
        else if (n.method === "notifications/message") this.#log(serverId, n.params ?? {});
      }),
    );
  }

  changed(kind: ListKind): void {
    this.#pending.add(kind);
    if (this.#timer) return;
    this.#timer = setTimeout(() => this.#flush(), COALESCE_MS);
    this.#timer.unref();
  }

  #flush(): void {
    this.#timer = null;
    const kinds = [...this.#pending];
    this.#pending.clear();
    for (const kind of kinds) {
      for (const s of this.live) {
        const sent =
          kind === "tools"
            ? s.sendToolListChanged()
            : kind === "prompts"
              ? s.sendPromptListChanged()
              : s.sendResourceListChanged();
        Promise.resolve(sent).catch(() => {});
      }
      const m = this.modern?.notify;
      if (m) {
        if (kind === "tools") m.toolsChanged();
        else if (kind === "prompts") m.promptsChanged();
        else m.resourcesChanged();
      }
    }
  }

  /**
   * A host asked for entries at `level`: every upstream is asked for that much, at least (a
   * 2026-07-28 upstream sends none to a request that names no level; a 2025 upstream gets
   * `logging/setLevel`). Never raised again: a quieter host is served by filtering here.
   */
  want(level: string, serverId?: string): Promise<void> | undefined {
    if (!LEVELS.has(level)) return undefined;
    const now = this.#upstreamLevel;
    if (now !== null && ORDER.indexOf(now) <= ORDER.indexOf(level)) return undefined;
    this.#upstreamLevel = level;
    let own: Promise<void> | undefined;
    for (const [id, c] of this.upstream.clients()) {
      const set = c.setLogLevel(level as never).catch(() => {});
      if (id === serverId) own = set;
    }
    // The caller waits for the server it calls (it waits for that server's readiness anyway).
    return own;
  }

  /** A standing host's `logging/setLevel`: its entries are filtered at that level. */
  hostLevel(host: SdkServer, level: string): void {
    if (!LEVELS.has(level)) return;
    this.#hostLevels.set(host, level);
    this.want(level);
  }

  #log(serverId: string, params: Record<string, unknown>): void {
    const now = Math.floor(Date.now() / 1000);
    if (now !== this.#logWindow) {
      this.#logWindow = now;
      this.#logCount = 0;
    }
    if (++this.#logCount > LOG_RATE) return;
    const level = typeof params.level === "string" && LEVELS.has(params.level) ? params.level : "info";
    const entry: LogEntry = {
      level,
      logger: sanitizeText(serverId, { maxLength: 100 }),
      data: sanitizeValue(params.data, { maxString: 2000, maxDepth: 8, maxEntries: 100 }),
    };
    const rank = ORDER.indexOf(level);
    for (const s of this.live) {
      const min = this.#hostLevels.get(s);
      if (min !== undefined && rank < ORDER.indexOf(min)) continue;
      Promise.resolve(s.sendLoggingMessage(entry)).catch(() => {});
    }
    if (this.#inFlight.get(serverId) !== 1) return;
    for (const c of this.#scoped.get(serverId) ?? []) {
      if (ORDER.indexOf(level) >= ORDER.indexOf(c.level)) c.send(entry);
    }
  }

  /**
   * A downstream call to `serverId` in flight until the returned function runs. In 2026-07-28
   * log entries belong to one request's stream, and an upstream entry names no call: it goes to a
   * call that asked only while that call is the only one in flight to its server (else to none,
   * so no caller sees another's entries).
   */
  track(serverId: string, scoped: ScopedLog | null): () => void {
    this.#inFlight.set(serverId, (this.#inFlight.get(serverId) ?? 0) + 1);
    if (scoped) {
      const set = this.#scoped.get(serverId) ?? new Set<ScopedLog>();
      this.#scoped.set(serverId, set);
      set.add(scoped);
    }
    return () => {
      const n = (this.#inFlight.get(serverId) ?? 1) - 1;
      if (n === 0) this.#inFlight.delete(serverId);
      else this.#inFlight.set(serverId, n);
      const set = this.#scoped.get(serverId);
      if (scoped && set) {
        set.delete(scoped);
        if (set.size === 0) this.#scoped.delete(serverId);
      }
    };
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    for (const stop of this.#stops) stop();
    this.#stops.length = 0;
    this.live.clear();
  }
}
