import {
  type JsonRpcMessage,
  StdioTransport,
  type StdioTransportOptions,
  type Transport,
  type TransportSink,
} from "../../src/index.js";

/** A JSON-RPC message seen on the wire, loosely typed for assertions. */
export interface WireMessage {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * A real `StdioTransport` with a recorder in front: every message the client writes and every
 * message the server sends is kept (a copy), so tests can check what went over the wire.
 * Pass it as the client's `transport`; it is restarted on reconnect like any transport object.
 */
export class WireTap implements Transport {
  readonly kind: string;
  readonly sent: WireMessage[] = [];
  readonly received: WireMessage[] = [];
  /** How many times the client started the transport (one per connection attempt). */
  starts = 0;
  readonly #inner: StdioTransport;

  constructor(options: StdioTransportOptions) {
    this.#inner = new StdioTransport(options);
    this.kind = this.#inner.kind;
  }

  /** The server's pid while it runs. */
  get pid(): number | undefined {
    return this.#inner.pid;
  }

  start(sink: TransportSink): Promise<void> {
    this.starts += 1;
    // Everything but `message` goes straight to the client's sink, whatever the sink offers.
    const record = (m: JsonRpcMessage) => {
      this.received.push(structuredClone(m) as WireMessage);
      sink.message(m);
    };
    const tapped = new Proxy(sink, {
      get: (target, prop) => {
        if (prop === "message") return record;
        const value: unknown = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return this.#inner.start(tapped);
  }

  send(message: JsonRpcMessage): void | Promise<void> {
    this.sent.push(structuredClone(message) as WireMessage);
    return this.#inner.send(message);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  /** Messages the client sent with this method. */
  sentWith(method: string): WireMessage[] {
    return this.sent.filter((m) => m.method === method);
  }

  /** The responses (result or error) the server sent for request `id`. */
  responsesTo(id: string | number): WireMessage[] {
    return this.received.filter((m) => m.method === undefined && m.id === id);
  }
}
