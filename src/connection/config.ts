/**
 * What a connection is made with (client/parts.ts builds it from the client's options): where
 * each attempt's transport comes from, the negotiator, the hooks up to the client, the limits,
 * and the policies for reconnecting and health checks.
 */

import type { Backoff } from "../shared/backoff.js";
import type { Telemetry } from "../telemetry/events.js";
import type { Transport } from "../transport/transport.js";
import type { HealthCheck } from "./health.js";
import type { ConnectionHooks, NegotiatedSession, Negotiator } from "./types.js";

/** The reconnect policy's fields are the config's own (no object of their own per connection). */
export interface ConnectionConfig<S extends NegotiatedSession> extends ReconnectPolicy {
  /** Returns the transport for the next attempt (plain data makes a new one; an object is reused). */
  transport: () => Transport;
  negotiator: Negotiator<S>;
  hooks: ConnectionHooks;
  telemetry: Telemetry;
  maxInFlight: number;
  maxQueued: number;
  healthCheck: HealthCheck<S> | null;
}

export interface ReconnectPolicy {
  /** Milliseconds to wait before reconnect attempt `attempt` (from 0); already guarded. */
  backoff: Backoff;
  /** Consecutive reconnect attempts before giving up (Infinity: never). */
  maxReconnects: number;
  /** Milliseconds ready before the attempt count resets. */
  stableAfter: number;
  /** `"stay"`: closed, `reconnect()` revives it. `"stop"`: closed for good. */
  onGiveUp: "stay" | "stop";
}
