import type { ChildProcess } from "node:child_process";
import type { Writable } from "node:stream";
import { McpClientError } from "../shared/errors.js";
import { classifyMessage, type JsonRpcMessage, type RequestId } from "../shared/jsonrpc.js";
import { LineFramer, type LineSink } from "./line-framer.js";
import { groupAlive, signalGroup, trackGroup, untrackGroup, waitUntil } from "./process-group.js";
import { launcherHint, StderrTail } from "./server-exit.js";
import { StderrPassOn } from "./stderr-pass.js";
import {
  RESOLVED_STDIO,
  type ResolvedStdioOptions,
  resolveStdioOptions,
  type StdioTransportOptions,
} from "./stdio-options.js";
import { spawnServer } from "./stdio-spawn.js";
import type { Transport, TransportSink } from "./transport.js";

/**
 * A server spawned as a child process (never through a shell), speaking newline-delimited
 * JSON-RPC on stdin and stdout. Closing ends stdin, then signals the whole process group:
 * SIGTERM after `stdinGrace`, SIGKILL after `termGrace`.
 */
export class StdioTransport implements Transport {
  readonly kind = "stdio";
  readonly #o: ResolvedStdioOptions;
  #child: ChildProcess | undefined;
  #sink: TransportSink | undefined;
  #framer: LineFramer | undefined;
  #junk = 0;
  /** A JSON-RPC message came from this server: it started, whatever happens next. */
  #heard = false;
  /**
   * The newest lines of the server's stderr (when it is not a file), for `server_exited`, and
   * what passes it on ("inherit"): made once it writes there.
   */
  #stderrTail: StderrTail | undefined;
  #passOn: StderrPassOn | undefined;
  #running = false;
  #reported = false;
  #stopping: Promise<void> | undefined;
  #starting: Promise<void> | undefined;
  /** The server's stdin while it runs. */
  #stdin: Writable | undefined;
  /** Lines sent but not written yet (see `send`), and how many. */
  #out = "";
  #outLines = 0;
  /**
   * Lines written in this burst; 0: none. A burst ends when the pipe has taken its first write
   * (see `#write`): for a write it takes at once, that is on the next tick.
   */
  #burstLines = 0;
  /**
   * The bytes of the one string write the pipe has not taken beyond its UTF-16 units (Node counts
   * a string chunk in units: a CJK line is three bytes a unit), and the bytes written after it.
   * Strings are written only when the pipe holds nothing, so there is at most one; see `#held`.
   */
  #stringExtra = 0;
  #afterString = 0;

  constructor(options: StdioTransportOptions) {
    this.#o = RESOLVED_STDIO.has(options)
      ? (options as unknown as ResolvedStdioOptions)
      : resolveStdioOptions(options);
  }

  /** The server's pid while it runs (for diagnostics and tests). */
  get pid(): number | undefined {
    return this.#running ? this.#child?.pid : undefined;
  }

