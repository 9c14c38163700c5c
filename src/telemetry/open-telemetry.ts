/**
 * The optional OpenTelemetry bridge: spans (and, opted in, a duration histogram) named and
 * attributed as OpenTelemetry's semantic conventions for MCP say. `@opentelemetry/api` is an
 * optional peer dependency, loaded (synchronously, so the first request is traced) only when a
 * client asks for it; the types below are erased at build time.
 *
 * What is never put in an attribute or event: arguments and results (unless payload capture is
 * on, and then only what `redact` returned), `_meta`, credentials, server error text.
 */
import { createRequire } from "node:module";
import type * as OtelApi from "@opentelemetry/api";
import type { Attributes, Context, Histogram, MeterProvider, Span, TracerProvider } from "@opentelemetry/api";
import { dependencyMissing, McpClientError } from "../shared/errors.js";
import { isValidTraceparent } from "../shared/meta.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { OpenTelemetryOptions, PeerInfo } from "./open-telemetry-options.js";

const INSTRUMENTATION = "conduit-mcp";
/** Bucket bounds (seconds) the conventions advise for `mcp.client.operation.duration`. */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

let api: typeof OtelApi | undefined;

/**
 * Loads `@opentelemetry/api` on first use (a client made with `telemetry.openTelemetry`); when it
 * is not installed, `unavailable` / `dependency_missing` names it and its install command.
 */
function loadApi(): typeof OtelApi {
  if (api) return api;
  try {
    api = createRequire(import.meta.url)("@opentelemetry/api") as typeof OtelApi;
  } catch (err) {
    throw dependencyMissing("@opentelemetry/api", err);
  }
  return api;
}

function isTracerProvider(v: unknown): v is TracerProvider {
  return typeof v === "object" && v !== null && typeof (v as TracerProvider).getTracer === "function";
}

/** Checks the option; throws a `TypeError` naming the bad key. Loads the API when it is on. */
export function resolveOpenTelemetry(v: unknown): OpenTelemetryOptions | null {
  if (v === undefined || v === false) return null;
  if (v === true || isTracerProvider(v)) {
    loadApi();
    return v === true ? {} : { tracerProvider: v as OpenTelemetryOptions["tracerProvider"] };
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new TypeError(
      'conduit-mcp: option "telemetry.openTelemetry" must be true, a TracerProvider or options',
    );
  }
  const o = v as Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!["tracerProvider", "meterProvider", "metrics"].includes(key)) {
      throw new TypeError(`conduit-mcp: unknown option "telemetry.openTelemetry.${key}"`);
    }
  }
  if (o.tracerProvider !== undefined && !isTracerProvider(o.tracerProvider)) {
    throw new TypeError(
      'conduit-mcp: option "telemetry.openTelemetry.tracerProvider" must be a TracerProvider',
    );
  }
  if (
    o.meterProvider !== undefined &&
    (typeof o.meterProvider !== "object" ||
      o.meterProvider === null ||
      typeof (o.meterProvider as MeterProvider).getMeter !== "function")
  ) {
    throw new TypeError(
      'conduit-mcp: option "telemetry.openTelemetry.meterProvider" must be a MeterProvider',
    );
  }
  if (o.metrics !== undefined && typeof o.metrics !== "boolean") {
    throw new TypeError('conduit-mcp: option "telemetry.openTelemetry.metrics" must be a boolean');
  }
  loadApi();
  return o as OpenTelemetryOptions;
}

/** Runs `fn` in the context its maker captured (see {@link captureContext}). */
export type InContext = <T>(fn: () => T) => T;

/** What `captureContext` hands back without the API: callers on a hot path may skip the call. */
export const asItIs: InContext = (fn) => fn();

/**
 * The caller's active OpenTelemetry context, taken where a public call starts (synchronously,
 * before any await), and a function that runs later work in it. Work that starts after an
 * async hop (a hub resolving a name, a governor waiting on its hooks) makes its spans in the
 * caller's context even under a context manager that follows only synchronous calls. Without
 * the API loaded (no client asked for OpenTelemetry), `fn` runs as it is.
 */
export function captureContext(): InContext {
  const a = api;
  if (!a) return asItIs;
  const captured = a.context.active();
  return (fn) => a.context.with(captured, fn);
}

/** What a request's target is, for the span name and attributes. */
export interface RequestTarget {
  toolName?: string;
  promptName?: string;
  resourceUri?: string;
}

/** A server-supplied or caller-supplied name, safe and bounded for an attribute. */
function clean(s: string): string {
  return sanitizeText(s, { maxLength: 128 });
}

