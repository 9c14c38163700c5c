/**
 * `conduit-mcp watch`: one connection kept open, and a line for everything the server says and
 * every change of the connection, until interrupted. Human lines are `time method summary`
 * (server text sanitised); with --json each line is one JSON object (JSON Lines).
 *
 * Unlike the other commands the client reconnects on its own (the library's reconnects, with a
 * short backoff), so a server restart is a few `state` lines, not the end of the watch.
 */

import {
  type Client,
  type JsonObject,
  type LogLevel,
  McpClientError,
  type TransitionEvent,
} from "../../index.js";
import { fullJitter } from "../../shared/backoff.js";
import type { Clock, Span } from "../clock.js";
import { EXIT, type Output, PROGRAM } from "../common.js";
import { Failure } from "../failure.js";
import { DEFAULT_LOG_LEVEL, type Invocation } from "../invocation.js";
import { jsonDocument } from "../render.js";
import type { CommandOf, Context, StayingCommand } from "./command.js";
import { listTemplates } from "./listing.js";
import {
  errorJson,
  inline,
  type Line,
  type ListDiff,
  type ListName,
  lineJson,
  renderLine,
} from "./watch-lines.js";

type WatchCommand = CommandOf<"watch">;

const LIST_CHANGED: Record<string, ListName> = {
  "notifications/tools/list_changed": "tools",
  "notifications/resources/list_changed": "resources",
  "notifications/prompts/list_changed": "prompts",
};

const DEFINITION_CHANGED = "conduit-mcp/tool_definition_changed";

/** Reconnect delays: full jitter up to 5 s, so a restarted server is found again quickly. */
export const WATCH_BACKOFF = { base: 250, cap: 5_000 } as const;

export const watch: StayingCommand<WatchCommand> = {
  stays: true,
  clientOptions: (command) => ({
    // The library's default is to reconnect forever; only the delays are shortened.
    backoff: (attempt) => fullJitter(attempt, WATCH_BACKOFF),
    // A server that went away and came back is only noticed when the client talks to it; over
    // legacy HTTP the event stream ends quietly (the session is gone) and nothing else would.
    ...(command.healthCheck > 0 ? { healthCheckInterval: command.healthCheck } : {}),
  }),
  client: (client, ctx) => new Watch(client, ctx).run(),
};

class Watch {
  readonly #client: Client;
  readonly #inv: Invocation;
  readonly #command: WatchCommand;
  readonly #out: Output;
  readonly #clock: Clock;
  /** The span the start (handshake, log level, listings, subscriptions) shares. */
  readonly #span: Span;
  readonly #signal: AbortSignal | undefined;
  /** Lines are written in the order their causes arrived, even when one waits for a listing. */
  #tail: Promise<void> = Promise.resolve();
  /** Set once the start line is queued: state changes are reported from then on. */
  #started = false;
  /** Set when the watch ends: nothing more is written. */
  #stopped = false;
  readonly #known = new Map<ListName, Set<string>>();
  #logLevel: LogLevel | null = null;
  /** Why the last connection attempt failed, as the state change reported it. */
  #lastFailure: string | null = null;
  #finish: (code: number) => void = () => {};
  #fail: (failure: Failure) => void = () => {};

  constructor(client: Client, ctx: Context<WatchCommand>) {
    this.#client = client;
    this.#inv = ctx.inv;
    this.#command = ctx.command;
    this.#out = ctx.out;
    this.#clock = ctx.clock;
    this.#span = ctx.span;
    this.#signal = ctx.signal;
  }

