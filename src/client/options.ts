import { type Implementation, isImplementation, isObject } from "../shared/guards.js";
import { OptionError } from "../shared/option-error.js";
import type { ToolCallInterceptor } from "../shared/tool-call.js";
import { PROTOCOL_CHOICES, type ProtocolChoice } from "../shared/versions.js";
import type { RateLimit, Stores } from "../stores/index.js";
import { resolveOpenTelemetry } from "../telemetry/open-telemetry.js";
import type { OpenTelemetryOptions, PeerInfo } from "../telemetry/open-telemetry-options.js";
import { planTransport, type TransportChoice } from "../transport/factory.js";
import type { Transport } from "../transport/transport.js";
import {
  checkKeys,
  checkObject,
  fail,
  isPlainObject,
  optBoolean,
  optFunction,
  optInt,
  optOneOf,
  optString,
} from "../util/option-check.js";
import type { CredentialIdentity } from "./cache/list-cache.js";
import {
  checkAssigns,
  INPUT_OPTION_KEYS,
  type InputOptions,
  type ResolvedInputOptions,
  resolveInputOptions,
} from "./input/options.js";
import { type ListLimits, resolveListLimits } from "./pagination.js";
import { resolveRateLimit, resolveStores, storeKeyOf } from "./stores-option.js";
import type { CallToolOptions, Logger, RequestOptions } from "./types.js";
import { VERSION } from "./version.js";

/** Payload capture for the `tool_call` span; off by default. */
export interface CapturePayloads {
  /** Called with the arguments (on start) and the result (on stop); returns what is emitted. */
  redact: (payload: unknown) => unknown;
  /** The largest JSON, in bytes, emitted as is; a bigger one becomes `{ truncated: bytes }`. Default 4 096. */
  maxBytes?: number;
}

export interface TelemetryOptions {
  capturePayloads?: false | CapturePayloads;
  /**
   * Spans (and opt-in metrics) through `@opentelemetry/api`, an optional peer dependency loaded
   * only when this is set: `true` (the global providers), a `TracerProvider`, or options.
   * See docs/telemetry.md.
   */
  openTelemetry?: boolean | OpenTelemetryOptions["tracerProvider"] | OpenTelemetryOptions;
}

