/**
 * Transports built from plain options (`{ type: "stdio", ... }`, `{ type: "http", url }`), or a
 * transport object taken as it is. The client names only this file and the interface; which
 * classes exist, and which of them are made once or per attempt, is the transport layer's.
 */
import { fail, isPlainObject } from "../util/option-check.js";
import { invalidMcpHeaderAnnotations } from "./http/mcp-headers.js";
import type { HttpAuth, HttpTransportOptions } from "./http/options.js";
import { HttpTransport } from "./http/transport.js";
import { checkInProcessOptions, InProcessTransport, type InProcessTransportOptions } from "./in-process.js";
import { StdioTransport } from "./stdio.js";
import {
  type ResolvedStdioOptions,
  resolveStdioOptions,
  type StdioTransportOptions,
} from "./stdio-options.js";
import { isTransport, type Transport } from "./transport.js";

/** Plain transport options, or an object implementing `Transport`. */
export type { HttpAuth };

export type TransportChoice =
  | StdioTransportOptions
  | HttpTransportOptions
  | InProcessTransportOptions
  | Transport;

/** What the client needs to know about the transport it was given. */
export interface TransportPlan {
  /** `transport.kind` of what `make` returns. */
  kind: string;
  /** The transport for the next connection attempt (a new one per attempt for stdio). */
  make: () => Transport;
  /** The one transport every attempt uses, when there is one (yours, or HTTP's). */
  shared: Transport | undefined;
  /**
   * Tool input schemas this transport cannot carry: over HTTP, invalid `x-mcp-header`
   * annotations (a reason, or null when the schema is fine).
   */
  toolRule: ((inputSchema: unknown) => string | null) | undefined;
}

/** Validates `value` (option path `path`) and plans its transport. Throws a `TypeError`. */
export function planTransport(value: unknown, path = "transport"): TransportPlan {
  if (isTransport(value)) {
    return { kind: value.kind, make: always(value), shared: value, toolRule: ruleFor(value.kind) };
  }
  if (isPlainObject(value) && value.type === "stdio") {
    const resolved = resolveStdioOptions(value, path);
    // A new process per connection attempt, from the options as validated here.
    return {
      kind: "stdio",
      make: spawnEach(resolved),
      shared: undefined,
      toolRule: undefined,
    };
  }
  if (isPlainObject(value) && value.type === "http") {
    // One transport for every attempt: it restarts after a close, and keeps its pool settings,
    // the tools' header annotations and credentials replaced with setAuth().
    const http = new HttpTransport(value as unknown as HttpTransportOptions);
    return { kind: "http", make: always(http), shared: http, toolRule: ruleFor("http") };
  }
  if (isPlainObject(value) && value.type === "in-process") {
    // A new session per attempt, on the same server object (see docs/testing.md).
    const inProcess = checkInProcessOptions(value, path);
    return {
      kind: "in_process",
      make: () => new InProcessTransport(inProcess),
      shared: undefined,
      toolRule: undefined,
    };
  }
  if (isPlainObject(value)) fail(`${path}.type`, '"stdio", "http" or "in-process"');
  fail(path, '{ type: "stdio", ... } or an object implementing Transport');
}

/**
 * `make` for a transport used by every attempt: made here, so the closure holds the transport
 * alone, not the scope of planTransport with the options it was given (kept per client).
 */
function always(t: Transport): () => Transport {
  return () => t;
}

/** `make` for stdio: a transport per attempt, from the one resolved value (taken as it is). */
function spawnEach(resolved: ResolvedStdioOptions): () => Transport {
  return () => new StdioTransport(resolved as unknown as StdioTransportOptions);
}

function ruleFor(kind: string): TransportPlan["toolRule"] {
  return kind === "http" ? invalidMcpHeaderAnnotations : undefined;
}
