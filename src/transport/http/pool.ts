/**
 * The transport's connections to its server: up to `connections` undici `Client`s (one socket
 * each, one request at a time on it), a request going to the first idle one and waiting in line
 * when all are busy.
 *
 * Why not undici's `Pool`: it hands a socket out again only after the client's `drain` event, a
 * loop turn after the answer ended, so a request sent as the previous one settles (the common
 * sequential case) opens a second connection; and every `Pool` allocates a 2 048-slot queue
 * (16 KB) up front, most of an idle client's memory. An idle undici `Client` takes a request on
 * its socket at once.
 */
import type { Client, Dispatcher } from "undici";

type Undici = typeof import("undici");

export class ConnectionPool {
  readonly #clients: Client[] = [];
  readonly #waiting: Array<() => void> = [];
  readonly #make: () => Client;
  readonly #max: number;
  #destroyed = false;

  constructor(
    undici: Undici,
    origin: string,
    options: { connections: number; connect: Record<string, unknown> },
  ) {
    // One connector for every client: they share its TLS session cache, as a Pool's clients do.
    const connect = undici.buildConnector(options.connect as undici_ConnectOptions);
    this.#max = options.connections;
    this.#make = () => {
      const client = new undici.Client(origin, { connect });
      client.on("drain", () => this.#wake());
      return client;
    };
  }

  /** One request on an idle connection (a new one while under the limit), or after waiting for one. */
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    const client = this.#idle();
    if (client) return client.request(options);
    return this.#queued(options);
  }

  async destroy(): Promise<void> {
    this.#destroyed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    const clients = this.#clients.splice(0);
    await Promise.all(clients.map((c) => c.destroy().catch(() => {})));
  }

  #idle(): Client | undefined {
    for (const c of this.#clients) if (c.stats.size === 0 && !c.destroyed && !c.closed) return c;
    if (this.#clients.length >= this.#max) return undefined;
    const client = this.#make();
    this.#clients.push(client);
    return client;
  }

  async #queued(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    const signal = options.signal as AbortSignal | undefined;
    for (;;) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal?.removeEventListener("abort", wake);
          const i = this.#waiting.indexOf(wake);
          if (i >= 0) this.#waiting.splice(i, 1);
          resolve();
        };
        this.#waiting.push(wake);
        signal?.addEventListener("abort", wake, { once: true });
      });
      if (this.#destroyed)
        throw Object.assign(new Error("the pool is closed"), { code: "UND_ERR_DESTROYED" });
      // Aborted while waiting (the caller knows from its signal).
      if (signal?.aborted) throw new Error("aborted while waiting for a connection");
      const client = this.#idle();
      if (client) return client.request(options);
    }
  }

  /** A connection finished its request: the first in line takes it. */
  #wake(): void {
    this.#waiting[0]?.();
  }
}

type undici_ConnectOptions = Parameters<Undici["buildConnector"]>[0];
