/**
 * The `conduit-mcp/telemetry` entry: what an application wiring observability needs beyond
 * `subscribe` (docs/telemetry.md): the event names, the channel prefix for subscribing through
 * `node:diagnostics_channel` directly, and the shapes the OpenTelemetry bridge accepts.
 * `subscribe` is here too (the same function as the root's), so one import covers the wiring.
 */
export { CHANNEL_PREFIX, EVENT_NAMES, type EventName, subscribe } from "./events.js";
export type {
  MeterProviderLike,
  OpenTelemetryOptions,
  TracerProviderLike,
} from "./open-telemetry-options.js";