/** A resource URI without credentials, query or fragment (they may carry tokens). */
function cleanUri(uri: string): string {
  try {
    const u = new URL(uri);
    u.username = "";
    u.password = "";
    u.search = "";
    u.hash = "";
    return sanitizeText(u.href, { maxLength: 512 });
  } catch {
    return sanitizeText(uri.split(/[?#]/, 1)[0] ?? "", { maxLength: 512 });
  }
}

/** `network.transport` as the conventions spell it: stdio is a pipe, HTTP runs on TCP. */
function networkAttributes(peer: PeerInfo): Attributes {
  const a: Attributes = {};
  if (peer.transportKind === "stdio") a["network.transport"] = "pipe";
  if (peer.transportKind === "http") {
    a["network.transport"] = "tcp";
    a["network.protocol.name"] = "http";
  }
  if (peer.serverAddress !== undefined) a["server.address"] = peer.serverAddress;
  if (peer.serverPort !== undefined) a["server.port"] = peer.serverPort;
  return a;
}

/** The kind of an error as `error.type`; a JSON-RPC error also gives `rpc.response.status_code`. */
function errorAttributes(err: unknown): Attributes {
  if (err instanceof McpClientError) {
    const code = err.detail !== undefined && "jsonrpc" in err.detail ? err.detail.jsonrpc : undefined;
    return {
      "error.type": err.kind,
      ...(typeof code === "number" ? { "rpc.response.status_code": String(code) } : {}),
    };
  }
  return { "error.type": err instanceof TypeError ? "TypeError" : "_OTHER" };
}

/** One client span per request sent. */
export class RequestSpan {
  #sends = 0;

  constructor(
    readonly span: Span,
    readonly startedAt: number,
    readonly attrs: Attributes,
    readonly owner: OpenTelemetryBridge,
  ) {}

  /**
   * The request is going out (again, for a resend) with this id in this session; `method` when
   * it is known only now (ping is `server/discover` in modern).
   */
  sent(id: number, protocolVersion: string | undefined, method?: string): void {
    if (this.#sends++ > 0) this.span.addEvent("retry", { "jsonrpc.request.id": String(id) });
    if (method !== undefined && method !== this.attrs["mcp.method.name"]) {
      const name = clean(method);
      this.span.updateName(name);
      this.span.setAttribute("mcp.method.name", name);
      this.attrs["mcp.method.name"] = name;
    }
    this.span.setAttribute("jsonrpc.request.id", String(id));
    if (protocolVersion) {
      this.span.setAttribute("mcp.protocol.version", protocolVersion);
      this.attrs["mcp.protocol.version"] = protocolVersion;
    }
  }

  /** The version the request speaks, when it is known without an id (the handshake's). */
  protocolVersion(version: string): void {
    this.span.setAttribute("mcp.protocol.version", version);
    this.attrs["mcp.protocol.version"] = version;
  }

  /** The span's context as a W3C `traceparent`, or undefined when it is not valid. */
  traceparent(): string | undefined {
    const sc = this.span.spanContext();
    const tp = `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 0xff).toString(16).padStart(2, "0")}`;
    return isValidTraceparent(tp) ? tp : undefined;
  }

  end(outcome: { error?: unknown; result?: Record<string, unknown>; cancelled?: boolean }): void {
    const o = this.owner;
    o.open.delete(this);
    const a = o.api;
    let metricAttrs: Attributes = this.attrs;
    if (outcome.cancelled) {
      this.span.addEvent("cancelled");
    } else if (outcome.error !== undefined) {
      const e = errorAttributes(outcome.error);
      this.span.setAttributes(e);
      this.span.setStatus({ code: a.SpanStatusCode.ERROR, message: String(e["error.type"]) });
      metricAttrs = { ...this.attrs, "error.type": e["error.type"] };
    } else if (outcome.result?.resultType === "input_required") {
      this.span.addEvent("input_required");
    } else if (outcome.result?.isError === true) {
      this.span.setAttribute("error.type", "tool_error");
      this.span.setStatus({ code: a.SpanStatusCode.ERROR, message: "tool_error" });
      metricAttrs = { ...this.attrs, "error.type": "tool_error" };
    }
    this.span.end();
    o.duration?.record((performance.now() - this.startedAt) / 1000, metricAttrs);
  }
}

/** The span of one `callTool`, parent of its requests. */
export class ToolCallSpan {
  #rounds = 0;

  constructor(
    readonly span: Span,
    readonly context: Context,
    readonly owner: OpenTelemetryBridge,
  ) {}

  /** One more `input_required` round was answered. */
  inputRequired(): void {
    this.#rounds += 1;
    this.span.addEvent("input_required", { "mcp.round": this.#rounds });
  }

  payload(key: "arguments" | "result", value: unknown): void {
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {
      json = '"redaction_failed"';
    }
    if (json !== undefined) this.span.setAttribute(`gen_ai.tool.call.${key}`, json);
  }

  end(outcome: { error?: unknown; isError?: boolean | null; cancelled?: boolean }): void {
    const a = this.owner.api;
    if (outcome.cancelled) this.span.addEvent("cancelled");
    else if (outcome.error !== undefined) {
      const e = errorAttributes(outcome.error);
      this.span.setAttributes(e);
      this.span.setStatus({ code: a.SpanStatusCode.ERROR, message: String(e["error.type"]) });
    } else if (outcome.isError === true) {
      this.span.setAttribute("error.type", "tool_error");
      this.span.setStatus({ code: a.SpanStatusCode.ERROR, message: "tool_error" });
    }
    this.span.end();
  }
}

/** One client's spans and histogram. */
export class OpenTelemetryBridge {
  readonly api: typeof OtelApi;
  readonly #tracer: OtelApi.Tracer;
  readonly duration: Histogram | undefined;
  readonly #peer: Attributes;
  /** Request spans not yet ended: they hear about reconnects. */
  readonly open = new Set<RequestSpan>();

  constructor(options: OpenTelemetryOptions, peer: PeerInfo, version: string) {
    const a = loadApi();
    this.api = a;
    // The providers were checked structurally; the API's own are what fits.
    const tracerProvider =
      (options.tracerProvider as TracerProvider | undefined) ?? a.trace.getTracerProvider();
    this.#tracer = tracerProvider.getTracer(INSTRUMENTATION, version);
    const meterProvider =
      (options.meterProvider as MeterProvider | undefined) ??
      (options.metrics ? a.metrics.getMeterProvider() : undefined);
    this.duration = meterProvider
      ?.getMeter(INSTRUMENTATION, version)
      .createHistogram("mcp.client.operation.duration", {
        description: "The duration of an MCP request as observed by the client, from sent to answered",
        unit: "s",
        advice: { explicitBucketBoundaries: DURATION_BUCKETS },
      });
    this.#peer = networkAttributes(peer);
  }

  /**
   * Starts the span of one request: a child of `parent` (a tool call's span) or of the caller's
   * active context.
   */
  startRequest(method: string, target: RequestTarget, parent: Context | undefined): RequestSpan {
    const a = this.api;
    const name = clean(method);
    const attrs: Attributes = { "mcp.method.name": name, "jsonrpc.protocol.version": "2.0", ...this.#peer };
    const spanAttrs: Attributes = { ...attrs };
    let spanName = name;
    if (target.toolName !== undefined) {
      spanAttrs["gen_ai.tool.name"] = clean(target.toolName);
      spanAttrs["gen_ai.operation.name"] = "execute_tool";
      spanName = `${name} ${spanAttrs["gen_ai.tool.name"]}`;
    } else if (target.promptName !== undefined) {
      spanAttrs["gen_ai.prompt.name"] = clean(target.promptName);
      spanName = `${name} ${spanAttrs["gen_ai.prompt.name"]}`;
    }
    if (target.resourceUri !== undefined) spanAttrs["mcp.resource.uri"] = cleanUri(target.resourceUri);
    const span = this.#tracer.startSpan(
      spanName,
      { kind: a.SpanKind.CLIENT, attributes: spanAttrs },
      parent ?? a.context.active(),
    );
    const rs = new RequestSpan(span, performance.now(), attrs, this);
    this.open.add(rs);
    return rs;
  }

  /**
   * Starts the span of a handshake request (the probe, `initialize`, a re-discover): a root span,
   * since a connection attempt belongs to no caller's operation.
   */
  startHandshakeRequest(method: string): RequestSpan {
    return this.startRequest(method, {}, this.api.ROOT_CONTEXT);
  }

  /** Starts the span of one `callTool`, a child of the caller's active context. */
  startToolCall(toolName: string): ToolCallSpan {
    const a = this.api;
    const name = clean(toolName);
    const parent = a.context.active();
    const span = this.#tracer.startSpan(
      `execute_tool ${name}`,
      {
        kind: a.SpanKind.INTERNAL,
        attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, ...this.#peer },
      },
      parent,
    );
    return new ToolCallSpan(span, a.trace.setSpan(parent, span), this);
  }

  /** The connection is reconnecting: every request still waiting says so. */
  reconnecting(attempt: number): void {
    for (const s of this.open) s.span.addEvent("reconnect", { "mcp.reconnect.attempt": attempt });
  }
}