/** The input options (`handler`, `assigns`, `handlerTimeout`, ...) are documented in docs/input.md. */
export interface ClientOptions extends InputOptions {
  /** Any string naming this client; it appears in events (and `ctx.client` of handler callbacks). Required. */
  name: string;
  /** The operator-assigned id stamped on every Tool, Resource and Prompt. Default: `name`. */
  serverId?: string;
  /** Plain data (`{ type: "stdio", ... }`, `{ type: "http", url }`) or an object implementing `Transport`. */
  transport: TransportChoice;
  /** `"auto"` (default), `"modern"`, `"legacy"`, or a version to pin. */
  protocol?: ProtocolChoice;
  /** Bounds the `server/discover` probe. Default 3 000 ms (5 000 over HTTP). */
  probeTimeout?: number;
  /** `"legacy"` skips the probe once and starts with `initialize` (an era you cached). */
  prior?: "legacy" | "modern";
  /** Default timeout of every request, the handshake's included. Default 60 000 ms. */
  requestTimeout?: number;
  /** Default ceiling for deadlines extended by progress. Default 300 000 ms. */
  maxTotalTimeout?: number;
  /** Requests sent and unanswered at once. Default 64. */
  maxInFlight?: number;
  /** Requests waiting for the connection to be ready. Default 128. */
  maxQueued?: number;
  /** Let `instructionsForLlm()` return the server's instructions (sanitised). Default false. */
  includeInstructions?: boolean;
  /** How this client names itself to servers. Default `{ name: "conduit-mcp", version }`. */
  clientInfo?: Implementation;
  /** Where the client's own warnings go. Default: warnings and errors to stderr. */
  logger?: Logger;
  telemetry?: TelemetryOptions;
  /** `(attempt) => ms` before reconnect attempt `attempt` (from 0). Default: full jitter. */
  backoff?: (attempt: number) => number;
  /**
   * The longest delay `backoff` may ask for, in milliseconds; a longer one is clamped to it, with
   * a warning. Default 300 000 (5 minutes).
   */
  maxBackoff?: number;
  /** Consecutive reconnect attempts before giving up. Default `Infinity`. */
  maxReconnects?: number;
  /** Milliseconds ready before the attempt count resets. Default 30 000. */
  stableAfter?: number;
  /** `"stay"` (default): closed, `reconnect()` revives it. `"stop"`: closed for good. */
  onGiveUp?: "stay" | "stop";
  /** Ping a ready connection this often; two unanswered in a row restart it. Default: off. */
  healthCheckInterval?: number;
  /** The longest a cached list is fresh, whatever the server's `ttlMs`. Default 3 600 000 (1 hour). */
  maxCacheTtl?: number;
  /** Server log entries delivered at most at this rate; the rest are dropped. Default 50/s, bursts of 100. */
  logRateLimit?: { perSecond: number; burst: number };
  /**
   * Deepest nesting of objects and arrays accepted in what a server sends: a result deeper than
   * this is a `protocol` error (`max_depth_exceeded`); a listed tool, resource or prompt deeper
   * than this is left out of the listing (`tool:rejected`, reason `too_deep`). Default 64.
   */
  maxDepth?: number;
  /** Items one `listAll*` walk takes at most; more is `pagination_cycle` / `max_items`. Default 10 000. */
  maxListItems?: number;
  /** Pages one `listAll*` walk asks for at most; more is `pagination_cycle` / `max_pages`. Default 100. */
  maxListPages?: number;
  /**
   * Check a tool result's `structuredContent` against the tool's `outputSchema`, when the cached
   * listing has one: a mismatch is `protocol` / `output_schema_mismatch`. Default true.
   */
  validateOutput?: boolean;
  /**
   * Send `callTool` for a name the tool listing does not have (docs/requests.md, "Calling a tool
   * the listing does not have"). Default false: a name missing from the complete listing the
   * client holds is refused with `not_found` and nothing is sent, and a client that holds no
   * listing lists once first. `true` is for servers that hide tools on purpose: a name no listing
   * ever mentioned goes out as asked, without a listing first (a rejected or withdrawn tool is
   * still refused).
   */
  callUnlistedTools?: boolean;
  /**
   * Layers around every `callTool`, first = outermost (docs/governance.md: `governance()` is one).
   * Composed once, when the client is built. Default: none.
   */
  interceptors?: readonly ToolCallInterceptor[];
  /** Whose calls these are, by default: grants are keyed by it. A call's `principal` overrides it. */
  principal?: string;
  /**
   * State shared with other clients and workers (docs/fleet.md): `tokens` (the OAuth default
   * store), `lists`, `eras`, `budgets`; `grants` is for governance, which keeps grants there when
   * its options name none (the client passes it along with each call). Each missing one is in memory, for this client only.
   */
  stores?: Stores;
  /** At most `requests` requests to this server per `perMs` ms (kept in `stores.budgets`). Default: none. */
  rateLimit?: RateLimit;
}

export interface ResolvedClientOptions {
  name: string;
  serverId: string;
  transport: () => Transport;
  transportKind: string;
  protocol: ProtocolChoice;
  probeTimeout: number;
  prior: "legacy" | "modern" | undefined;
  requestTimeout: number;
  maxTotalTimeout: number;
  maxInFlight: number;
  maxQueued: number;
  includeInstructions: boolean;
  clientInfo: Implementation;
  logger: Logger;
  capturePayloads: { redact: (payload: unknown) => unknown; maxBytes: number } | null;
  /** The OpenTelemetry bridge's options, when it is on; `peer` is what its spans say of the server. */
  openTelemetry: { options: OpenTelemetryOptions; peer: PeerInfo } | null;
  backoff: ((attempt: number) => number) | undefined;
  maxBackoff: number;
  maxReconnects: number;
  stableAfter: number;
  onGiveUp: "stay" | "stop";
  healthCheckInterval: number | null;
  maxCacheTtl: number;
  logRateLimit: { perSecond: number; burst: number };
  maxDepth: number;
  listLimits: ListLimits;
  validateOutput: boolean;
  callUnlistedTools: boolean;
  /** Whose credentials the transport sends (private cached lists are keyed by it). */
  transportIdentity: (() => CredentialIdentity) | undefined;
  /** The one transport object every attempt uses, when there is one (yours, or HTTP's). */
  transportObject: Transport | undefined;
  /** Tool input schemas the transport cannot carry (HTTP: bad `x-mcp-header` annotations). */
  toolRule: ((inputSchema: unknown) => string | null) | undefined;
  /** Answering server input: the handler and its limits. */
  input: ResolvedInputOptions;
  interceptors: readonly ToolCallInterceptor[];
  principal: string | null;
  stores: Stores;
  rateLimit: RateLimit | null;
  /** Names this server in shared stores: the serverId and where it connects. */
  storeKey: string;
}

