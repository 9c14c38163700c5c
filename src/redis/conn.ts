/**
 * One Redis connection for the stores, and one more for pub/sub: every command bounded by the
 * command timeout (a Redis that is down, slow or erroring is `unavailable` / `store_unavailable`
 * within it, never a hung call), writes that failed retried in the background and reported as
 * events, and the fleet's change notices on one channel.
 */
import { randomUUID } from "node:crypto";
import { McpClientError } from "../shared/errors.js";

/** Deletes a lock only when it still holds the caller's value (its holder's release). */
export const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * GET, unless the value is longer than ARGV[1] bytes (-1: it never crosses the wire). A key of
 * another type fails as GET would (WRONGTYPE).
 */
const GET_CAPPED = `if redis.call('STRLEN', KEYS[1]) > tonumber(ARGV[1]) then return -1 end
return redis.call('GET', KEYS[1])`;

/** The node-redis commands the stores use (a client or a cluster from `redis`). */
export interface RedisCommands {
  get(key: string): Promise<unknown>;
  set(key: string, value: string, options?: object): Promise<unknown>;
  del(keys: string | string[]): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
}

export interface RedisClientLike extends RedisCommands {
  connect(): Promise<unknown>;
  duplicate(): RedisClientLike;
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  on(event: "error", listener: (err: unknown) => void): unknown;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy?(): void;
  readonly isOpen?: boolean;
}

/** What the stores report (the `on` listeners of `redisStores`). */
export type RedisStoreEvent =
  | { type: "write_failed"; store: string; attempt: number; retrying: boolean; error: string }
  | { type: "write_recovered"; store: string; attempts: number }
  | { type: "connection_error"; error: string }
  /**
   * A value read was left unused (a miss, for lists and eras; no tokens or grant): longer than
   * `maxValueBytes`, or not what the store writes (another program's, tampered, another
   * version's). The value is never quoted.
   */
  | { type: "value_rejected"; store: string; why: "too_large" | "malformed" };

export interface ConnOptions {
  commandTimeout: number;
  channel: string;
  maxWriteRetries: number;
  /** The longest value a store reads or writes, in bytes. */
  maxValueBytes: number;
}

type Notice = Record<string, unknown>;

/** The pending background writes at most; beyond, the oldest is dropped (and reported). */
const MAX_PENDING_WRITES = 256;

export class RedisConn {
  readonly #client: RedisClientLike;
  readonly #sub: RedisClientLike | undefined;
  readonly #o: ConnOptions;
  readonly #owned: boolean;
  readonly #listeners = new Set<(e: RedisStoreEvent) => void>();
  readonly #noticeListeners = new Set<(n: Notice) => void>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #pending = 0;
  #closed = false;

  constructor(client: RedisClientLike, sub: RedisClientLike | undefined, o: ConnOptions, owned: boolean) {
    this.#client = client;
    this.#sub = sub;
    this.#o = o;
    this.#owned = owned;
  }

