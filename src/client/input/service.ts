/**
 * Answering server input for one client: the pieces both eras share (options, the input request
 * budget and the callback contexts in scope.ts; the declared capabilities here) and the three
 * ways input arrives: legacy server requests (legacy.ts), modern `input_required` rounds
 * (mrtr.ts), and notifications and logs (queue.ts).
 */
import type { ServerRequestInfo } from "../../connection/types.js";
import type { JsonObject } from "../../shared/guards.js";
import type { JsonRpcRequest } from "../../shared/jsonrpc.js";
import { legacyCapabilities, modernCapabilities } from "./capabilities.js";
import { describe } from "./invoke.js";
import { LegacyDispatcher } from "./legacy.js";
import type { NotificationContext, ResolvedInputOptions } from "./options.js";
import { NotificationQueue } from "./queue.js";
import { InputScope, type InputServiceDeps } from "./scope.js";

export class InputService extends InputScope {
  readonly #legacyCaps: JsonObject;
  readonly #modernCaps: JsonObject;
  // Made on first use: a client whose server never asks for input or sends the handler anything
  // keeps no queue or dispatcher (~0.6 KB per client, issue 12).
  #queue: NotificationQueue | undefined;
  #legacy: LegacyDispatcher | undefined;

  constructor(options: ResolvedInputOptions, deps: InputServiceDeps) {
    super(options, deps);
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
    const warn = (text: string) => this.deps.warn(text);
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
