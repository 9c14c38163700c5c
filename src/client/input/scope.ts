/**
 * What every way of answering server input shares for one client: its resolved options, who it
 * is (client, server, era), the input request budget, and the `ctx` its callbacks get. The legacy
 * dispatcher (legacy.ts) and the modern rounds (mrtr.ts) are given this; `InputService`
 * (service.ts) is the one kind of it, and adds the routing of what arrives.
 */
import { isObject } from "../../shared/guards.js";
import type { RequestId } from "../../shared/jsonrpc.js";
import type { Era } from "../../shared/versions.js";
import { TokenBucket } from "../../util/token-bucket.js";
import type { InputContext, ResolvedInputOptions } from "./options.js";

export interface InputServiceDeps {
  client: string;
  serverId: string;
  /** The negotiated era, or null before the first handshake. */
  era: () => Era | null;
  warn: (text: string) => void;
  /** Pauses the deadline of the client's request `id` until the returned function is called. */
  pauseDeadline: (id: RequestId) => () => void;
}

export class InputScope {
  readonly options: ResolvedInputOptions;
  readonly deps: InputServiceDeps;
  // Made on first use: a client whose server never asks for input keeps no budget (issue 12). A
  // budget made late starts full, as one made early and left idle would be.
  #bucket: TokenBucket | undefined;

  constructor(options: ResolvedInputOptions, deps: InputServiceDeps) {
    this.options = options;
    this.deps = deps;
  }

  /** Takes `n` input requests from this server's budget; false (nothing taken) when over it. */
  takeBudget(n: number): boolean {
    const rate = this.options.inputRateLimit;
    this.#bucket ??= new TokenBucket(rate.perSecond, rate.burst);
    return this.#bucket.take(n);
  }

  /** The `ctx` of an input callback. */
  context(
    era: Era,
    assigns: unknown,
    relatedRequestId: RequestId | null,
    signal: AbortSignal,
    extra: Partial<InputContext>,
  ): InputContext {
    return {
      client: this.deps.client,
      serverId: this.deps.serverId,
      era,
      assigns: isObject(assigns) ? assigns : this.options.assigns,
      relatedRequestId,
      signal,
      ...extra,
    };
  }
}