  /** Subscribes the pub/sub connection to the fleet's channel. */
  async listen(): Promise<void> {
    await this.#sub?.subscribe(this.#o.channel, (message) => {
      let n: unknown;
      try {
        n = JSON.parse(message);
      } catch {
        return;
      }
      if (typeof n !== "object" || n === null) return;
      for (const l of this.#noticeListeners) l(n as Notice);
    });
  }

  on(listener: (e: RedisStoreEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(e: RedisStoreEvent): void {
    for (const l of this.#listeners) {
      try {
        l(e);
      } catch {
        // A listener's failure is not the store's.
      }
    }
  }

  onNotice(listener: (n: Notice) => void): () => void {
    this.#noticeListeners.add(listener);
    return () => this.#noticeListeners.delete(listener);
  }

  /** Tells every holder of the stores (this process included). */
  notify(n: Notice): Promise<void> {
    return this.run((c) => c.publish(this.#o.channel, JSON.stringify(n))).then(() => {});
  }

  /** One command within the command timeout; any failure is `unavailable` / `store_unavailable`. */
  run<T>(fn: (c: RedisCommands) => Promise<T>, timeout = this.#o.commandTimeout): Promise<T> {
    if (this.#closed) return Promise.reject(unavailable("closed"));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      // After the poll phase that follows: a process that was busy past the timeout (timers
      // run before I/O) still reads the answer that came in meanwhile.
      timer = setTimeout(() => setImmediate(() => reject(unavailable("timeout"))), timeout);
    });
    let call: Promise<T>;
    try {
      call = fn(this.#client);
    } catch (err) {
      clearTimeout(timer);
      return Promise.reject(unavailable("error", err));
    }
    call.catch(() => {});
    return Promise.race([call, late])
      .catch((err) => {
        throw McpClientError.is(err, "unavailable") ? err : unavailable("error", err);
      })
      .finally(() => clearTimeout(timer));
  }

  /**
   * A string value, or undefined when there is none or it is longer than `maxValueBytes`
   * (reported as `value_rejected`). Fails as `run` does.
   */
  async read(store: string, key: string): Promise<string | undefined> {
    const v = await this.run((c) =>
      c.eval(GET_CAPPED, { keys: [key], arguments: [String(this.#o.maxValueBytes)] }),
    );
    if (v === -1) this.reject(store, "too_large");
    return typeof v === "string" ? v : undefined;
  }

  /** Reports a value left unused. */
  reject(store: string, why: "too_large" | "malformed"): void {
    this.emit({ type: "value_rejected", store, why });
  }

  /** Whether a value may be written (else reported as a write that failed, not retried). */
  fits(store: string, value: string): boolean {
    if (Buffer.byteLength(value) <= this.#o.maxValueBytes) return true;
    this.emit({ type: "write_failed", store, attempt: 0, retrying: false, error: "value too large" });
    return false;
  }

  /**
   * A write nobody waits for: tried now, and again with backoff while it fails (up to
   * `maxWriteRetries`), each failure and the recovery reported as events.
   */
  write(store: string, fn: (c: RedisCommands) => Promise<unknown>): void {
    if (this.#closed) return;
    if (this.#pending >= MAX_PENDING_WRITES) {
      this.emit({
        type: "write_failed",
        store,
        attempt: 0,
        retrying: false,
        error: "too many pending writes",
      });
      return;
    }
    this.#pending += 1;
    const attempt = (n: number): void => {
      this.run(fn).then(
        () => {
          this.#pending -= 1;
          if (n > 1) this.emit({ type: "write_recovered", store, attempts: n });
        },
        (err: unknown) => {
          const retrying = !this.#closed && n <= this.#o.maxWriteRetries;
          this.emit({ type: "write_failed", store, attempt: n, retrying, error: reasonOf(err) });
          if (!retrying) {
            this.#pending -= 1;
            return;
          }
          const t = setTimeout(
            () => {
              this.#timers.delete(t);
              attempt(n + 1);
            },
            Math.min(100 * 2 ** (n - 1), 5_000),
          );
          t.unref?.();
          this.#timers.add(t);
        },
      );
    };
    attempt(1);
  }

  /**
   * One filler per fleet: the release function when this caller took the claim `lock` (for
   * `ms`; the filler releases it when done, whatever happened); else waits until a notice that
   * `landed` says the filler's work is in, the lock is gone, or `ms` passed, and resolves null.
   * A Redis that fails makes everyone a filler (as without Redis).
   */
  async claim(lock: string, landed: (n: Notice) => boolean, ms: number): Promise<(() => void) | null> {
    const me = randomUUID();
    const release = () => {
      this.run((c) => c.eval(RELEASE, { keys: [lock], arguments: [me] })).catch(() => {});
    };
    const take = (timeout?: number) =>
      this.run((c) => c.set(lock, me, { expiration: { type: "PX", value: ms }, condition: "NX" }), timeout);
    let got: unknown;
    try {
      got = await take();
    } catch {
      // A slow Redis (a loaded host) is not a failed one: a timed-out SET may have landed, and a
      // caller that gave up here would fill too (a second probe at 16 workers). Ask once more,
      // longer; our own value in the lock means the first SET was ours.
      try {
        got = await take(4 * this.#o.commandTimeout);
        if (got !== "OK" && (await this.run((c) => c.get(lock))) === me) got = "OK";
      } catch {
        return () => {};
      }
    }
    if (got === "OK") return release;
    return new Promise<null>((resolve) => {
      const end = Date.now() + ms;
      let failed = 0;
      let poll: NodeJS.Timeout | undefined;
      const finish = () => {
        off();
        clearTimeout(poll);
        resolve(null);
      };
      const off = this.onNotice((n) => {
        if (landed(n)) finish();
      });
      const look = () => {
        if (Date.now() >= end) return finish();
        this.run((c) => c.get(lock)).then(
          (v) => {
            failed = 0;
            if (v === null) finish();
            else poll = setTimeout(look, 50);
          },
          // A poll that timed out says nothing of the filler: look again (a Redis that keeps
          // failing ends the wait: everyone fills, as without Redis).
          () => {
            if (++failed >= 3) finish();
            else poll = setTimeout(look, 50);
          },
        );
      };
      poll = setTimeout(look, 50);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#noticeListeners.clear();
    const end = async (c: RedisClientLike | undefined) => {
      if (!c) return;
      try {
        if (c.close) await c.close();
        else if (c.quit) await c.quit();
      } catch {
        c.destroy?.();
      }
    };
    await end(this.#sub);
    if (this.#owned) await end(this.#client);
  }
}

export function unavailable(why: string, cause?: unknown): McpClientError {
  return new McpClientError("unavailable", "store_unavailable", { store: "redis", why }, { cause });
}

function reasonOf(err: unknown): string {
  if (err instanceof McpClientError) {
    const data = err.data as { why?: string } | undefined;
    const cause = (err as { cause?: unknown }).cause;
    return `${err.reason}${data?.why ? ` (${data.why})` : ""}${cause instanceof Error ? `: ${cause.message}` : ""}`;
  }
  return err instanceof Error ? err.message : String(err);
}
