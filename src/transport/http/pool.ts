/**
 * The transport's connections to its server: up to `connections` undici `Client`s (one socket
 * each, one request at a time on it). A request takes an idle connection when there is one, opens
 * another while under the limit, or waits in line for one.
 *
 * Why not undici's `Pool`: it hands a socket out again only a loop turn after its answer ended
 * (the client's `drain`), so a request sent as the previous one settles (the common sequential
 * case) opened a second connection, and a legacy client a third; and every `Pool` allocates a
 * 2 048-slot queue (16 KB) up front, the largest part of an idle transport.
 *
 * The keep-alive race: a server that closes an idle connection (it stopped, or its keep-alive
 * timeout ran out) sends a FIN that this process sees only when the event loop next polls. A
 * request written onto that socket before then fails with "other side closed", and nothing tells
 * whether the server read it, so it cannot be sent again. Requests are therefore handed to
 * connections in the check phase (`setImmediate`), where undici's own idle-socket validation
 * (another check phase, GHSA-35p6-xmwp-9g52) follows: at least one poll happens after the request
 * was made and before it is written on a reused socket, so a close the server made before the
 * request was asked for is always seen. undici then sends the request on a new connection, and a
 * server that is gone answers `ECONNREFUSED`: a request that certainly never left (fetcher.ts).
 * Nothing is ever retried here.
 */
import type { Client, Dispatcher } from "undici";

type Undici = typeof import("undici");
type ConnectOptions = Parameters<Undici["buildConnector"]>[0];

interface Waiting {
  readonly options: Dispatcher.RequestOptions;
  readonly resolve: (res: Dispatcher.ResponseData) => void;
  readonly reject: (err: unknown) => void;
  /**
   * Set once the request stayed in line through a hand-out (a check phase): a poll has run since
   * it was made, so it may take a connection the moment one is free. Its signal then removes it.
   */
  onAbort?: () => void;
}

export class ConnectionPool {
  readonly #clients: Client[] = [];
  /** Connections that said they are free again ('drain'), the latest last; checked when taken. */
  readonly #freed: Client[] = [];
  #line: Waiting[] = [];
  /** New connections given a request that they start only in the next check phase. */
  readonly #reserved = new Set<Client>();
  readonly #make: () => Client;
  readonly #max: number;
  #scheduled = false;
  #destroyed = false;

  constructor(
    undici: Undici,
    origin: string,
    options: { connections: number; connect: Record<string, unknown> },
  ) {
    // One connector for every connection: they share its TLS session cache, as a Pool's do.
    const connect = undici.buildConnector(options.connect as ConnectOptions);
    this.#max = options.connections;
    this.#make = () => {
      const client = new undici.Client(origin, { connect });
      const freed = () => {
        this.#freed.push(client);
        this.#give(true);
      };
      client.on("drain", freed);
      client.on("disconnect", freed);
      // A connection that failed to connect is not used again (as undici's Pool does, #3895).
      client.on("connectionError", () => {
        const i = this.#clients.indexOf(client);
        if (i >= 0) this.#clients.splice(i, 1);
        this.#give(true);
      });
      return client;
    };
  }

  /** One request, on the first connection that is free after this loop turn's I/O was read. */
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    if (this.#destroyed) return Promise.reject(destroyedError());
    return new Promise((resolve, reject) => {
      this.#line.push({ options, resolve, reject });
      this.#schedule();
    });
  }

  /** Fails whatever still waits, then closes every connection (requests on them fail). */
  async destroy(): Promise<void> {
    this.#destroyed = true;
    const line = this.#line;
    this.#line = [];
    for (const w of line) {
      this.#unlisten(w);
      w.reject(destroyedError());
    }
    this.#freed.length = 0;
    const clients = this.#clients.splice(0);
    await Promise.all(clients.map((c) => c.destroy().catch(() => {})));
  }

  #schedule(): void {
    if (this.#scheduled || this.#line.length === 0 || this.#destroyed) return;
    this.#scheduled = true;
    setImmediate(this.#handOut);
  }

  readonly #handOut = (): void => {
    this.#scheduled = false;
    this.#give(false);
  };

  /**
   * Gives each waiting request a free connection, in order, while there are any: in the check
   * phase every one, when a connection frees up only those that already waited through a check
   * phase (the others get theirs in the next one).
   */
  #give(waitedOnly: boolean): void {
    while (this.#line.length > 0 && !this.#destroyed) {
      const w = this.#line[0]!;
      // A request made in this poll phase waits for the check phase (see the top of the file).
      if (waitedOnly && !w.onAbort) return this.#schedule();
      const signal = w.options.signal as AbortSignal | undefined;
      if (signal?.aborted) {
        this.#line.shift();
        this.#unlisten(w);
        w.reject(abortedError());
        continue;
      }
      const client = this.#free();
      if (!client) break;
      this.#line.shift();
      this.#unlisten(w);
      const send = () => client.request(w.options, (err, data) => (err ? w.reject(err) : w.resolve(data)));
      if (client.stats.connected) {
        send();
        continue;
      }
      // A connection still to be made starts after the requests just given to open sockets are
      // written (undici writes those in the next check phase): requests leave in the order they
      // were made (a legacy GET stream before the call whose server request needs it).
      this.#reserved.add(client);
      setImmediate(() => {
        this.#reserved.delete(client);
        send();
      });
    }
    if (waitedOnly) return;
    // Those still waiting leave the line when their signal fires (a timeout, a cancellation).
    for (const w of this.#line) if (!w.onAbort) this.#listen(w);
  }

  /**
   * The connection freed last (its socket is the likeliest still open), else a new one while under
   * the limit, else any idle one.
   */
  #free(): Client | undefined {
    for (let c = this.#freed.pop(); c; c = this.#freed.pop()) if (this.#idle(c)) return c;
    if (this.#clients.length < this.#max) {
      const client = this.#make();
      this.#clients.push(client);
      return client;
    }
    return this.#clients.find((c) => this.#idle(c));
  }

  #idle(c: Client): boolean {
    return (
      !c.destroyed && !c.closed && !this.#reserved.has(c) && c.stats.size === 0 && this.#clients.includes(c)
    );
  }

  #listen(w: Waiting): void {
    const signal = w.options.signal as AbortSignal | undefined;
    w.onAbort = () => {
      const i = this.#line.indexOf(w);
      if (i < 0) return;
      this.#line.splice(i, 1);
      w.reject(abortedError());
    };
    signal?.addEventListener("abort", w.onAbort, { once: true });
  }

  #unlisten(w: Waiting): void {
    if (w.onAbort) (w.options.signal as AbortSignal | undefined)?.removeEventListener("abort", w.onAbort);
  }
}

function destroyedError(): Error {
  return Object.assign(new Error("the connection pool is closed"), { code: "UND_ERR_DESTROYED" });
}

/** The caller's signal fired while it waited for a connection (the caller knows from its signal). */
function abortedError(): Error {
  return Object.assign(new Error("aborted while waiting for a connection"), { name: "AbortError" });
}
