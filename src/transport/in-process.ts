import { McpClientError } from "../shared/errors.js";
import { classifyMessage, ErrorCodes, type JsonRpcMessage, type RequestId } from "../shared/jsonrpc.js";
import type { Transport, TransportSink } from "./transport.js";

/** What a server served in-process sees of the client: where its messages go. */
export interface InProcessPeer {
  /** One message from the server to the client (a response, a notification, a request). */
  send(message: JsonRpcMessage): void;
  /** The server hangs up: the client sees the transport close, as when a stdio server exits. */
  close(): void;
}

/** One connection of an in-process server: it takes the client's messages until closed. */
export interface InProcessSession {
  receive(message: JsonRpcMessage): void;
  close(): void | Promise<void>;
}

/**
 * A server the in-process transport can serve directly (`FakeServer` is one): it opens one
 * session per connection attempt.
 */
export interface InProcessServer {
  serveInProcess(peer: InProcessPeer): InProcessSession | Promise<InProcessSession>;
}

/**
 * An official `@modelcontextprotocol/server` `McpServer` (or its low-level `Server`), or a factory
 * of them (`({ era }) => McpServer`, as `serveStdio` takes). Typed loosely so that the package
 * stays an optional peer dependency.
 */
export type OfficialServer = { connect(transport: unknown): Promise<void>; close(): Promise<void> };
export type OfficialServerFactory = (ctx: {
  era: "modern" | "legacy";
}) => OfficialServer | Promise<OfficialServer>;

export interface InProcessTransportOptions {
  type: "in-process";
  /** A `FakeServer` (or any `InProcessServer`), an official `McpServer`, or a factory of them. */
  server: InProcessServer | OfficialServer | OfficialServerFactory;
  /** A server message whose JSON is longer closes the transport (`message_too_large`). Default 8 MiB. */
  maxMessageBytes?: number;
  /** Consecutive server messages that are not JSON-RPC tolerated; one more closes the transport. Default 10. */
  maxJunkMessages?: number;
}

export const IN_PROCESS_DEFAULTS = { maxMessageBytes: 8 * 1024 * 1024, maxJunkMessages: 10 } as const;

export function isInProcessServer(v: unknown): v is InProcessServer {
  return typeof v === "object" && v !== null && typeof (v as InProcessServer).serveInProcess === "function";
}

function isOfficialServer(v: unknown): v is OfficialServer {
  return (
    typeof v === "object" &&
    v !== null &&
    typeof (v as OfficialServer).connect === "function" &&
    typeof (v as OfficialServer).close === "function"
  );
}

/** Checks the options; throws a `TypeError` naming the bad key. No I/O. */
export function checkInProcessOptions(o: Record<string, unknown>, path: string): InProcessTransportOptions {
  for (const key of Object.keys(o)) {
    if (!["type", "server", "maxMessageBytes", "maxJunkMessages"].includes(key)) {
      throw new TypeError(`conduit-mcp: unknown option "${path}.${key}"`);
    }
  }
  const s = o.server;
  if (!isInProcessServer(s) && !isOfficialServer(s) && typeof s !== "function") {
    throw new TypeError(
      `conduit-mcp: option "${path}.server" must be a FakeServer, an McpServer or a function returning one`,
    );
  }
  for (const key of ["maxMessageBytes", "maxJunkMessages"] as const) {
    const v = o[key];
    if (
      v !== undefined &&
      (!Number.isSafeInteger(v) || (v as number) < (key === "maxJunkMessages" ? 0 : 1))
    ) {
      const what = key === "maxJunkMessages" ? "a non-negative integer" : "a positive integer";
      throw new TypeError(`conduit-mcp: option "${path}.${key}" must be ${what}`);
    }
  }
  return o as unknown as InProcessTransportOptions;
}

/**
 * Serves a server in the same process: no socket, no child process, no HTTP stack. Messages still
 * cross as JSON (serialised and parsed once each way), so the server never shares an object with
 * the client, and what the server sends passes the same size cap and JSON-RPC check as over stdio.
 * `subscriptions/listen` needs an HTTP transport and is answered `-32601` here. Cancelling sends
 * `notifications/cancelled`, which aborts the server's handler.
 */
export class InProcessTransport implements Transport {
  readonly kind = "in_process";
  readonly #server: InProcessTransportOptions["server"];
  readonly #maxBytes: number;
  readonly #maxJunk: number;
  #sink: TransportSink | undefined;
  #session: InProcessSession | undefined;
  /** Bumped per start and per close: messages of an older session are dropped. */
  #gen = 0;
  #open = false;
  #junk = 0;

  constructor(options: InProcessTransportOptions) {
    checkInProcessOptions(options as unknown as Record<string, unknown>, "transport");
    this.#server = options.server;
    this.#maxBytes = options.maxMessageBytes ?? IN_PROCESS_DEFAULTS.maxMessageBytes;
    this.#maxJunk = options.maxJunkMessages ?? IN_PROCESS_DEFAULTS.maxJunkMessages;
  }

