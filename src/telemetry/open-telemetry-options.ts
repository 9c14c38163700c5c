/**
 * The public shape of `telemetry.openTelemetry`. Structural types, so that the library's type
 * declarations do not need `@opentelemetry/api` (an optional peer dependency) to be installed:
 * the API's own `TracerProvider` and `MeterProvider` fit them.
 */

/** What the bridge needs of a `TracerProvider`. */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): unknown;
}

/** What the bridge needs of a `MeterProvider`. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): unknown;
}

export interface OpenTelemetryOptions {
  /** Where spans go. Default: the global provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProviderLike;
  /** Where the duration histogram goes; giving one turns metrics on. */
  meterProvider?: MeterProviderLike;
  /** Record `mcp.client.operation.duration` with the global meter provider. Default false. */
  metrics?: boolean;
}

/** Where the client's spans say they talk to. */
export interface PeerInfo {
  transportKind: string;
  serverAddress?: string;
  serverPort?: number;
}
