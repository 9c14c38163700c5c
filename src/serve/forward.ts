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
const LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

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

  constructor(readonly upstream: Upstream) {
    for (const [id, client] of upstream.clients()) this.#watch(id, client);
    this.#stops.push(
      upstream.onServersChanged((serverId, reason) => {
        if (reason === "added") {
          const found = upstream.clients().find(([id]) => id === serverId);
          if (found) this.#watch(found[0], found[1]);
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

  #log(serverId: string, params: Record<string, unknown>): void {
    const now = Math.floor(Date.now() / 1000);
    if (now !== this.#logWindow) {
      this.#logWindow = now;
      this.#logCount = 0;
    }
    if (++this.#logCount > LOG_RATE) return;
    const level = typeof params.level === "string" && LEVELS.has(params.level) ? params.level : "info";
    const entry = {
      level,
      logger: sanitizeText(serverId, { maxLength: 100 }),
      data: sanitizeValue(params.data, { maxString: 2000, maxDepth: 8, maxEntries: 100 }),
    };
    for (const s of this.live) Promise.resolve(s.sendLoggingMessage(entry)).catch(() => {});
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    for (const stop of this.#stops) stop();
    this.#stops.length = 0;
    this.live.clear();
  }
}