export const CLIENT_DEFAULTS = {
  requestTimeout: 60_000,
  maxTotalTimeout: 300_000,
  maxInFlight: 64,
  maxQueued: 128,
  probeTimeoutStream: 3_000,
  probeTimeoutHttp: 5_000,
  stableAfter: 30_000,
  maxBackoff: 300_000,
  maxCacheTtl: 3_600_000,
  logRateLimit: { perSecond: 50, burst: 100 },
  maxDepth: 64,
} as const;

const KEYS = [
  "name",
  "serverId",
  "transport",
  "protocol",
  "probeTimeout",
  "prior",
  "requestTimeout",
  "maxTotalTimeout",
  "maxInFlight",
  "maxQueued",
  "includeInstructions",
  "clientInfo",
  "logger",
  "telemetry",
  "backoff",
  "maxBackoff",
  "maxReconnects",
  "stableAfter",
  "onGiveUp",
  "healthCheckInterval",
  "maxCacheTtl",
  "logRateLimit",
  "maxDepth",
  "maxListItems",
  "maxListPages",
  "validateOutput",
  "callUnlistedTools",
  "interceptors",
  "principal",
  "stores",
  "rateLimit",
  ...INPUT_OPTION_KEYS,
] as const;

const defaultLogger: Logger = {
  warn: (m) => console.error(`[conduit-mcp] warning: ${m}`),
  error: (m) => console.error(`[conduit-mcp] error: ${m}`),
};

const CLIENT_INFO: Implementation = Object.freeze({ name: "conduit-mcp", version: VERSION }); // one for all
const NO_INTERCEPTORS: readonly ToolCallInterceptor[] = Object.freeze([]); // (issue 26)
/** Validates every option; throws a `TypeError` naming the first bad one. No I/O. */
export function resolveClientOptions(input: unknown): ResolvedClientOptions {
  const o = checkObject(input, "options");
  checkKeys(o, KEYS, "");

  const name = optString(o.name, "name");
  if (name === undefined || name.length === 0) fail("name", "a non-empty string");
  const serverId = optString(o.serverId, "serverId") ?? name;
  if (serverId.length === 0) fail("serverId", "a non-empty string");

  const plan = planTransport(o.transport, "transport");
  const transport = plan.make;
  /** The one transport object every attempt uses, when there is one (yours, or HTTP's). */
  const transportObject = plan.shared;
  const transportKind = plan.kind;

  const capture = resolveTelemetry(o.telemetry);
  const otel = resolveOpenTelemetry(isPlainObject(o.telemetry) ? o.telemetry.openTelemetry : undefined);
  const logger = resolveLogger(o.logger);

  let clientInfo: Implementation = CLIENT_INFO;
  if (o.clientInfo !== undefined) {
    if (!isImplementation(o.clientInfo)) fail("clientInfo", "{ name: string, version: string }");
    clientInfo = o.clientInfo;
  }

  return {
    name,
    serverId,
    transport,
    transportKind,
    protocol: optOneOf(o.protocol, "protocol", PROTOCOL_CHOICES) ?? "auto",
    probeTimeout:
      optInt(o.probeTimeout, "probeTimeout", 1) ??
      (transportKind === "http" ? CLIENT_DEFAULTS.probeTimeoutHttp : CLIENT_DEFAULTS.probeTimeoutStream),
    prior: optOneOf(o.prior, "prior", ["legacy", "modern"] as const),
    requestTimeout: optInt(o.requestTimeout, "requestTimeout", 1) ?? CLIENT_DEFAULTS.requestTimeout,
    maxTotalTimeout: optInt(o.maxTotalTimeout, "maxTotalTimeout", 1) ?? CLIENT_DEFAULTS.maxTotalTimeout,
    maxInFlight: optInt(o.maxInFlight, "maxInFlight", 1) ?? CLIENT_DEFAULTS.maxInFlight,
    maxQueued: optInt(o.maxQueued, "maxQueued", 0) ?? CLIENT_DEFAULTS.maxQueued,
    includeInstructions: optBoolean(o.includeInstructions, "includeInstructions") ?? false,
    clientInfo,
    logger,
    capturePayloads: capture,
    openTelemetry: otel ? { options: otel, peer: peerOf(transportKind, o.transport) } : null,
    backoff: optFunction<(attempt: number) => number>(o.backoff, "backoff"),
    maxBackoff: optInt(o.maxBackoff, "maxBackoff", 1) ?? CLIENT_DEFAULTS.maxBackoff,
    maxReconnects:
      o.maxReconnects === Number.POSITIVE_INFINITY
        ? Number.POSITIVE_INFINITY
        : (optInt(o.maxReconnects, "maxReconnects") ?? Number.POSITIVE_INFINITY),
    stableAfter: optInt(o.stableAfter, "stableAfter") ?? CLIENT_DEFAULTS.stableAfter,
    onGiveUp: optOneOf(o.onGiveUp, "onGiveUp", ["stay", "stop"] as const) ?? "stay",
    healthCheckInterval: optInt(o.healthCheckInterval, "healthCheckInterval", 1) ?? null,
    maxCacheTtl: optInt(o.maxCacheTtl, "maxCacheTtl") ?? CLIENT_DEFAULTS.maxCacheTtl,
    logRateLimit: resolveRate(o.logRateLimit, "logRateLimit") ?? CLIENT_DEFAULTS.logRateLimit,
    maxDepth: optInt(o.maxDepth, "maxDepth", 2, 1000) ?? CLIENT_DEFAULTS.maxDepth,
    listLimits: resolveListLimits(o.maxListItems, o.maxListPages),
    validateOutput: optBoolean(o.validateOutput, "validateOutput") ?? true,
    callUnlistedTools: optBoolean(o.callUnlistedTools, "callUnlistedTools") ?? false,
    transportIdentity: identityOf(transportObject),
    transportObject,
    toolRule: plan.toolRule,
    input: resolveInputOptions(o),
    interceptors: checkInterceptors(o.interceptors, "interceptors"),
    principal: optPrincipal(o.principal, "principal"),
    stores: resolveStores(o.stores, "stores"),
    storeKey: storeKeyOf(serverId, o.transport),
    rateLimit: resolveRateLimit(o.rateLimit, "rateLimit"),
  };
}

