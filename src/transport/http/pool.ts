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
 * The keep-alive race: a server that closes a connection (it answered and hung up, it stopped, or
 * its keep-alive timeout ran out) sends a FIN that this process sees only when the event loop next
 * polls. A request written onto that socket before then fails with "other side closed", and nothing
 * tells whether the server read it, so it cannot be sent again. So no request is written on a
 * socket whose close a poll could already have seen. undici writes a request on a reused socket
 * only in the next check phase after it was given (its idle-socket validation,
 * GHSA-35p6-xmwp-9g52), when every close the poll before reported has been handled. That is not
 * enough for the socket whose answer that same poll read: libuv stops reading at a short read, so a
 * FIN sent with the answer is still unread. Hence: a connection takes a request at once only when
 * it is *settled*, found idle at one of the pool's hand-outs (a check phase, scheduled when an
 * answer begins, and when a connection drains), so that a whole poll runs between reading its
 * answer and the write. A request that finds no settled connection waits in line for the next
 * hand-out, and the socket it gets there is written a check phase later, after one more poll.
 * Sequential calls on one socket thus wait a loop turn each; on two (a legacy client whose first
 * call went out while its refused GET stream was still open) they alternate, each on the socket
 * settled since its answer, and wait none. A close that reaches this process after the last poll
 * before the write is the race no client can rule out (servers keep idle sockets longer than
 * undici's 4 s for it). undici sends a request whose socket it saw closed on a new connection, and
 * a server that is gone answers `ECONNREFUSED`: a request that certainly never left (fetcher.ts).
 * Nothing is ever retried here.
 */
import type { Client, Dispatcher } from "undici";

type Undici = Pick<typeof import("undici"), "Client" | "buildConnector">;
type ConnectOptions = Parameters<Undici["buildConnector"]>[0];

interface Waiting {
  readonly options: Dispatcher.RequestOptions;
  readonly resolve: (res: Dispatcher.ResponseData) => void;
  readonly reject: (err: unknown) => void;
  /** Set once the request stayed in line through a hand-out; its signal then removes it. */
  onAbort?: () => void;
}

export class ConnectionPool {
  readonly #clients: Client[] = [];
  /** Settled connections (idle at a hand-out after their last answer), the latest last. */
  readonly #settled: Client[] = [];
  /** Connections given a request and not yet found idle at a hand-out. */
  readonly #busy = new Set<Client>();
  /** Busy connections with news since the last hand-out (an answer, a drain): looked at there. */
  readonly #answered = new Set<Client>();
  /** New connections given a request that they start only in the next check phase. */
  readonly #reserved = new Set<Client>();
  /** Connections sending a request while their socket is being made. */
  readonly #opening = new Set<Client>();
  #line: Waiting[] = [];
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
      const opened = () => this.#opening.delete(client);
      client.on("connect", opened);
      // Free again (an answer whose body nobody read), or without its socket: settled at the
      // next hand-out, unless one already found it idle.
      const freed = () => {
        if (!this.#busy.has(client)) return;
        this.#answered.add(client);
        this.#schedule();
      };
      client.on("drain", freed);
      client.on("disconnect", () => {
        opened();
        freed();
      });
      // A connection that failed to connect is not used again (as undici's Pool does, #3895).
      client.on("connectionError", () => {
        opened();
        this.#forget(client);
        this.#schedule();
      });
      return client;
    };
  }

  /**
   * One request: at once on a settled connection when nothing is ahead of it, else at the next
   * hand-out (see the top of the file).
   */
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    if (this.#destroyed) return Promise.reject(destroyedError());
    return new Promise((resolve, reject) => {
      // Requests leave in the order they were made: not past one waiting, or one whose connection
      // is still to be made (a legacy GET stream before the call whose server request needs it).
      if (this.#line.length === 0 && this.#reserved.size === 0 && this.#opening.size === 0) {
        const client = this.#takeSettled(true);
        if (client) return this.#send(client, options, resolve, reject);
      }
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
    this.#settled.length = 0;
    this.#busy.clear();
    this.#answered.clear();
    const clients = this.#clients.splice(0);
    await Promise.all(clients.map((c) => c.destroy().catch(() => {})));
  }

  readonly #schedule = (): void => {
    if (this.#scheduled || this.#destroyed) return;
    this.#scheduled = true;
    setImmediate(this.#handOut);
  };

  /**
   * The hand-out, in the check phase: each connection that answered or drained since the last one
   * and is idle now is settled (the poll that read its last answer is over), then each waiting
   * request, in order, gets a connection while there are any.
   */
  readonly #handOut = (): void => {
    this.#scheduled = false;
    if (this.#destroyed) return;
    for (const c of this.#answered) {
      if (!this.#busy.has(c) || !this.#idle(c)) continue;
      this.#busy.delete(c);
      this.#settled.push(c);
    }
    this.#answered.clear();
    while (this.#line.length > 0) {
      const w = this.#line[0]!;
      const signal = w.options.signal as AbortSignal | undefined;
      if (signal?.aborted) {
        this.#line.shift();
        this.#unlisten(w);
        w.reject(abortedError());
        continue;
      }
      const client = this.#takeSettled(false) ?? this.#new();
      if (!client) break;
      this.#line.shift();
      this.#unlisten(w);
      if (client.stats.connected) {
        this.#send(client, w.options, w.resolve, w.reject);
        continue;
      }
      // A connection still to be made starts after the requests just given to open sockets are
      // written (undici writes those in the next check phase): requests leave in the order they
      // were made (a legacy GET stream before the call whose server request needs it).
      this.#reserved.add(client);
      setImmediate(() => {
        this.#reserved.delete(client);
        if (!client.stats.connected) this.#opening.add(client);
        this.#send(client, w.options, w.resolve, w.reject);
      });
    }
    // Those still waiting leave the line when their signal fires (a timeout, a cancellation).
    for (const w of this.#line) if (!w.onAbort) this.#listen(w);
  };

  #send(
    client: Client,
    options: Dispatcher.RequestOptions,
    resolve: (res: Dispatcher.ResponseData) => void,
    reject: (err: unknown) => void,
  ): void {
    this.#busy.add(client);
    client.request(options, (err, data) => {
      // The answer began (or the request failed): the hand-out after this poll settles the
      // connection if the answer's body was read whole by then (one read, as a JSON answer
      // usually is), else it waits for the connection's drain. (An 'end' listener on each body
      // instead cost about 5 % of a sequential call's rate.)
      this.#answered.add(client);
      this.#schedule();
      if (err) reject(err);
      else resolve(data);
    });
  }

  /**
   * The connection settled last (its socket is the likeliest still open), checked: still idle,
   * and with `connectedOnly` (a request given outside a hand-out) one whose socket is open.
   */
  #takeSettled(connectedOnly: boolean): Client | undefined {
    for (let i = this.#settled.length - 1; i >= 0; i--) {
      const c = this.#settled[i]!;
      if (!this.#idle(c)) {
        this.#settled.splice(i, 1);
        if (!c.destroyed && !c.closed && this.#clients.includes(c)) this.#busy.add(c);
        continue;
      }
      if (connectedOnly && !c.stats.connected) return undefined;
      this.#settled.splice(i, 1);
      return c;
    }
    return undefined;
  }

  /** A new connection while under the limit. */
  #new(): Client | undefined {
    if (this.#clients.length >= this.#max) return undefined;
    const client = this.#make();
    this.#clients.push(client);
    return client;
  }

  #idle(c: Client): boolean {
    return !c.destroyed && !c.closed && !this.#reserved.has(c) && c.stats.size === 0;
  }

  #forget(c: Client): void {
    const i = this.#clients.indexOf(c);
    if (i >= 0) this.#clients.splice(i, 1);
    const j = this.#settled.indexOf(c);
    if (j >= 0) this.#settled.splice(j, 1);
    this.#busy.delete(c);
    this.#answered.delete(c);
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
