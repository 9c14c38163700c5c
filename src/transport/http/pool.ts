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
 * socket whose close a poll could already have seen, and a whole poll runs between reading a
 * socket's last answer and writing on it: libuv stops reading at a short read, so a FIN sent with
 * the answer is read only at the next poll. undici keeps both rules itself, and this pool relies on
 * them (test/http-keep-alive.test.ts holds it to them): a connection frees (its `drain`) only in
 * the check phase after the poll that read the end of its answer, and undici writes a request on a
 * reused socket only in a later check phase (its idle-socket validation, GHSA-35p6-xmwp-9g52),
 * after the next poll has reported any close. So a request takes the free connection freed last at
 * once; one that finds none waits in line for a connection to free or be made (a hand-out in the
 * check phase). Sequential calls on one socket thus wait a loop turn each (undici's); on two (a
 * legacy client whose first call went out while its refused GET stream was still open) they
 * alternate, each on the socket freed since its answer, and wait none. A close that reaches this
 * process after the last poll before the write is the race no client can rule out (servers keep
 * idle sockets longer than undici's 4 s for it). undici sends a request whose socket it saw closed
 * on a new connection, and a server that is gone answers `ECONNREFUSED`: a request that certainly
 * never left (fetcher.ts). Nothing is ever retried here.
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

/** One connection and what the pool knows of it. */
interface Connection {
  readonly client: Client;
  /** Given a request and not yet free again. */
  busy: boolean;
}

/**
 * The connector of pools with no connect options of their own (no TLS settings, no pinned
 * lookup): one for the process, as the global dispatcher's is, instead of one per client (its TLS
 * session cache is a Map, a FinalizationRegistry and a closure: ~350 B per HTTP client).
 */
const plainConnectors = new WeakMap<Undici, ReturnType<Undici["buildConnector"]>>();

function connectorFor(
  undici: Undici,
  connect: Record<string, unknown>,
): ReturnType<Undici["buildConnector"]> {
  if (Object.keys(connect).length > 0) return undici.buildConnector(connect as ConnectOptions);
  let shared = plainConnectors.get(undici);
  if (!shared) {
    shared = undici.buildConnector({});
    plainConnectors.set(undici, shared);
  }
  return shared;
}

export class ConnectionPool {
  readonly #all: Connection[] = [];
  /** Free connections, the latest freed last. */
  readonly #free: Connection[] = [];
  /** New connections given a request that they start only in the next check phase. */
  readonly #reserved = new Set<Connection>();
  /** Connections sending a request while their socket is being made. */
  readonly #opening = new Set<Connection>();
  #line: Waiting[] = [];
  readonly #make: () => Connection;
  readonly #max: number;
  #scheduled = false;
  #destroyed = false;

  constructor(
    undici: Undici,
    origin: string,
    options: { connections: number; connect: Record<string, unknown> },
  ) {
    // One connector for every connection: they share its TLS session cache, as a Pool's do.
    const connect = connectorFor(undici, options.connect);
    this.#max = options.connections;
    this.#make = () => {
      const client = new undici.Client(origin, { connect });
      const conn: Connection = { client, busy: false };
      const opened = () => this.#opening.delete(conn);
      client.on("connect", opened);
      // undici emits 'drain' each time the request given to it has ended (it was busy with it), in
      // the check phase after the poll that read the end of the answer; 'disconnect' when the
      // socket closed. The free list keeps the connections without a socket at its front, so a
      // request finds an open socket first (after an idle timeout closed some, say).
      const freed = () => {
        // One read of undici's stats (each read makes a new object); after a 'disconnect' it
        // reads no socket.
        const stats = client.stats;
        if (!conn.busy || !this.#idle(conn, stats)) return;
        conn.busy = false;
        if (stats.connected) this.#free.push(conn);
        else this.#free.unshift(conn);
        if (this.#line.length > 0) this.#schedule();
      };
      client.on("drain", freed);
      client.on("disconnect", () => {
        opened();
        if (conn.busy) return freed();
        const i = this.#free.indexOf(conn);
        if (i > 0) this.#free.unshift(...this.#free.splice(i, 1));
      });
      // A connection that failed to connect is not used again (as undici's Pool does, #3895).
      client.on("connectionError", () => {
        opened();
        this.#forget(conn);
        if (this.#line.length > 0) this.#schedule();
      });
      return conn;
    };
  }

  /**
   * One request: at once on a free connection when nothing is ahead of it, else at the next
   * hand-out (see the top of the file).
   */
  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    if (this.#destroyed) return Promise.reject(destroyedError());
    return new Promise((resolve, reject) => {
      // Requests leave in the order they were made: not past one waiting, or one whose connection
      // is still to be made (a legacy GET stream before the call whose server request needs it).
      if (this.#line.length === 0 && this.#reserved.size === 0 && this.#opening.size === 0) {
        const conn = this.#takeFree(true);
        if (conn) return this.#send(conn, options, resolve, reject);
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
    this.#free.length = 0;
    const all = this.#all.splice(0);
    await Promise.all(all.map((c) => c.client.destroy().catch(() => {})));
  }

  readonly #schedule = (): void => {
    if (this.#scheduled || this.#destroyed) return;
    this.#scheduled = true;
    setImmediate(this.#handOut);
  };

  /**
   * The hand-out, in the check phase: each waiting request, in order, gets a free connection or a
   * new one while there are any.
   */
  readonly #handOut = (): void => {
    this.#scheduled = false;
    if (this.#destroyed) return;
    while (this.#line.length > 0) {
      const w = this.#line[0]!;
      const signal = w.options.signal as AbortSignal | undefined;
      if (signal?.aborted) {
        this.#line.shift();
        this.#unlisten(w);
        w.reject(abortedError());
        continue;
      }
      const conn = this.#takeFree(false) ?? this.#new();
      if (!conn) break;
      this.#line.shift();
      this.#unlisten(w);
      if (conn.client.stats.connected) {
        this.#send(conn, w.options, w.resolve, w.reject);
        continue;
      }
      // A connection still to be made starts after the requests just given to open sockets are
      // written (undici writes those in the next check phase): requests leave in the order they
      // were made (a legacy GET stream before the call whose server request needs it).
      this.#reserved.add(conn);
      conn.busy = true;
      setImmediate(() => {
        this.#reserved.delete(conn);
        if (!conn.client.stats.connected) this.#opening.add(conn);
        this.#send(conn, w.options, w.resolve, w.reject);
      });
    }
    // Those still waiting leave the line when their signal fires (a timeout, a cancellation).
    for (const w of this.#line) if (!w.onAbort) this.#listen(w);
  };

  #send(
    conn: Connection,
    options: Dispatcher.RequestOptions,
    resolve: (res: Dispatcher.ResponseData) => void,
    reject: (err: unknown) => void,
  ): void {
    conn.busy = true;
    conn.client.request(options, (err, data) => {
      if (err) reject(err);
      else resolve(data);
    });
  }

  /**
   * The free connection freed last whose socket is open (the likeliest to stay open), else, in a
   * hand-out (`connectedOnly` false), one without its socket (it reconnects); connections found
   * busy or closed leave the free list.
   */
  #takeFree(connectedOnly: boolean): Connection | undefined {
    const free = this.#free;
    for (let i = free.length - 1; i >= 0; i--) {
      const c = free[i]!;
      // One read of undici's stats (each read makes a new object).
      const stats = c.client.stats;
      if (!this.#idle(c, stats)) {
        // Closed, or busy again without us (undici's own state): it frees again with a 'drain'.
        free.splice(i, 1);
        c.busy = true;
        continue;
      }
      // Those without a socket are at the front: none further down has one.
      if (connectedOnly && !stats.connected) return undefined;
      free.splice(i, 1);
      return c;
    }
    return undefined;
  }

  /** A new connection while under the limit. */
  #new(): Connection | undefined {
    if (this.#all.length >= this.#max) return undefined;
    const conn = this.#make();
    this.#all.push(conn);
    return conn;
  }

  #idle(c: Connection, stats = c.client.stats): boolean {
    const client = c.client;
    return !client.destroyed && !client.closed && !this.#reserved.has(c) && stats.size === 0;
  }

  #forget(c: Connection): void {
    const i = this.#all.indexOf(c);
    if (i >= 0) this.#all.splice(i, 1);
    const j = this.#free.indexOf(c);
    if (j >= 0) this.#free.splice(j, 1);
    c.busy = false;
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
