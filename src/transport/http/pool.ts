/**
 * Keep-alive connections to one origin, shared by the transports that lease them (shared-pools.ts
 * says which do): undici `Client`s, one socket each, one request at a time on it. A request takes
 * an idle connection when there is one, opens another while its lease is under its limit, or waits
 * in line for one. Each lease has its own limit (the transport's `poolSize`) and nothing else of
 * another lease's: the pool holds no headers, so a request carries only its own transport's.
 * A lease never waits behind another (there is no limit for the pool as a whole).
 *
 * A first call may go right behind its listing on the listing's connection (pipeline.ts).
 *
 * Why not undici's `Pool`: it frees a socket only a loop turn after its answer ended, so sequential
 * requests opened a second connection (a legacy client a third); and each `Pool` allocates a
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
import { isCall, isListing, Pair, pairHead } from "./pipeline.js";
import { abortedError, destroyedError } from "./pool-errors.js";

type Undici = Pick<typeof import("undici"), "Client" | "buildConnector">;
export type Connector = ReturnType<Undici["buildConnector"]>;

interface Waiting {
  readonly lease: PoolLease;
  readonly options: Dispatcher.RequestOptions;
  readonly resolve: (res: Dispatcher.ResponseData) => void;
  readonly reject: (err: unknown) => void;
  /** Set once the request stayed in line through a hand-out; its signal then removes it. */
  onAbort?: () => void;
  /** Left in line once for a connection about to free (see `#finishing`). */
  deferred?: boolean;
}

/** One connection and what the pool knows of it. */
interface Connection {
  readonly client: Client;
  /** Given a request and not yet free again. */
  busy: boolean;
  /** The lease whose request it carries (none once that lease is gone, or when undici took it). */
  lease: PoolLease | undefined;
  /** Given a request it starts only in the next check phase. */
  reserved: boolean;
  /** Reserved, or sending its request while its socket is being made: its lease's order waits. */
  starting: boolean;
  /** Carrying a listing, perhaps a call behind it (pipeline.ts); `kept`: open after an answer. */
  pair?: Pair | undefined;
  kept?: boolean;
}

/**
 * What one transport holds of a pool: its own limit and line order. Requests of one lease leave
 * in the order they were made: not past one of its own waiting, or one whose connection is still
 * to be made (a legacy GET stream before the call whose server request needs it).
 */
export class PoolLease {
  readonly pool: SharedPool;
  readonly limit: number;
  /** Connections carrying a request of this lease. */
  busy = 0;
  /** Requests of this lease in the pool's line. */
  waiting = 0;
  /** Connections of this lease still starting (see `Connection.starting`). */
  starting = 0;
  destroyed = false;

  constructor(pool: SharedPool, limit: number) {
    this.pool = pool;
    this.limit = limit;
  }

  request(options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    return this.pool.request(this, options);
  }

  /** Fails what of this lease still waits, ends its requests; the last lease closes the sockets. */
  destroy(): Promise<void> {
    return this.pool.release(this);
  }
}

export class SharedPool {
  readonly #all: Connection[] = [];
  /** Free connections, the latest freed last. */
  readonly #free: Connection[] = [];
  #line: Waiting[] = [];
  readonly #make: () => Connection;
  #leases = 0;
  #scheduled = false;
  #destroyed = false;
  /** Called once the last lease is gone (the registry forgets the pool). */
  readonly #onEmpty: () => void;