/** Tool-call interceptors: an array of functions, copied (a later change to it changes nothing). */
export function checkInterceptors(v: unknown, path: string): readonly ToolCallInterceptor[] {
  if (v === undefined) return NO_INTERCEPTORS;
  if (!Array.isArray(v)) fail(path, "an array of functions (next) => (call) => Promise<ToolResult>");
  v.forEach((f, i) => {
    if (typeof f !== "function") fail(`${path}[${i}]`, "a function (next) => (call) => Promise<ToolResult>");
  });
  return Object.freeze([...v]) as readonly ToolCallInterceptor[];
}

/** A principal: a non-empty string (grants are keyed by it), or none. */
export function optPrincipal(v: unknown, path: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length === 0) fail(path, "a non-empty string");
  return v;
}

/** `{ perSecond, burst }` of a rate limit. */
function resolveRate(v: unknown, path: string): { perSecond: number; burst: number } | undefined {
  if (v === undefined) return undefined;
  const r = checkObject(v, path);
  checkKeys(r, ["perSecond", "burst"], path);
  const perSecond = optInt(r.perSecond, `${path}.perSecond`, 1);
  const burst = optInt(r.burst, `${path}.burst`, 1);
  if (perSecond === undefined || burst === undefined) fail(path, "{ perSecond, burst } (positive integers)");
  return { perSecond, burst };
}

/**
 * Whose credentials the transport sends, read through its credentials seam: `null` for none, a
 * string naming them (a digest, never a token), `undefined` when it cannot know (an auth
 * function without `credentialId`). A transport without the seam sends none.
 */
function identityOf(t: Transport | undefined): (() => CredentialIdentity) | undefined {
  const credentials = t?.credentials;
  if (credentials === undefined) return undefined;
  return () => {
    const id = credentials.identity;
    if (id === null) return { kind: "none" };
    return typeof id === "string" ? { kind: "id", id } : { kind: "unknown" };
  };
}

