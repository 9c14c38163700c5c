/**
 * Answering server input for one client: the pieces both eras share (options, declared
 * capabilities, the input request budget, the callback contexts) and the three ways input
 * arrives: legacy server requests (legacy.ts), modern `input_required` rounds (mrtr.ts), and
 * notifications and logs (queue.ts).
 */
import type { ServerRequestInfo } from "../../connection/types.js";
import { isObject, type JsonObject } from "../../shared/guards.js";
import type { JsonRpcRequest, RequestId } from "../../shared/jsonrpc.js";
import { sanitizeText } from "../../shared/sanitize.js";
import type { Era } from "../../shared/versions.js";
import { TokenBucket } from "../../util/token-bucket.js";
import { legacyCapabilities, modernCapabilities } from "./capabilities.js";
import { LegacyDispatcher } from "./legacy.js";
import type { InputContext, NotificationContext, ResolvedInputOptions } from "./options.js";
import { NotificationQueue } from "./queue.js";

export interface InputServiceDeps {
  client: string;
  serverId: string;
  /** The negotiated era, or null before the first handshake. */
  era: () => Era | null;
  warn: (text: string) => void;
  /** Pauses the deadline of the client's request `id` until the returned function is called. */
  pauseDeadline: (id: RequestId) => () => void;
}

export class InputService {
  readonly options: ResolvedInputOptions;
  readonly deps: InputServiceDeps;
  readonly #legacyCaps: JsonObject;
  readonly #modernCaps: JsonObject;
  // Made on first use: a client whose server never asks for input or sends the handler anything
  // keeps no budget, queue or dispatcher (~0.6 KB per client, issue 12). A budget made late
  // starts full, as one made early and left idle would be.
  #bucket: TokenBucket | undefined;
  #queue: NotificationQueue | undefined;
  #legacy: LegacyDispatcher | undefined;

  constructor(options: ResolvedInputOptions, deps: InputServiceDeps) {
    this.options = options;
    this.deps = deps;
    this.#legacyCaps = legacyCapabilities(options);
    this.#modernCaps = modernCapabilities(options);
  }

  /** Capabilities for `initialize`. */
  legacyCapabilities(): JsonObject {
    return this.#legacyCaps;
  }

  /** Capabilities for a modern request's `_meta` (the same object every time; never mutate it). */
  modernCapabilities(): JsonObject {
    return this.#modernCaps;
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

  // ---- legacy server requests ------------------------------------------------------------------

  /** A legacy server request other than ping: sampling, elicitation or roots. */
  serverRequest(m: JsonRpcRequest, info: ServerRequestInfo): Promise<JsonObject> {
    this.#legacy ??= new LegacyDispatcher(this);
    return this.#legacy.handle(m, info);
  }

  /** The server's `notifications/cancelled`: aborts the callback answering that request. */
  cancelled(params: JsonObject | undefined): void {
    const id = params?.requestId;
    if (typeof id === "string" || typeof id === "number") this.#legacy?.cancel(id);
  }

  /** The connection went away: every callback answering a server request is aborted. */
  connectionLost(): void {
    this.#legacy?.abortAll();
  }

  /** Callbacks answering legacy server requests right now. */
  get serverRequestsRunning(): number {
    return this.#legacy?.running ?? 0;
  }

  // ---- notifications and logs ------------------------------------------------------------------

  /** True when the handler takes notifications or logs. */
  get takesNotifications(): boolean {
    const h = this.options.handler;
    return typeof h.notification === "function" || typeof h.log === "function";
  }

  /**
   * One delivered notification (already sanitised; a log entry already carries only `level`,
   * `logger` and `data`). Queued for the handler's `notification` or `log` callback.
   */
  deliver(n: { method: string; params: JsonObject | undefined }): void {
    const h = this.options.handler;
    const isLog = n.method === "notifications/message";
    if (isLog ? typeof h.log !== "function" : typeof h.notification !== "function") return;
    const ctx: NotificationContext = {
      client: this.deps.client,
      serverId: this.deps.serverId,
      era: this.deps.era(),
    };
    const params = n.params ?? {};
    const warn = this.deps.warn;
    this.#queue ??= new NotificationQueue({
      onError: (err) => warn(`a notification or log callback threw: ${describe(err)}`),
      onDrop: () => warn("more than 1000 notifications wait for the handler: new ones are dropped"),
    });
    this.#queue.push(() =>
      isLog
        ? h.log!(typeof params.level === "string" ? params.level : "info", params, ctx)
        : h.notification!(n.method, params, ctx),
    );
  }
}

/** A thrown value as one safe line for a log. */
export function describe(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return sanitizeText(text, { maxLength: 300 });
}