  start(sink: TransportSink): Promise<void> {
    if (this.#running || this.#starting) throw new McpClientError("transport", "already_started");
    this.#starting = this.#start(sink).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(sink: TransportSink): Promise<void> {
    if (this.#stopping) await this.#stopping;
    this.#sink = sink;
    this.#junk = 0;
    this.#heard = false;
    this.#out = "";
    this.#outLines = 0;
    this.#burstLines = 0;
    this.#stringExtra = 0;
    this.#afterString = 0;
    this.#reported = false;
    this.#stopping = undefined;

    const child = await spawnServer(this.#o);

    this.#child = child;
    this.#stdin = child.stdin!;
    this.#running = true;
    this.#stderrTail = undefined;
    this.#passOn = undefined;
    const pid = child.pid!;
    trackGroup(pid);
    this.#watch(child, pid);
    this.#framer = this.#makeFramer();
  }

  /**
   * The child's events. Its own method, so the listeners' closures share a context of only what
   * they use (one made in `#start` kept the whole start's context: ~300 B more per server, issue 26).
   */
  #watch(child: ChildProcess, pid: number): void {
    child.on("error", ignore); // a failed kill or write; 'close' reports the end
    child.stdin!.on("error", ignore); // EPIPE when the server is gone; 'close' reports it
    if (child.stderr) child.stderr.on("data", (chunk: Buffer) => this.#stderrData(child, chunk));
    // `on`, not `once`: each of these fires once anyway, and a `once` wrapper (its state, a bound
    // function) is ~200 B more per running server, held as long as the client is.
    child.on("close", (code: number | null, signal: NodeJS.Signals | null) => {
      CLOSED.add(child);
      // A server this transport already left (restarted since) ends late: not the running one's end.
      if (this.#child !== child) return;
      this.#running = false;
      this.#framer?.stop();
      if (!this.#stopping) {
        // The server went away on its own: take any stragglers of its group with it.
        this.#stopping = this.#reapGroup(pid);
        this.#report(this.#exitError(code, signal));
      }
    });
    child.on("exit", (code: number | null, signal: NodeJS.Signals | null) => {
      if (this.#stopping || this.#child !== child) return;
      // What it wrote before exiting is still read; a stdout that stays open after that is held
      // by a grandchild, and nothing more can come from the server itself.
      void raceTimeout(whenClosed(child), STDOUT_END_EXIT_WINDOW).then((closed) => {
        if (closed || this.#stopping || this.#child !== child) return;
        this.#running = false;
        this.#framer?.stop();
        this.#stopping = this.#reapGroup(pid).then(() => {
          if (!child.stdout?.closed) child.stdout?.destroy();
          if (!child.stderr?.closed) child.stderr?.destroy();
        });
        this.#report(this.#exitError(code, signal));
      });
    });
    // stdout ended while the server lives: it can never answer again. A failure now, then the
    // shutdown sequence (unless it is exiting anyway, which 'exit' reports).
    child.stdout!.on("end", () => {
      if (this.#stopping) return;
      void raceTimeout(whenExited(child), STDOUT_END_EXIT_WINDOW).then((exited) => {
        if (!exited && !this.#stopping) this.#fail(new McpClientError("transport", "stdout_closed"));
      });
    });
    child.stdout!.on("data", (chunk: Buffer) => this.#framer!.push(chunk));
  }

  /** The framer's sink: one small object whose methods reach the transport (no closures). */
  static readonly #Lines = class implements LineSink {
    readonly #t: StdioTransport;
    constructor(t: StdioTransport) {
      this.#t = t;
    }
    line(text: string): void {
      this.#t.#line(text);
    }
    overflow(): void {
      this.#t.#fail(new McpClientError("message_too_large", "line_over_max_message_bytes"));
    }
  };

  #makeFramer(): LineFramer {
    return new LineFramer(this.#o.maxMessageBytes, new StdioTransport.#Lines(this));
  }

  /**
   * What the server wrote to stderr: kept for the exit's message, and passed on when "inherit".
   * The tail and the pass-on are made on its first chunk: most servers never write there (~250 B
   * each otherwise, issue 26).
   */
  #stderrData(child: ChildProcess, chunk: Buffer): void {
    if (child !== this.#child) return; // a server of an earlier start, already replaced
    this.#stderrTail ??= new StderrTail();
    this.#stderrTail.push(chunk);
    if (this.#o.stderr !== "inherit") return;
    let passOn = this.#passOn;
    if (!passOn) {
      const made = new StderrPassOn(writeStderr);
      passOn = made;
      this.#passOn = made;
      child.stderr!.on("close", () => made.flush());
    }
    passOn.push(chunk);
  }

  send(message: JsonRpcMessage): void {
    const stdin = this.#stdin;
    if (!this.#running || !stdin || stdin.destroyed || stdin.writableEnded) {
      throw new McpClientError("transport", "not_connected");
    }
    const line = `${JSON.stringify(message)}\n`;
    // A server that stops reading stdin must not make us buffer without bound: what the pipe holds
    // and what waits for this burst's next write both count. Cheap check first: a UTF-8 byte is
    // at most 3 per UTF-16 unit.
    const limit = this.#o.maxWriteQueueBytes;
    if (stdin.writableLength + this.#stringExtra + (this.#out.length + line.length) * 3 > limit) {
      const queued = this.#held(stdin) + Buffer.byteLength(this.#out);
      if (queued + Buffer.byteLength(line) > limit) {
        throw new McpClientError("overloaded", "write_queue_full", { queuedBytes: queued, limit });
      }
    }
    this.#out += line;
    this.#outLines += 1;
    // The first line of a burst goes out at once, so the server starts on it while we make the
    // rest; then pieces that double (1, 2, 4, 8, 16, then 32 lines or 16 KiB each), so it keeps
    // having work without a write per message (one write per request was the biggest cost with
    // many in flight), and what is left goes when the burst ends. One write for the whole tick
    // left the server idle while we handled a read of answers, and us idle while it answered:
    // client and server took turns instead of working at the same time.
    if (
      this.#outLines > this.#burstLines ||
      this.#outLines >= PIECE_LINES ||
      this.#out.length >= PIECE_CHARS
    ) {
      this.#write(stdin);
    }
  }

  /**
   * Writes the lines not written yet, if the pipe is still open (a failure after a send reports
   * itself). The first write of a burst carries `#endBurst` as its callback: Node calls it on the
   * tick after a write the pipe took at once, from the tick it schedules for every such write
   * anyway (a tick of our own per burst cost more than the rest of the transport's send). A
   * write the pipe could not take at once keeps the burst open until it is taken, so the lines
   * sent meanwhile go in the growing pieces, and the rest when it ends.
   */
  #write(stdin = this.#stdin): void {
    const out = this.#out;
    const first = this.#burstLines === 0;
    this.#burstLines += this.#outLines;
    this.#out = "";
    this.#outLines = 0;
    if (out.length === 0 || !stdin || stdin.destroyed || stdin.writableEnded) return;
    if (stdin.writableLength === 0) {
      // The pipe holds nothing (the common case): the string goes as it is, and Node encodes it
      // straight into the pipe.
      if (first) stdin.write(out, this.#endBurst);
      else stdin.write(out);
      // Not taken at once: Node keeps the rest as bytes but counts the chunk in units.
      if (stdin.writableLength > 0) {
        this.#stringExtra = Buffer.byteLength(out) - out.length;
        this.#afterString = 0;
      }
      return;
    }
    // The pipe is backed up (a slow or stalled server): bytes, so that what waits is counted as
    // bytes, and so that Node writes the waiting chunks as they are when the pipe drains (waiting
    // strings are encoded into one new copy of them all).
    const bytes = Buffer.from(out, "utf8");
    if (first) stdin.write(bytes, this.#endBurst);
    else stdin.write(bytes);
    this.#afterString += bytes.length;
  }

  /**
   * Bytes written to stdin that the pipe has not taken. Chunks are taken in order, so while the
   * one string chunk is still held, everything written after it is too: the pipe holds more than
   * that only while it holds the string.
   */
  #held(stdin: Writable): number {
    const held = stdin.writableLength;
    if (this.#stringExtra !== 0 && held <= this.#afterString) this.#stringExtra = 0;
    return held + this.#stringExtra;
  }

  /** The pipe took a burst's first write (or failed it): the lines still held go now. */
  readonly #endBurst = (): void => {
    this.#burstLines = 0;
    if (this.#outLines > 0) this.#write();
  };

  async close(): Promise<void> {
    // Closed while spawning: let the spawn finish, then stop what it started.
    if (this.#starting) await this.#starting.catch(() => {});
    if (this.#running && !this.#stopping) this.#stopping = this.#stop();
    if (this.#stopping) await this.#stopping;
    await whenClosed(this.#child);
  }

  #line(line: string): void {
    if (line.length === 0 || (line.length < 3 && line.trim() === "")) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return this.#junkLine();
    }
    const cls = classifyMessage(parsed);
    if (cls === "invalid") return this.#junkLine();
    this.#junk = 0;
    if (cls === "malformed_response") {
      const id = (parsed as { id: RequestId }).id;
      return this.#sink?.fail(id, new McpClientError("protocol", "malformed_response"));
    }
    this.#heard = true;
    // The line is the message's whole text: the listing's fast path (TransportSink.message).
    this.#sink?.message(parsed as JsonRpcMessage, undefined, cls === "result" ? line : undefined);
  }

  /**
   * `server_exited`, with what the exit says: its code and signal, the last lines of stderr, and
   * for a launcher (`npx`, `uvx`) that exited before the server said anything, a hint.
   */
  #exitError(code: number | null, signal: NodeJS.Signals | null): McpClientError {
    const stderr = this.#stderrTail?.lines() ?? [];
    const hint = this.#heard ? undefined : launcherHint(this.#o.command);
    return new McpClientError("transport", "server_exited", {
      code,
      signal,
      ...(stderr.length > 0 ? { stderr } : {}),
      ...(hint ? { hint } : {}),
    });
  }

  #junkLine(): void {
    this.#junk += 1;
    if (this.#junk > this.#o.maxJunkLines) {
      this.#fail(new McpClientError("transport", "junk_output"));
    } else {
      this.#sink?.warn?.(
        `ignored a line on the server's stdout that is not JSON-RPC (${this.#junk} in a row)`,
      );
    }
  }

  /** A fault on our side of the pipe: report it now and stop the server in the background. */
  #fail(error: McpClientError): void {
    this.#framer?.stop();
    this.#report(error);
    if (!this.#stopping) this.#stopping = this.#stop();
  }

  #report(error?: McpClientError): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#sink?.closed(error);
  }

  async #stop(): Promise<void> {
    const child = this.#child!;
    const pid = child.pid!;
    const exitedWithin = (ms: number) => raceTimeout(whenExited(child), ms);
    this.#write(); // what was sent before close() goes out before stdin ends
    child.stdin?.end();
    if (!(await exitedWithin(this.#o.stdinGrace))) {
      signalGroup(pid, "SIGTERM");
      if (!(await exitedWithin(this.#o.termGrace))) {
        signalGroup(pid, "SIGKILL");
        await whenExited(child);
      }
    }
    await this.#reapGroup(pid);
    // stdout closes once no process holds it; everything in the group is gone by now.
    if (!(await raceTimeout(whenClosed(child), 1000))) {
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
    this.#report();
  }

  /** After the leader exits, grandchildren may remain in its group: TERM, then KILL. */
  async #reapGroup(pid: number): Promise<void> {
    if (groupAlive(pid)) {
      signalGroup(pid, "SIGTERM");
      if (!(await waitUntil(() => !groupAlive(pid), this.#o.termGrace))) signalGroup(pid, "SIGKILL");
      await waitUntil(() => !groupAlive(pid), 1000);
    }
    untrackGroup(pid);
  }
}

/**
 * The servers whose 'close' (exit and every stdio stream closed) has come. The two ends of a
 * server's life are waited for only when someone waits: two promises and their resolvers made
 * for every server were ~250 B each, held as long as it ran (issue 26).
 */
const CLOSED = new WeakSet<ChildProcess>();
const DONE: Promise<void> = Promise.resolve();

/** Resolves once `child` has exited (at once if it has, or if there is none). */
function whenExited(child: ChildProcess | undefined): Promise<void> {
  // Node sets these before it emits 'exit'.
  if (!child || child.exitCode !== null || child.signalCode !== null) return DONE;
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** Resolves once `child`'s 'close' has come (at once if it has, or if there is none). */
function whenClosed(child: ChildProcess | undefined): Promise<void> {
  if (!child || CLOSED.has(child)) return DONE;
  return new Promise((resolve) => child.once("close", () => resolve()));
}

/** The listener of errors that 'close' reports anyway: one function for every server. */
function ignore(): void {}

/** Passes a server's stderr text on to ours (one function for every server). */
function writeStderr(text: string | Buffer): void {
  if (process.stderr.writable) process.stderr.write(text);
}

/**
 * How long the two ends of a server's life may lie apart: stdout ending without the process
 * exiting (`stdout_closed`), or the process exiting while something else holds its stdout (a
 * grandchild: `server_exited` then, without waiting for the pipe).
 */
const STDOUT_END_EXIT_WINDOW = 100;

/** The most lines, and UTF-16 units, one write of a burst carries once the pieces stop doubling. */
const PIECE_LINES = 32;
const PIECE_CHARS = 16 * 1024;

/** Resolves true if `p` settles within `ms`, false otherwise; never leaves its timer behind. */
function raceTimeout(p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    // After a blocked loop the timer phase runs before the poll phase that would deliver an
    // already-pending 'exit' or 'close': decide only after that poll (setImmediate), so a busy
    // machine cannot turn a server that died into one that merely closed its stdout.
    const timer = setTimeout(() => setImmediate(() => resolve(false)), ms);
    p.then(
      () => {
        clearTimeout(timer);
        resolve(true);
      },
      () => {
        clearTimeout(timer);
        resolve(true);
      },
    );
  });
}