  async start(sink: TransportSink): Promise<void> {
    if (this.#open) throw new McpClientError("transport", "already_started");
    const gen = ++this.#gen;
    this.#sink = sink;
    this.#junk = 0;
    const peer: InProcessPeer = {
      send: (m) => this.#fromServer(gen, m),
      close: () => this.#serverClosed(gen),
    };
    let session: InProcessSession;
    try {
      session = isInProcessServer(this.#server)
        ? await this.#server.serveInProcess(peer)
        : await serveOfficial(this.#server, peer);
    } catch (err) {
      if (err instanceof McpClientError) throw err;
      throw new McpClientError("transport", "in_process_start_failed", undefined, { cause: err });
    }
    if (gen !== this.#gen) {
      await session.close();
      throw new McpClientError("transport", "closed_while_starting");
    }
    this.#session = session;
    this.#open = true;
  }

  send(message: JsonRpcMessage): void {
    const session = this.#session;
    if (!this.#open || !session) throw new McpClientError("transport", "not_connected");
    // Serialised as over a wire; a TypeError (a cycle, a BigInt) is the caller's.
    const json = JSON.stringify(message);
    const gen = this.#gen;
    if ("method" in message && message.method === "subscriptions/listen" && "id" in message) {
      const id = message.id as RequestId;
      return queueMicrotask(() =>
        this.#fromServer(gen, {
          jsonrpc: "2.0",
          id,
          error: { code: ErrorCodes.methodNotFound, message: "subscriptions/listen needs an HTTP transport" },
        }),
      );
    }
    // Delivered after the caller's turn, as I/O would be: no handler runs inside send().
    queueMicrotask(() => {
      if (gen !== this.#gen || !this.#open) return;
      try {
        session.receive(JSON.parse(json) as JsonRpcMessage);
      } catch (err) {
        this.#sink?.warn?.(`the in-process server threw on a message: ${errorName(err)}`);
      }
    });
  }

  async close(): Promise<void> {
    const session = this.#session;
    this.#gen++;
    this.#open = false;
    this.#session = undefined;
    if (session) await Promise.resolve(session.close()).catch(() => {});
  }

  #fromServer(gen: number, message: unknown): void {
    if (gen !== this.#gen || !this.#open) return;
    let json: string | undefined;
    try {
      json = JSON.stringify(message);
    } catch {
      json = undefined;
    }
    if (json !== undefined && Buffer.byteLength(json, "utf8") > this.#maxBytes) {
      return this.#fail(gen, new McpClientError("message_too_large", "message_over_max_message_bytes"));
    }
    const parsed: unknown = json === undefined ? undefined : JSON.parse(json);
    const cls = classifyMessage(parsed);
    if (cls === "invalid") {
      this.#junk += 1;
      if (this.#junk > this.#maxJunk) return this.#fail(gen, new McpClientError("transport", "junk_output"));
      this.#sink?.warn?.(`ignored a server message that is not JSON-RPC (${this.#junk} in a row)`);
      return;
    }
    this.#junk = 0;
    // As over stdio: a response with a known id but a broken shape fails that request at once.
    if (cls === "malformed_response") {
      return this.#sink?.fail(
        (parsed as { id: RequestId }).id,
        new McpClientError("protocol", "malformed_response"),
      );
    }
    // `json` is the message's whole text: the listing's fast path (TransportSink.message).
    this.#sink?.message(parsed as JsonRpcMessage, undefined, cls === "result" ? json : undefined);
  }

  #serverClosed(gen: number): void {
    if (gen !== this.#gen || !this.#open) return;
    this.#fail(gen, new McpClientError("transport", "server_closed"));
  }

  /** The session ends on our side: the sink hears why once, and the server is told to stop. */
  #fail(gen: number, error: McpClientError): void {
    if (gen !== this.#gen) return;
    const session = this.#session;
    this.#gen++;
    this.#open = false;
    this.#session = undefined;
    if (session) void Promise.resolve(session.close()).catch(() => {});
    this.#sink?.closed(error);
  }
}

const OFFICIAL_PACKAGE = "@modelcontextprotocol/server";

/** The `data` of `official_server_missing`: the package and how to install it. */
const OFFICIAL_SERVER_MISSING = {
  package: OFFICIAL_PACKAGE,
  install: `npm install ${OFFICIAL_PACKAGE}`,
  hint: `serving an official McpServer in-process needs the optional peer dependency ${OFFICIAL_PACKAGE} (>=2.4.0 <3); install it with: npm install ${OFFICIAL_PACKAGE}`,
} as const;

function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

/**
 * An official server, served the way its own stdio entry serves a connection (`serveStdio` with a
 * transport we give it): the opening message picks the era with the rules its HTTP entry applies,
 * and one instance is pinned for the connection. The package is loaded only now.
 */
async function serveOfficial(
  server: OfficialServer | OfficialServerFactory,
  peer: InProcessPeer,
): Promise<InProcessSession> {
  let mod: { serveStdio: (factory: unknown, options: unknown) => { close(): Promise<void> } };
  try {
    mod = (await import("@modelcontextprotocol/server/stdio")) as unknown as typeof mod;
  } catch (err) {
    // An optional peer dependency: another attempt cannot install it, so the client closes at once
    // (connection/retry-policy.ts) and says what to install.
    // The package and its install command in `detail` too, so the message itself names them.
    throw new McpClientError("transport", "official_server_missing", OFFICIAL_SERVER_MISSING, {
      cause: err,
      detail: { package: OFFICIAL_PACKAGE, install: OFFICIAL_SERVER_MISSING.install },
    });
  }
  const factory: OfficialServerFactory = typeof server === "function" ? server : () => server;
  // The SDK's Transport interface, over a function call each way.
  const wire = {
    onmessage: undefined as ((m: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((e: Error) => void) | undefined,
    closed: false,
    async start() {},
    async send(message: unknown) {
      if (wire.closed) throw new Error("in-process connection closed");
      peer.send(message as JsonRpcMessage);
    },
    async close() {
      if (wire.closed) return;
      wire.closed = true;
      peer.close();
      wire.onclose?.();
    },
  };
  const handle = mod.serveStdio(factory, { transport: wire, legacy: "serve", onerror: () => {} });
  return {
    receive: (m) => wire.onmessage?.(m),
    close: async () => {
      wire.closed = true;
      await handle.close();
    },
  };
}
