import type { Session } from "../protocol/negotiator.js";
import { Deadline } from "../shared/deadline.js";
import type { JsonObject } from "../shared/guards.js";
import type { Budget } from "./budget.js";
import { withHeaderRefresh } from "./header-refresh.js";
import { type LoopRequest, requestWithInput } from "./input/mrtr.js";
import { NO_VIA, PromisedRequest, type RequestCore, type Via } from "./request-call.js";
import type { RequestOptions } from "./types.js";

export type { RequestCore as RequesterDeps, Via };

/** The methods whose result may be `input_required` (modern). */
export type InputMethod = "tools/call" | "resources/read" | "prompts/get";

/** What the input loop adds to a request: the rounds it counts, the result types it takes. */
export interface InputVia extends Via {
  /** Counts the requests sent (the `tool_call:stop` event's rounds). */
  rounds?: { count: number } | undefined;
  /** Extension result types the caller takes as they are (`"task"` when it declared tasks). */
  accept?: ReadonlySet<string> | undefined;
}

/**
 * How every request of the client goes out: one `Deadline` made from the caller's options where
 * the request starts (or handed down from where the call started); one request object the
 * connection keeps and settles (request-call.ts), which shapes the params for the era when they
 * are sent and is its own span's hook when OpenTelemetry is on. A plain tool call is its own
 * object of the same kind (tool-call-op.ts).
 */
export class Requester {
  /** Shared with the request objects, which read it, never change it. */
  readonly core: RequestCore;
  /** The client's `rateLimit`, when it has one. */
  budget: Budget | undefined;

  constructor(deps: RequestCore) {
    this.core = deps;
  }

  /** The deadline of a request that starts now: the caller's `timeout` and cap, else the client's. */
  deadline(opts: RequestOptions): Deadline {
    return new Deadline(
      opts.timeout ?? this.core.requestTimeout,
      opts.maxTotalTimeout ?? this.core.maxTotalTimeout,
    );
  }

  /**
   * One page of `tools/list` within a call's deadline (a header refresh relists with it; the
   * transport learns the tools' header annotations from the results passing through).
   */
  toolsPage(
    cursor: string | undefined,
    signal: AbortSignal | undefined,
    deadline: Deadline,
  ): Promise<JsonObject> {
    return this.request("tools/list", cursor === undefined ? {} : { cursor }, { signal }, { deadline });
  }

  /**
   * Sends one request within `via.deadline` (else one made now from `opts`). A method given as a
   * function of the session (ping) is resolved when it is sent.
   */
  request(
    method: string | ((s: Session) => string),
    params: JsonObject | undefined,
    opts: RequestOptions,
    via: Via = NO_VIA,
  ): Promise<JsonObject> {
    // The `rateLimit` (tool calls take their token where they start: not twice).
    if (this.budget !== undefined && method !== "tools/call")
      return this.#budgeted(method, params, opts, via);
    return new PromisedRequest(this.core, method, opts, via).start(params);
  }

  /** A request under the `rateLimit` (a method of its own: its closure costs nothing elsewhere). */
  #budgeted(
    method: string | ((s: Session) => string),
    params: JsonObject | undefined,
    opts: RequestOptions,
    via: Via,
  ): Promise<JsonObject> {
    const at = via.deadline === undefined ? { ...via, deadline: this.deadline(opts) } : via;
    const gate = this.budget!.admit(at.deadline!, opts.signal);
    if (gate !== undefined)
      return gate.then(() => new PromisedRequest(this.core, method, opts, at).start(params));
    return new PromisedRequest(this.core, method, opts, at).start(params);
  }

  /**
   * A request that may answer `input_required` (modern): the handler answers each round and the
   * request is sent again, within the one deadline. `via.rounds` counts the requests sent.
   */
  withInput(
    method: InputMethod,
    params: JsonObject,
    opts: RequestOptions,
    via: InputVia = NO_VIA,
  ): Promise<JsonObject> {
    const deadline = via.deadline ?? this.deadline(opts);
    const at: Via = { deadline, withTasks: via.withTasks, toolSpan: via.toolSpan };
    const { connection, toolHeaders } = this.core;
    const loop: LoopRequest = {
      accept: via.accept,
      params,
      opts,
      deadline,
      // A header mismatch relists and sends again (header-refresh.ts).
      send: (p) =>
        method === "tools/call" && toolHeaders
          ? withHeaderRefresh(
              () => connection.session?.era === "modern",
              () => this.request(method, p, opts, at),
              (cursor) => this.toolsPage(cursor, opts.signal, deadline),
            )
          : this.request(method, p, opts, at),
      rounds: via.rounds ?? { count: 0 },
    };
    return requestWithInput(this.core.input, loop);
  }
}