  /** Resolves with exit 0 when interrupted; rejects with the `Failure` that ended the watch. */
  async run(): Promise<number> {
    const client = this.#client;
    const signal = this.#signal;
    const done = new Promise<number>((resolve, reject) => {
      this.#finish = (code) => {
        this.#stopped = true;
        resolve(code);
      };
      this.#fail = (failure) => {
        this.#stopped = true;
        reject(failure);
      };
    });
    // An interrupt is how a watch normally ends: exit 0.
    const onAbort = () => this.#finish(EXIT.ok);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();

    // Listening before the handshake, so nothing said during the start is missed; those lines
    // are queued behind the start line.
    const stopNotifications = client.onNotification((n) => this.#onNotification(n.method, n.params ?? null));
    const stopStates = client.onStateChange((event) => this.#onStateChange(event));
    this.#enqueue(async () => {
      try {
        return await this.#start();
      } catch (err) {
        if (!this.#stopped) this.#fail(this.#failure(err));
        return [];
      }
    });
    try {
      return await done;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      stopNotifications();
      stopStates();
    }
  }

  /** The handshake, the log level, the first listings and the subscriptions; then the start line. */
  async #start(): Promise<Line[]> {
    const client = this.#client;
    const options = () => ({ timeout: this.#span.left() });
    await client.ready(options());
    const description = client.serverInfo();
    await this.#applyLogLevel(options(), true);
    const lists = await Promise.all(
      (["tools", "resources", "prompts"] as const).map(async (list) =>
        this.#offers(list) ? await this.#fetch(list, options()) : null,
      ),
    );
    for (const uri of this.#command.subscribe) await client.subscribe(uri, options());
    const [tools, resources, prompts] = lists;
    this.#started = true;
    return [
      {
        time: new Date(),
        type: "ready",
        era: description.era,
        version: description.version,
        serverInfo: (description.serverInfo as JsonObject | null) ?? null,
        tools: tools ?? null,
        resources: resources ?? null,
        prompts: prompts ?? null,
        subscribed: this.#command.subscribe,
        logLevel: this.#logLevel,
      },
    ];
  }

  /**
   * Sets the server's log level: always in the modern era (the level rides on each request), in
   * the legacy era only when the server declares logging. A level given with --log-level that
   * cannot be sent is worth a warning; the default is not.
   */
  async #applyLogLevel(options: { timeout: number }, first: boolean): Promise<void> {
    const client = this.#client;
    const level = this.#command.logLevel ?? DEFAULT_LOG_LEVEL;
    const description = client.serverInfo();
    if (description.era === "legacy" && description.capabilities.logging === undefined) {
      if (first && this.#command.logLevel !== null) {
        this.#out.stderr(`${PROGRAM}: warning: the server does no logging; --log-level was not sent\n`);
      }
      return;
    }
    await client.setLogLevel(level, options);
    this.#logLevel = level;
  }

  /** Whether the server advertises a list (listing one it does not would be `-32601`). */
  #offers(list: ListName): boolean {
    const capabilities = this.#client.serverInfo().capabilities;
    return typeof capabilities[list] === "object" && capabilities[list] !== null;
  }

  /**
   * Lists one list (through the client's cache, which a list_changed has marked stale) and
   * returns its names: tool and prompt names, resource URIs and resource template URI templates.
   */
  async #fetch(list: ListName, options: { timeout: number }): Promise<string[]> {
    const client = this.#client;
    let names: string[];
    if (list === "tools") names = (await client.listAllTools(options)).map((t) => t.name);
    else if (list === "prompts") names = (await client.listAllPrompts(options)).map((p) => p.name);
    else {
      const [resources, templates] = await Promise.all([
        client.listAllResources(options),
        listTemplates(client, { ...options, signal: undefined }),
      ]);
      names = [...resources.map((r) => r.uri), ...templates.map((t) => t.uriTemplate)];
    }
    const now = [...new Set(names)];
    this.#known.set(list, new Set(now));
    return now;
  }

  #onNotification(method: string, params: JsonObject | null): void {
    if (this.#stopped) return;
    const time = new Date();
    const list = LIST_CHANGED[method];
    if (list) {
      this.#enqueue(async () => {
        try {
          return [{ time, type: "list_changed", method, ...(await this.#listDiff(list)) }];
        } catch (err) {
          const count = this.#known.get(list)?.size ?? 0;
          return [
            {
              time,
              type: "list_changed",
              method,
              list,
              added: [],
              removed: [],
              count,
              error: errorJson(err),
            },
          ];
        }
      });
      return;
    }
    if (method === DEFINITION_CHANGED) {
      const name = typeof params?.name === "string" ? params.name : "?";
      const message = `the definition of tool ${JSON.stringify(name)} changed; review it before trusting it again`;
      this.#enqueue(async () => [{ time, type: "warning", method, params, message }]);
      return;
    }
    this.#enqueue(async () => [{ time, type: "notification", method, params }]);
  }

  /** A list listed again, and how its names changed. */
  async #listDiff(list: ListName): Promise<ListDiff> {
    const before = new Set(this.#known.get(list) ?? []);
    const now = await this.#fetch(list, { timeout: this.#clock.timeout });
    const after = new Set(now);
    return {
      list,
      added: now.filter((name) => !before.has(name)),
      removed: [...before].filter((name) => !after.has(name)),
      count: now.length,
    };
  }

  #onStateChange(event: TransitionEvent): void {
    if (this.#stopped) return;
    if (event.to === "reconnecting" && event.reason) this.#lastFailure = event.reason;
    if (!this.#started) {
      // Before the start line: each failed attempt on stderr as it happens, not silence until
      // --timeout runs out.
      if (event.to === "reconnecting") {
        const why = event.reason ? `: ${inline(event.reason)}` : "";
        this.#out.stderr(`${PROGRAM}: connection attempt ${event.attempt} failed${why}; trying again\n`);
      }
      return;
    }
    const time = new Date();
    const { from, to, reason, attempt } = event;
    this.#enqueue(async () => [{ time, type: "state", from, to, reason, attempt }]);
    if (to === "ready") this.#enqueue(() => this.#resync());
    if (to === "closed") {
      // Only the library closes a watch's client on its own: when no retry can mend the failure.
      this.#enqueue(async () => {
        if (!this.#stopped) {
          const status = this.#client.status();
          this.#fail(this.#failure(new McpClientError("closed", status.reason)));
        }
        return [];
      });
    }
  }

  /**
   * After a reconnect: the lists again, since changes made while the server was away were never
   * announced. (The client itself sends the log level and the subscriptions to the new server.)
   */
  async #resync(): Promise<Line[]> {
    const lines: Line[] = [];
    try {
      for (const list of this.#known.keys()) {
        const diff = await this.#listDiff(list);
        if (diff.added.length > 0 || diff.removed.length > 0)
          lines.push({ time: new Date(), type: "resync", ...diff });
      }
    } catch (err) {
      // The connection went again; the next `ready` tries again.
      if (!this.#stopped) {
        this.#out.stderr(
          `${PROGRAM}: warning: could not catch up after reconnecting: ${errorJson(err).message}\n`,
        );
      }
    }
    return lines;
  }

  #enqueue(task: () => Promise<Line[]>): void {
    this.#tail = this.#tail
      .then(task)
      .then((lines) => {
        for (const line of lines) this.#write(line);
      })
      .catch((err: unknown) => {
        // A bug, whatever it threw: reported as an internal error.
        if (!this.#stopped)
          this.#fail(new Failure(err instanceof McpClientError ? new Error(err.message) : err));
      });
  }

  #write(line: Line): void {
    if (this.#stopped) return;
    this.#out.stdout(this.#inv.json ? jsonDocument(lineJson(line)) : `${renderLine(line)}\n`);
  }

  /** An error that ends the watch, with what the watch knows about it. */
  #failure(err: unknown): Failure {
    if (!(err instanceof McpClientError)) return new Failure(err);
    // Still connecting when time ran out: say what the last failed attempt ran into (the
    // current status may already be the next attempt's, which has no reason yet).
    const last = err.reason === "not_ready" ? this.#lastFailure : null;
    return new Failure(err, {
      phase: this.#started ? "request" : "handshake",
      ...(last ? { extra: `last attempt: ${last}` } : {}),
    });
  }
}