function peerOf(transportKind: string, transport: unknown): PeerInfo {
  const url = isPlainObject(transport) && typeof transport.url === "string" ? transport.url : undefined;
  if (transportKind !== "http" || url === undefined) return { transportKind };
  try {
    const u = new URL(url);
    const port = u.port ? Number(u.port) : u.protocol === "https:" ? 443 : 80;
    return { transportKind, serverAddress: u.hostname, serverPort: port };
  } catch {
    return { transportKind };
  }
}

function resolveLogger(v: unknown): Logger {
  if (v === undefined) return defaultLogger;
  if (typeof v !== "object" || v === null || typeof (v as Logger).warn !== "function") {
    fail("logger", "an object with a warn(message) method");
  }
  return v as Logger;
}

function resolveTelemetry(v: unknown): ResolvedClientOptions["capturePayloads"] {
  if (v === undefined) return null;
  const t = checkObject(v, "telemetry");
  checkKeys(t, ["capturePayloads", "openTelemetry"], "telemetry");
  const c = t.capturePayloads;
  if (c === undefined || c === false) return null;
  const cp = checkObject(c, "telemetry.capturePayloads");
  checkKeys(cp, ["redact", "maxBytes"], "telemetry.capturePayloads");
  const redact = optFunction<(p: unknown) => unknown>(cp.redact, "telemetry.capturePayloads.redact");
  if (!redact) fail("telemetry.capturePayloads.redact", "a function (payload capture needs a redactor)");
  return { redact, maxBytes: optInt(cp.maxBytes, "telemetry.capturePayloads.maxBytes", 1) ?? 4096 };
}

const REQUEST_KEYS = [
  "timeout",
  "signal",
  "onProgress",
  "resetTimeoutOnProgress",
  "maxTotalTimeout",
  "meta",
  "traceparent",
  "assigns",
] as const;

/** Checks per-call options; `extra` names the keys a particular function adds. */
export function checkRequestOptions(o: unknown, extra: readonly string[] = []): RequestOptions {
  if (o === undefined) return {};
  const r = checkObject(o, "request options");
  // No list of the allowed keys is built per call: the common keys, then the function's own.
  for (const key of Object.keys(r)) {
    if (!(REQUEST_KEYS as readonly string[]).includes(key) && !extra.includes(key)) {
      throw new OptionError(key, "unknown");
    }
  }
  // Infinity: no time limit of the library's own (the caller ends the request with `signal`).
  if (r.timeout !== Infinity && r.timeout !== undefined) {
    if (typeof r.timeout !== "number" || !Number.isSafeInteger(r.timeout) || r.timeout < 1) {
      fail("timeout", "an integer >= 1, or Infinity (no time limit)");
    }
  }
  optInt(r.maxTotalTimeout, "maxTotalTimeout", 1);
  optBoolean(r.resetTimeoutOnProgress, "resetTimeoutOnProgress");
  optFunction(r.onProgress, "onProgress");
  optString(r.traceparent, "traceparent");
  if (r.signal !== undefined && !(r.signal instanceof AbortSignal)) fail("signal", "an AbortSignal");
  if (r.meta !== undefined && !isPlainObject(r.meta)) fail("meta", "a plain object");
  checkAssigns(r.assigns);
  return r as RequestOptions;
}

/** Checks `callTool`'s options: the request options plus `task`, `taskTtl` and governance's. */
/** The name and arguments of a tool call, as every caller (a client, a hub) takes them. */
export function checkToolCall(name: unknown, args: unknown): void {
  if (typeof name !== "string" || name.length === 0)
    throw new TypeError("conduit-mcp: tool name must be a string");
  if (args !== undefined && !isObject(args))
    throw new TypeError("conduit-mcp: tool arguments must be an object");
}

const CALL_TOOL_KEYS = ["task", "taskTtl", "principal", "context", "retry"] as const;
/** A call without options: nothing to check, and nothing allocated for it (read only). */
const NO_CALL_OPTIONS: CallToolOptions = Object.freeze({});

export function checkCallToolOptions(o: unknown): CallToolOptions {
  if (o === undefined) return NO_CALL_OPTIONS;
  const r = checkRequestOptions(o, CALL_TOOL_KEYS) as CallToolOptions;
  optOneOf(r.task, "task", ["return", "await"] as const);
  optInt(r.taskTtl, "taskTtl", 1);
  optPrincipal(r.principal, "principal");
  if (r.context !== undefined && !isPlainObject(r.context)) fail("context", "a plain object");
  optOneOf(r.retry, "retry", ["idempotent"] as const);
  return r;
}
