import { isObject, type JsonObject } from "../../shared/guards.js";
import { sanitizeText, sanitizeValue } from "../../shared/sanitize.js";
import type { Telemetry } from "../../telemetry/events.js";
import { TokenBucket } from "../../util/token-bucket.js";
import { LOG_LEVELS, type LogLevel } from "../types.js";
import { BufferedIterator } from "./buffered-iterator.js";

/** A server notification as subscribers receive it. */
export interface ServerNotification {
  method: string;
  params: JsonObject | undefined;
}

export type ListKind = "tools" | "resources" | "prompts";

const LIST_CHANGED: Record<string, ListKind> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts",
};

/** Bursts of one list_changed kind: the first at once, the rest within this window as one. */
export const COALESCE_MS = 250;
/** How many entries an iterator holds for a slow consumer. */
export const ITERATOR_BUFFER = 1000;

export interface NotificationFanOutOptions {
  logRateLimit: { perSecond: number; burst: number };
  telemetry: Telemetry;
  warn: (text: string) => void;
  /** A delivered list_changed: the matching cached list is stale now. */
  listChanged: (kind: ListKind) => void;
  /** Every delivered notification also goes here (the handler's callbacks). */
  forward?: (n: ServerNotification) => void;
  /** Subscribers came or went (the modern listen filter depends on it). */
  consumersChanged?: () => void;
}

/**
 * Where server notifications meet their subscribers. It coalesces list_changed bursts,
 * rate-limits log entries and passes every string through the sanitiser before anyone sees it.
 */
export class NotificationFanOut {
  readonly #o: NotificationFanOutOptions;
  // Made on first use: a client nobody subscribes to, whose server sends no log entries or list
  // changes, keeps none of them (~0.6 KB per client, issue 12).
  #listeners: Set<(n: ServerNotification) => void> | undefined;
  #iterators: Set<BufferedIterator<ServerNotification>> | undefined;
  #logBucket: TokenBucket | undefined;
  #windows: Map<ListKind, { timer: NodeJS.Timeout; trailing: ServerNotification | undefined }> | undefined;

  constructor(options: NotificationFanOutOptions) {
    this.#o = options;
  }

  /** True while anyone listens (listeners or iterators). */
  get hasSubscribers(): boolean {
    return (this.#listeners?.size ?? 0) > 0 || (this.#iterators?.size ?? 0) > 0;
  }

  subscribe(listener: (n: ServerNotification) => void): () => void {
    this.#listeners ??= new Set();
    const listeners = this.#listeners;
    listeners.add(listener);
    this.#o.consumersChanged?.();
    return () => {
      if (listeners.delete(listener)) this.#o.consumersChanged?.();
    };
  }

  iterate(signal?: AbortSignal, capacity = ITERATOR_BUFFER): BufferedIterator<ServerNotification> {
    const it: BufferedIterator<ServerNotification> = new BufferedIterator(capacity, () => {
      this.#iterators?.delete(it);
      signal?.removeEventListener("abort", onAbort);
      this.#o.consumersChanged?.();
    });
    const onAbort = () => it.end();
    if (signal?.aborted) {
      it.end();
      return it;
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#iterators ??= new Set();
    this.#iterators.add(it);
    this.#o.consumersChanged?.();
    return it;
  }

  /** One notification from the server (not progress, not cancellation). */
  receive(method: string, params: JsonObject | undefined): void {
    this.#o.telemetry.emit("notification", () => ({ method: sanitizeText(method, { maxLength: 128 }) }));
    if (method === "notifications/message") return this.#log(params);
    const kind = LIST_CHANGED[method];
    const n: ServerNotification = {
      method: sanitizeText(method, { maxLength: 128 }),
      params: params === undefined ? undefined : (sanitizeValue(params) as JsonObject),
    };
    if (kind) return this.#coalesce(kind, n);
    this.#deliver(n);
  }

  /** Delivers something the client itself has to say (a tool's definition changed). */
  announce(n: ServerNotification): void {
    this.#deliver(n);
  }

  /** Ends every iterator and drops every pending trailing notification. */
  close(): void {
    if (this.#windows) for (const w of this.#windows.values()) clearTimeout(w.timer);
    this.#windows?.clear();
    if (this.#iterators) for (const it of [...this.#iterators]) it.end();
  }

  #coalesce(kind: ListKind, n: ServerNotification): void {
    const window = this.#windows?.get(kind);
    if (window) {
      window.trailing = n;
      return;
    }
    this.#deliverListChanged(kind, n);
    this.#openWindow(kind);
  }

  #openWindow(kind: ListKind): void {
    const timer = setTimeout(() => {
      const w = this.#windows?.get(kind);
      this.#windows?.delete(kind);
      if (w?.trailing) {
        this.#deliverListChanged(kind, w.trailing);
        this.#openWindow(kind);
      }
    }, COALESCE_MS);
    this.#windows ??= new Map();
    this.#windows.set(kind, { timer, trailing: undefined });
  }

  #deliverListChanged(kind: ListKind, n: ServerNotification): void {
    try {
      this.#o.listChanged(kind);
    } catch (err) {
      this.#o.warn(`refreshing the ${kind} list failed to start: ${String(err)}`);
    }
    this.#deliver(n);
  }

  #log(params: JsonObject | undefined): void {
    const rate = this.#o.logRateLimit;
    this.#logBucket ??= new TokenBucket(rate.perSecond, rate.burst);
    if (!this.#logBucket.take()) {
      this.#o.telemetry.emit("log:dropped");
      return;
    }
    const p = isObject(params) ? params : {};
    const level: LogLevel = LOG_LEVELS.includes(p.level as LogLevel) ? (p.level as LogLevel) : "info";
    const entry: JsonObject = { level, data: sanitizeValue(p.data) ?? null };
    if (typeof p.logger === "string") entry.logger = sanitizeText(p.logger, { maxLength: 256 });
    this.#deliver({ method: "notifications/message", params: entry });
  }

  #deliver(n: ServerNotification): void {
    if (this.#listeners)
      for (const listener of this.#listeners) {
        try {
          listener(n);
        } catch (err) {
          this.#o.warn(`a notification listener threw: ${String(err)}`);
        }
      }
    if (this.#iterators) for (const it of this.#iterators) it.push(n);
    this.#o.forward?.(n);
  }
}
