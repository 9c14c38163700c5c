/**
 * `serve(hubOrClient, options)`: a hub (or one client) served as one MCP server, over stdio or
 * Streamable HTTP, both protocol eras, on the official server SDK (loaded only now). The
 * `conduit-mcp/serve` entry (docs/serve.md).
 */
import type { Client } from "../client/client.js";
import type { Logger } from "../client/types.js";
import type { Hub } from "../hub/hub.js";
import { isLoopbackHost } from "../security/origin.js";
import { sanitizeText } from "../shared/sanitize.js";
import { AuditLog, type AuditSink } from "./audit.js";
import { type Caller, Callers, EVERYONE } from "./callers.js";
import { Forwarder } from "./forward.js";
import { HTTP_LIMITS, type HttpFront, type HttpLimits, startHttp } from "./http.js";
import { loadSdk, loadStdio } from "./sdk.js";
import { buildServer, type ServeParts } from "./server-factory.js";
import { fastStdioWire } from "./stdio-fast.js";
import { TaskListens } from "./task-listen.js";
import { watchStdioTaskListens } from "./task-listen-stdio.js";
import type { ServeTaskOptions } from "./task-map.js";
import { type ServePolicy, ToolCalls } from "./tool-calls.js";
import { Upstream } from "./upstream.js";

export type ServeTransport =
  | { type: "stdio" }
  | {
      type: "http";
      /** Default `127.0.0.1`. Any other than a loopback address needs `callers`. */
      host?: string;
      /** Default 0 (any free port; `url` says which). */
      port?: number;
      /** More `Host` names to accept (a reverse proxy's), besides the bound host's. */
      allowedHosts?: readonly string[];
    };

export interface ServeOptions {
  /** Default `{ type: "stdio" }`. */
  transport?: ServeTransport;
  /** HTTP: bearer tokens mapped to principals, each with its view of the tools. Default: none (loopback only). */
  callers?: readonly Caller[];
  /** Governance in front of every call; an `ask` is put to the downstream client (elicitation). Default: none. */
  policy?: ServePolicy;
  /** A file (JSON lines, appended) or a function that gets one entry per call. Default: none. */
  audit?: AuditSink;
  /** HTTP limits (see `HttpLimits`). */
  limits?: Partial<HttpLimits>;
  /** Upstream tasks handed to hosts: per-caller cap, TTL, wait deadline (docs/serve.md, Tasks). */
  tasks?: ServeTaskOptions;
  /** The server name downstream clients see. Default `"conduit-mcp"`. */
  name?: string;
  /** Where serve's own warnings go. Default: stderr. */
  logger?: Logger;
}

export interface ServeHandle extends AsyncDisposable {
  /** The MCP endpoint (`http://127.0.0.1:PORT/mcp`), or null over stdio. */
  readonly url: string | null;
  /** Resolves when serving has stopped (closed, or stdin ended over stdio). */
  readonly closed: Promise<void>;
  /** HTTP: 2025-era sessions open now (0 over stdio). */
  sessions(): number;
  /** Stops serving and releases every socket; the hub or client given stays open (its owner closes it). */
  close(): Promise<void>;
}

const defaultLogger: Logger = { warn: (m) => console.error(`[conduit-mcp serve] warning: ${m}`) };

export async function serve(target: Hub | Client, options: ServeOptions = {}): Promise<ServeHandle> {
  const upstream = new Upstream(target);
  const transport = options.transport ?? { type: "stdio" };
  const logger = options.logger ?? defaultLogger;
  const warn = (text: string) => {
    try {
      logger.warn(sanitizeText(text, { maxLength: 500 }));
    } catch {
      // A logger that throws must not stop serving.
    }
  };
  const limits = checkLimits(options.limits);
  const callers = options.callers === undefined ? null : new Callers(options.callers);
  if (transport.type === "http") {
    const host = transport.host ?? "127.0.0.1";
    if (!isLoopbackHost(host) && !callers) {
      throw new TypeError(
        `conduit-mcp: serving on ${host} (not a loopback address) needs "callers" (bearer tokens)`,
      );
    }
  } else if (transport.type !== "stdio") {
    throw new TypeError('conduit-mcp: option "transport.type" must be "stdio" or "http"');
  } else if (callers) {
    throw new TypeError(
      'conduit-mcp: option "callers" is for HTTP (a stdio client is the one who started serve)',
    );
  }
  const audit = new AuditLog(options.audit, warn);
  const calls = new ToolCalls(upstream, audit, options.policy, options.tasks);
  const sdk = await loadSdk();
  const forward = new Forwarder(upstream);
  const parts: ServeParts = { sdk, name: options.name ?? "conduit-mcp", upstream, calls, forward };
  let stopped!: () => void;
  const closed = new Promise<void>((r) => {
    stopped = r;
  });

  const taskListens = new TaskListens(calls.tasks);
  let front: HttpFront | null = null;
  let stdio: { close(): Promise<void> } | null = null;
  let stdioListens: { close(): void } | null = null;
  if (transport.type === "http") {
    front = await startHttp({
      sdk,
      host: transport.host ?? "127.0.0.1",
      port: transport.port ?? 0,
      callers,
      limits,
      build: (view) => buildServer(parts, view),
      forward,
      allowedHosts: transport.allowedHosts ?? [],
      taskListens,
    });
  } else {
    const { serveStdio, StdioServerTransport } = await loadStdio();
    const wire = fastStdioWire(sdk, StdioServerTransport);
    // 2026-07-28 listens for task ids (task-listen-stdio.ts), attached before the SDK starts it.
    stdioListens = watchStdioTaskListens(wire, calls.tasks);
    stdio = serveStdio(
      () => {
        const server = buildServer(parts, EVERYONE);
        forward.live.add(server);
        wire.server = server;
        const before = server.onclose;
        server.onclose = () => {
          forward.live.delete(server);
          if (wire.server === server) wire.server = null;
          before?.();
        };
        return server;
      },
      { legacy: "serve", transport: wire, onerror: (err: Error) => warn(`stdio: ${err.message}`) },
    );
    // The host closing stdin ends serving (desktop hosts stop a server that way).
    process.stdin.once("end", () => void handle.close());
    process.stdin.once("close", () => void handle.close());
  }

  let closing: Promise<void> | null = null;
  const handle: ServeHandle = {
    url: front?.url ?? null,
    closed,
    sessions: () => front?.sessions() ?? 0,
    close() {
      closing ??= (async () => {
        forward.close();
        calls.parked.close();
        calls.tasks.close();
        taskListens.closeAll();
        stdioListens?.close();
        await front?.close();
        await stdio?.close().catch(() => {});
        await audit.flush();
        stopped();
      })();
      return closing;
    },
    [Symbol.asyncDispose]() {
      return handle.close();
    },
  };
  return handle;
}

function checkLimits(given: Partial<HttpLimits> | undefined): HttpLimits {
  const out = { ...HTTP_LIMITS };
  if (given === undefined) return out;
  for (const [key, value] of Object.entries(given)) {
    if (!(key in HTTP_LIMITS)) throw new TypeError(`conduit-mcp: option "limits.${key}" is not known`);
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw new TypeError(`conduit-mcp: option "limits.${key}" must be an integer >= 1`);
    }
    out[key as keyof HttpLimits] = value as number;
  }
  return out;
}
