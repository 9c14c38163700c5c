import { EVENT_NAMES, type EventName, subscribe } from "../../src/telemetry/index.js";

/** One published event: every event carries these keys, then its own allowlisted ones. */
export interface RecordedEvent {
  event: EventName;
  client: string;
  serverId: string;
  transport: string;
  era: "modern" | "legacy" | null;
  [key: string]: unknown;
}

/** The keys every event starts with. */
export const BASE_KEYS = ["event", "client", "serverId", "transport", "era"] as const;

/**
 * The keys each event may carry besides `BASE_KEYS` (without payload capture). An event with any
 * other key leaks something it should not.
 */
export const EVENT_KEYS: Partial<Record<EventName, readonly string[]>> = {
  "request:start": ["method"],
  "request:stop": ["method", "requestId", "status", "errorKind", "duration"],
  "request:exception": ["method", "requestId", "duration"],
  "request:cancel": ["method", "requestId", "reason"],
  "tool_call:start": ["toolName"],
  "tool_call:stop": [
    "toolName",
    "status",
    "errorKind",
    "isError",
    "rounds",
    "attempts",
    "decision",
    "duration",
  ],
  "tool_call:exception": ["toolName", "duration"],
  "connection:transition": ["from", "to", "reason", "attempt"],
  "connection:backoff_invalid": ["problem", "attempt", "delay"],
  "response:dropped": ["requestId"],
  "server_request:dropped": ["method"],
  notification: ["method"],
  "tool:rejected": ["toolName", "reason"],
  "tool:definition_changed": ["toolName"],
  "hub:server_failed": ["errorKind", "reason", "attempt"],
  "hub:server_restarted": ["downFor"],
  "hub:collision": ["name", "servers"],
  "cache:refresh:start": ["kind", "trigger"],
  "cache:refresh:stop": ["kind", "trigger", "status", "errorKind", "count", "pages", "rejected"],
  "policy:decision": ["toolName", "decision", "rule", "cachedGrant"],
  "hook:stop": ["phase", "hook", "duration"],
  "hook:exception": ["phase", "hook", "problem", "duration"],
  "tool_call:retry": ["toolName", "attempt", "delay", "errorKind", "isError"],
  "adapter:strict_fallback": ["api", "toolName", "reason", "detail"],
};

/** The keys `event` carries that are neither base keys nor allowlisted for its name. */
export function unexpectedKeys(event: RecordedEvent): string[] {
  const allowed = new Set<string>([...BASE_KEYS, ...(EVENT_KEYS[event.event] ?? [])]);
  return Object.keys(event).filter((k) => !allowed.has(k));
}

export interface EventRecorder {
  /** Every matching event, in the order published. */
  readonly events: RecordedEvent[];
  /** The events named `name`. */
  of(name: EventName): RecordedEvent[];
  clear(): void;
  /** Unsubscribes from every channel. Safe to call twice. */
  stop(): void;
}

export interface RecordOptions {
  /** Only events of this client (`name` option); events of other clients in the run are skipped. */
  client?: string;
  /** The events to subscribe to. Default: all of them. */
  names?: readonly EventName[];
}

/**
 * Subscribes to telemetry channels (through the public `subscribe`) and keeps what arrives:
 * `recordEvents({ client, names })`, or `recordEvents("request:start", ...)` for those names only.
 */
export function recordEvents(options?: RecordOptions): EventRecorder;
export function recordEvents(...names: EventName[]): EventRecorder;
export function recordEvents(...args: Array<RecordOptions | EventName | undefined>): EventRecorder {
  const first = args[0];
  const options: RecordOptions = typeof first === "string" ? { names: args as EventName[] } : (first ?? {});
  const events: RecordedEvent[] = [];
  const unsubscribers = (options.names ?? EVENT_NAMES).map((name) =>
    subscribe(name, (e) => {
      if (options.client === undefined || e.client === options.client) events.push(e as RecordedEvent);
    }),
  );
  return {
    events,
    of: (name) => events.filter((e) => e.event === name),
    clear: () => {
      events.length = 0;
    },
    stop: () => {
      for (const u of unsubscribers.splice(0)) u();
    },
  };
}

/**
 * Runs `fn` a turn of the loop after the first `request:start` of `method` (of client `client`,
 * if given): "once that request is on its way", instead of a guessed delay. Returns a canceller.
 */
export function afterRequestStarts(method: string, fn: () => void, client?: string): () => void {
  const stop = subscribe("request:start", (e) => {
    if (e.method !== method || (client !== undefined && e.client !== client)) return;
    stop();
    setImmediate(fn);
  });
  return stop;
}