  constructor(undici: Undici, origin: string, connect: Connector, onEmpty: () => void = () => {}) {
    this.#onEmpty = onEmpty;
    this.#make = () => {
      // One connector for every connection: they share its TLS session cache, as a Pool's do.
      const client = new undici.Client(origin, { connect });
      const conn: Connection = { client, busy: false, lease: undefined, reserved: false, starting: false };
      const started = () => this.#started(conn);
      client.on("connect", started);
      // undici emits 'drain' each time the request given to it has ended (it was busy with it), in
      // the check phase after the poll that read the end of the answer; 'disconnect' when the
      // socket closed. The free list keeps the connections without a socket at its front, so a
      // request finds an open socket first (after an idle timeout closed some, say).
      const freed = () => {
        // One read of undici's stats (each read makes a new object); after a 'disconnect' it
        // reads no socket.
        const stats = client.stats;
        if (!conn.busy || !this.#idle(conn, stats)) return;
        this.#release(conn);
        conn.kept = stats.connected;
        if (stats.connected) this.#free.push(conn);
        else this.#free.unshift(conn);
        if (this.#line.length > 0) this.#schedule();
      };
      client.on("drain", freed);
      client.on("disconnect", () => {
        conn.pair?.dropTail(client.stats.size);
        conn.kept = false;
        started();
        if (conn.busy) return freed();
        const i = this.#free.indexOf(conn);
        if (i > 0) this.#free.unshift(...this.#free.splice(i, 1));
      });
      // A connection that failed to connect is not used again (as undici's Pool does, #3895).
      client.on("connectionError", () => {
        started();
        this.#forget(conn);
        if (this.#line.length > 0) this.#schedule();
      });
      return conn;
    };
  }

  /** A new lease with its own limit of connections at once. */
  lease(limit: number): PoolLease {
    this.#leases++;
    return new PoolLease(this, limit);
  }

  /**
   * One request: at once on a free connection when nothing of its lease is ahead of it, else at the
   * next hand-out (see the top of the file).
   */
  request(lease: PoolLease, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
    if (lease.destroyed) return Promise.reject(destroyedError());
    return new Promise((resolve, reject) => {
      // Not past a request in line (another lease's waits at most for the next hand-out): when
      // many clients' answers come in one poll, their next requests would take the connections
      // the line waits for, and the line would open new ones.
      if (
        this.#line.length === 0 &&
        lease.waiting === 0 &&
        lease.starting === 0 &&
        lease.busy < lease.limit
      ) {
        const conn = this.#takeFree(true);
        if (conn) {
          this.#hold(conn, lease);
          return this.#send(conn, options, resolve, reject);
        }
      }
      const head = lease.waiting === 0 && isCall(options) ? pairHead(this.#all, lease) : undefined;
      if (head) return head.pair!.sendBehind(head.client, options, resolve, reject);
      lease.waiting++;
      this.#line.push({ lease, options, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Ends a lease: what of it still waits fails, and the connections carrying its requests close
   * (those requests fail); a connection whose answer has ended frees for the others as usual.
   * The last lease closes every connection.
   */
  async release(lease: PoolLease): Promise<void> {
    if (lease.destroyed) return;
    lease.destroyed = true;
    const kept: Waiting[] = [];
    for (const w of this.#line) {
      if (w.lease !== lease) kept.push(w);
      else {
        this.#unlisten(w);
        w.reject(destroyedError());
      }
    }
    this.#line = kept;
    lease.waiting = 0;
    const closing: Connection[] = [];
    if (--this.#leases === 0) {
      this.#destroyed = true;
      this.#onEmpty();
      for (const w of this.#line) {
        this.#unlisten(w);
        w.reject(destroyedError());
      }
      this.#line = [];
      this.#free.length = 0;
      closing.push(...this.#all.splice(0));
    } else {
      for (const c of [...this.#all]) {
        if (c.lease !== lease) continue;
        if (c.reserved || c.client.stats.size > 0) {
          this.#forget(c);
          closing.push(c);
        } else {
          // Its answer has ended: it frees at its 'drain' for the other leases.
          this.#release(c);
          c.busy = true;
        }
      }
    }
    await Promise.all(closing.map((c) => c.client.destroy().catch(() => {})));
  }

  readonly #schedule = (): void => {
    if (this.#scheduled || this.#destroyed) return;
    this.#scheduled = true;
    setImmediate(this.#handOut);
  };

  /**
   * The hand-out, in the check phase: each waiting request, in order, whose lease is under its
   * limit gets a free connection or a new one.
   */
  readonly #handOut = (): void => {
    this.#scheduled = false;
    if (this.#destroyed) return;
    const line = this.#line;
    this.#line = [];
    const kept: Waiting[] = [];
    /** Connections about to free, counted when first needed; leases with a request left in line. */
    let finishing = -1;
    let behind: Set<PoolLease> | undefined;
    for (const w of line) {
      const lease = w.lease;
      const signal = w.options.signal as AbortSignal | undefined;
      if (signal?.aborted) {
        this.#unlisten(w);
        lease.waiting--;
        w.reject(abortedError());
        continue;
      }
      // At its limit: it (and so the rest of its lease's line) waits for one of its own to free.
      // Behind one of its own left in line: it keeps its place after it.
      if (lease.busy >= lease.limit || behind?.has(lease)) {
        kept.push(w);
        continue;
      }
      let conn = this.#takeFree(false);
      const head = conn || !isCall(w.options) ? undefined : pairHead(this.#all, lease);
      if (head) {
        this.#unlisten(w);
        lease.waiting--;
        head.pair!.sendBehind(head.client, w.options, w.resolve, w.reject);
        continue;
      }
      if (!conn) {
        // Another lease's answer read in the last poll frees its connection later in this check
        // phase (its 'drain' was queued after this hand-out): the request waits for it, once,
        // rather than open a socket (a burst of many clients' requests opened a third more).
        if (finishing < 0) finishing = this.#finishing();
        if (finishing > 0 && !w.deferred) {
          finishing--;
          w.deferred = true;
          kept.push(w);
          behind ??= new Set();
          behind.add(lease);
          continue;
        }
        conn = this.#new();
      }
      this.#unlisten(w);
      lease.waiting--;
      this.#hold(conn, lease);
      if (conn.client.stats.connected) {
        this.#send(conn, w.options, w.resolve, w.reject);
        continue;
      }
      // A connection still to be made starts after the requests just given to open sockets are
      // written (undici writes those in the next check phase): requests leave in the order they
      // were made (a legacy GET stream before the call whose server request needs it).
      conn.reserved = true;
      conn.starting = true;
      lease.starting++;
      setImmediate(() => {
        conn.reserved = false;
        if (conn.lease !== lease || lease.destroyed) {
          // Its lease ended meanwhile (the connection was closed with it).
          this.#started(conn);
          return w.reject(destroyedError());
        }
        if (conn.client.stats.connected) this.#started(conn);
        this.#send(conn, w.options, w.resolve, w.reject);
      });
    }
    // Requests queued while handing out (a callback run at once) come after those kept.
    this.#line = this.#line.length > 0 ? kept.concat(this.#line) : kept;
    // Those left for a connection about to free are served at the next hand-out, freed or not.
    if (behind) this.#schedule();
    // Those still waiting leave the line when their signal fires (a timeout, a cancellation).
    for (const w of this.#line) if (!w.onAbort) this.#listen(w);
  };

  #send(
    conn: Connection,
    options: Dispatcher.RequestOptions,
    resolve: (res: Dispatcher.ResponseData) => void,
    reject: (err: unknown) => void,
  ): void {
    const pair = isListing(options) ? new Pair() : undefined;
    conn.pair = pair;
    conn.client.request(pair ? Pair.listing(options) : options, (err, data) => {
      if (pair) pair.open = false;
      if (err) reject(err);
      else resolve(data);
    });
  }

  #hold(conn: Connection, lease: PoolLease): void {
    conn.busy = true;
    conn.lease = lease;
    lease.busy++;
  }

  /** The connection is no lease's any more (its request ended, or the lease did). */
  #release(conn: Connection): void {
    conn.busy = false;
    const lease = conn.lease;
    if (!lease) return;
    conn.lease = undefined;
    lease.busy--;
    if (conn.starting) {
      conn.starting = false;
      lease.starting--;
    }
  }

  /** Its socket is made (or failed, or was never needed): its lease's order may go on. */
  #started(conn: Connection): void {
    if (!conn.starting) return;
    conn.starting = false;
    if (conn.lease) conn.lease.starting--;
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

  /** Connections whose request has ended and that free at their 'drain', with their socket open. */
  #finishing(): number {
    let n = 0;
    for (const c of this.#all) {
      if (!c.busy || c.reserved || c.client.destroyed) continue;
      const stats = c.client.stats;
      if (stats.size === 0 && stats.connected) n++;
    }
    return n;
  }

  #new(): Connection {
    const conn = this.#make();
    this.#all.push(conn);
    return conn;
  }

  #idle(c: Connection, stats = c.client.stats): boolean {
    const client = c.client;
    return !client.destroyed && !client.closed && !c.reserved && stats.size === 0;
  }

  #forget(c: Connection): void {
    this.#release(c);
    const i = this.#all.indexOf(c);
    if (i >= 0) this.#all.splice(i, 1);
    const j = this.#free.indexOf(c);
    if (j >= 0) this.#free.splice(j, 1);
  }

  #listen(w: Waiting): void {
    const signal = w.options.signal as AbortSignal | undefined;
    w.onAbort = () => {
      const i = this.#line.indexOf(w);
      if (i < 0) return;
      this.#line.splice(i, 1);
      w.lease.waiting--;
      w.reject(abortedError());
    };
    signal?.addEventListener("abort", w.onAbort, { once: true });
  }

  #unlisten(w: Waiting): void {
    if (w.onAbort) (w.options.signal as AbortSignal | undefined)?.removeEventListener("abort", w.onAbort);
  }
}
