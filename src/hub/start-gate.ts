/**
 * Bounded start concurrency: at most `startConcurrency` of the hub's stdio servers are starting at
 * once (spawned and not yet heard from), so a hub of a hundred `npx` servers does not start a
 * hundred package managers together. The others wait their turn before their process is spawned.
 */
import { McpClientError } from "../shared/errors.js";
import type { JsonRpcMessage } from "../shared/jsonrpc.js";
import { planTransport, type TransportPlan } from "../transport/factory.js";
import type { Transport, TransportSink } from "../transport/transport.js";

/** A counting semaphore in arrival order. */
export class StartGate {
  readonly #limit: number;
  readonly #waiting: Array<() => void> = [];
  #active = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /**
   * A turn: `turn` resolves with the release function once one is free; `cancel` rejects a turn
   * not yet given with `reason` (a turn already given is handed back by its release function).
   */
  acquire(): { turn: Promise<() => void>; cancel: (reason: unknown) => void } {
    let enter!: () => void;
    let refuse!: (reason: unknown) => void;
    const turn = new Promise<() => void>((resolve, reject) => {
      refuse = reject;
      enter = () => {
        this.#active += 1;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.#active -= 1;
          this.#waiting.shift()?.();
        });
      };
    });
    if (this.#active < this.#limit) enter();
    else this.#waiting.push(enter);
    const cancel = (reason: unknown) => {
      const at = this.#waiting.indexOf(enter);
      if (at < 0) return;
      this.#waiting.splice(at, 1);
      refuse(reason);
    };
    return { turn, cancel };
  }
}

/** One start of the gated transport: its turn, and the process it spawned once let in. */
interface Run {
  closed: boolean;
  inner: Transport | undefined;
  release: () => void;
  cancel: (reason: unknown) => void;
}

/**
 * A stdio transport option (`{ type: "stdio", ... }`) behind the gate; any other transport is
 * returned as it is. Each start spawns a new process, as the client's own stdio transport does.
 */
export function gatedTransport<T>(transport: T, gate: StartGate): T | Transport {
  const plain = transport as { type?: unknown } | null;
  if (typeof plain !== "object" || plain === null || plain.type !== "stdio") return transport;
  return new GatedStdio(planTransport(transport, "transport"), gate);
}

class GatedStdio implements Transport {
  readonly kind = "stdio";
  readonly #plan: TransportPlan;
  readonly #gate: StartGate;
  #run: Run | null = null;

  constructor(plan: TransportPlan, gate: StartGate) {
    this.#plan = plan;
    this.#gate = gate;
  }

  async start(sink: TransportSink): Promise<void> {
    const { turn, cancel } = this.#gate.acquire();
    const run: Run = { closed: false, inner: undefined, release: () => {}, cancel };
    this.#run = run;
    run.release = await turn;
    if (run.closed) {
      run.release();
      throw new McpClientError("closed", "client_closed");
    }
    const inner = this.#plan.make();
    run.inner = inner;
    try {
      await inner.start({
        ...sink,
        // The server has spoken: it is up, and the next one may start.
        message: (m, related, source) => {
          run.release();
          sink.message(m, related, source);
        },
        closed: (error) => {
          run.release();
          sink.closed(error);
        },
      });
    } catch (err) {
      run.release();
      throw err;
    }
    // Closed while it started: a rejection, so the attempt does not close this transport again
    // (by then it may be the next attempt's).
    if (run.closed) throw new McpClientError("closed", "client_closed");
  }

  /** The process id of the server now running, as the stdio transport tells it. */
  get pid(): number | undefined {
    return (this.#run?.inner as { pid?: number } | undefined)?.pid;
  }

  send(message: JsonRpcMessage): void | Promise<void> {
    const inner = this.#run?.inner;
    if (!inner) throw new McpClientError("transport", "not_connected");
    return inner.send(message);
  }

  close(): Promise<void> {
    const run = this.#run;
    if (!run) return Promise.resolve();
    this.#run = null;
    run.closed = true;
    run.cancel(new McpClientError("closed", "client_closed"));
    run.release();
    return run.inner?.close() ?? Promise.resolve();
  }
}
