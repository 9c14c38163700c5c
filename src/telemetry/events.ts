import diagnostics from "node:diagnostics_channel";

/**
 * Telemetry goes out through `node:diagnostics_channel`, one channel per event, named
 * `conduit-mcp:<event>`. Nothing is built when a channel has no subscribers.
 *
 * Every event's metadata starts with `client`, `serverId`, `transport` and `era`, and carries only
 * the allowlisted keys documented per event: never `_meta`, tokens, raw error data, arguments or
 * results (the last two only with `telemetry.capturePayloads`).
 */
export const EVENT_NAMES = [
  "request:start",
  "request:stop",
  "request:exception",
  "tool_call:start",
  "tool_call:stop",
  "tool_call:exception",
  "connection:transition",
  "connection:backoff_invalid",
  "request:cancel",
  "response:dropped",
  "server_request:dropped",
  "notification",
  "log:dropped",
  "cache:refresh:start",
  "cache:refresh:stop",
  "tool:rejected",
  "tool:definition_changed",
  "hub:server_failed",
  "hub:server_restarted",
  "hub:collision",
  // Governance (docs/governance.md). policy:decision: toolName, decision, rule, cachedGrant.
  // hook:stop: phase, hook, duration. hook:exception: phase, hook, problem, duration.
  // tool_call:retry: toolName, attempt, delay, errorKind, isError. Never arguments.
  "policy:decision",
  "hook:stop",
  "hook:exception",
  "tool_call:retry",
  "adapter:strict_fallback",
] as const;

export type EventName = (typeof EVENT_NAMES)[number];

export const CHANNEL_PREFIX = "conduit-mcp:";

const channels = new Map<EventName, diagnostics.Channel>(
  EVENT_NAMES.map((name) => [name, diagnostics.channel(CHANNEL_PREFIX + name)]),
);

export function channelFor(name: EventName): diagnostics.Channel {
  return channels.get(name)!;
}

/** The metadata every event of one client starts with. */
export interface BaseMeta {
  client: string;
  serverId: string;
  transport: string;
  era: "modern" | "legacy" | null;
}

/** Subscribes `listener` to one event; returns the function that unsubscribes it. */
export function subscribe(name: EventName, listener: (event: Record<string, unknown>) => void): () => void {
  if (!EVENT_NAMES.includes(name)) throw new TypeError(`conduit-mcp: unknown event "${String(name)}"`);
  const fn = listener as (message: unknown, name: string | symbol) => void;
  diagnostics.subscribe(CHANNEL_PREFIX + name, fn);
  return () => {
    diagnostics.unsubscribe(CHANNEL_PREFIX + name, fn);
  };
}

/**
 * Publishes events for one client. `emit` takes a thunk so that nothing is allocated unless
 * someone listens.
 */
export class Telemetry {
  /** A function, or an object with the method (a client's parts link: no closure per client). */
  readonly #base: (() => BaseMeta) | { telemetryBase(): BaseMeta };

  constructor(base: (() => BaseMeta) | { telemetryBase(): BaseMeta }) {
    this.#base = base;
  }

  active(name: EventName): boolean {
    return channels.get(name)!.hasSubscribers;
  }

  emit(name: EventName, fields?: () => Record<string, unknown>): void {
    const ch = channels.get(name)!;
    if (!ch.hasSubscribers) return;
    const b = this.#base;
    ch.publish({
      event: name,
      ...(typeof b === "function" ? b() : b.telemetryBase()),
      ...(fields ? fields() : {}),
    });
  }
}
