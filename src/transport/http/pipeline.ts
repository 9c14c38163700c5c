/**
 * A first `callTool` over HTTP/1.1, pipelined behind the listing it waits for (issue 26;
 * requests.md, "The first call and the first listing"). A client that holds no listing sends
 * `tools/list` and, in the same turn, the call; on their own the call would open a second
 * connection (a TCP and, to a remote server, a TLS handshake: what the round trip saved costs
 * again). So a `tools/call` made while a `tools/list` of its lease is unanswered on a connection,
 * with no free connection for it, is written right behind it on that connection; the server
 * answers in order (HTTP/1.1 requires it), the client judges the call by the listing as over
 * stdio. Only these two: two calls pipelined would make the second wait for the first's answer.
 *
 * undici re-sends, on a new connection, the requests behind one whose connection closed: fine for
 * a listing, not for a call the server may have run. So the call is never behind anything else,
 * and if the connection closes before its answer it fails (`network_error`, maybe sent) before
 * undici can send it again (`dropTail`, run at the connection's 'disconnect', which undici emits
 * before it sends anything again).
 */
import type { Client, Dispatcher } from "undici";

/** The start of a request body `JSON.stringify` makes of `{ jsonrpc, id, method, ... }`. */
const ID = String.raw`\{"jsonrpc":"2\.0","id":(?:-?\d+|"(?:[^"\\]|\\.)*"),"method":`;
const LISTING = new RegExp(`^${ID}"tools/list"`);
const CALL = new RegExp(`^${ID}"tools/call"`);

const isPost = (o: Dispatcher.RequestOptions, re: RegExp) =>
  o.method === "POST" && typeof o.body === "string" && re.test(o.body);

/** A listing's request, which a call may follow on its connection. */
export const isListing = (o: Dispatcher.RequestOptions): boolean => isPost(o, LISTING);
/** A call's request. */
export const isCall = (o: Dispatcher.RequestOptions): boolean => isPost(o, CALL);

/** A listing on a connection, and the call behind it. */
export class Pair {
  /** The listing's answer has not begun: a call may still go behind it. */
  open = true;
  /** The call behind the listing until its answer begins. */
  tail: AbortController | undefined = undefined;

  /** Options for the listing: a request that blocks (undici's default) holds the pipeline until its answer's headers. */
  static listing(o: Dispatcher.RequestOptions): Dispatcher.RequestOptions {
    return { ...o, blocking: false };
  }

  /** Sends the call behind the listing on `client`. */
  sendBehind(
    client: Client,
    options: Dispatcher.RequestOptions,
    resolve: (res: Dispatcher.ResponseData) => void,
    reject: (err: unknown) => void,
  ): void {
    this.open = false;
    const tail = new AbortController();
    this.tail = tail;
    // The caller's signal (its cancel, its deadline) reaches the call through the tail's, for the
    // call's whole life (its answer's body too): the listener goes with the request's signal.
    const outer = options.signal as AbortSignal | undefined;
    if (outer?.aborted) tail.abort(outer.reason);
    else outer?.addEventListener("abort", () => tail.abort(outer.reason), { once: true });
    client.pipelining = 2;
    // `idempotent` only lets undici write it while the listing is in flight (it is no promise:
    // `dropTail` keeps undici from sending it twice).
    client.request({ ...options, signal: tail.signal, idempotent: true }, (err, data) => {
      this.tail = undefined;
      // One request at a time again only now: set at the listing's answer, undici would read this
      // answer's headers in a state it asserts against.
      client.pipelining = 1;
      if (err) reject(err);
      else resolve(data);
    });
  }

  /**
   * The connection closed, with `queued` requests left in undici's queue. With only the call left,
   * the listing had been written (and answered or failed), so the call behind it had been too: it
   * fails rather than be sent again. With both left, neither was written (the socket closed while
   * idle): undici sends them on a new connection, a first send.
   */
  dropTail(queued: number): void {
    const tail = this.tail;
    if (!tail || queued > 1) return;
    this.open = false;
    this.tail = undefined;
    tail.abort(
      Object.assign(new Error("the connection closed before the call's answer"), { code: "UND_ERR_SOCKET" }),
    );
  }
}

interface PairConnection {
  readonly client: Client;
  lease: unknown;
  reserved: boolean;
  pair?: Pair | undefined;
  kept?: boolean;
}

/**
 * The connection of `lease` whose listing a call may follow, if any: one whose socket the server
 * already kept open after an answer (a server that closes after each answer would close it under
 * the call, which would then fail: such a call takes a connection of its own).
 */
export function pairHead<C extends PairConnection>(all: readonly C[], lease: unknown): C | undefined {
  for (const c of all) {
    if (c.lease === lease && c.kept && c.pair?.open && !c.reserved && c.client.stats.connected) return c;
  }
  return undefined;
}
