/**
 * Elicitation, sampling and roots asked by an upstream server during a request, forwarded to the
 * host. The host is asked the 2026-07-28 way whatever its era (the SDK asks a 2025 host with a
 * request): the downstream request answers `input_required` while the upstream request waits
 * (upstream-rounds.ts), and the host's retry hands its answer to the upstream server. Each
 * question keeps the upstream's own `inputRequests` key (`upstream` for a 2025 upstream's request).
 *
 * The upstream's clients need `serveInputHandler()` as their `handler`; a host that did not
 * declare the capability gets nothing forwarded (elicitation declined, sampling and roots refused).
 * URL-mode elicitation is forwarded as is (serve never opens a URL) to a host that declared it.
 */
import type { InputHandler } from "../client/input/options.js";
import type { JsonObject } from "../shared/guards.js";
import type { ProgressParams } from "../shared/request-options.js";

/** The key of a call's `assigns` that ties upstream input to its downstream request. */
const KEY = "conduitServeInput";
/** The `inputRequests` key of a question that came with none (a 2025 upstream's request). */
export const UPSTREAM_KEY = "upstream";

/** What the host of this round declared. */
export interface HostCaps {
  elicitation: boolean;
  /** URL-mode elicitation (`elicitation.url`). */
  url: boolean;
  sampling: boolean;
  roots: boolean;
}

export interface Question {
  key: string;
  method: "elicitation/create" | "sampling/createMessage" | "roots/list";
  params: JsonObject;
  answer: (response: JsonObject) => void;
}

/** One downstream request's link to the input its upstream request asks for. */
export class InputLink {
  #caps: HostCaps;
  #progress: ((p: ProgressParams) => void) | null;
  #waiting: ((q: Question) => void) | null = null;
  #queued: Question[] = [];

  constructor(caps: HostCaps, progress: ((p: ProgressParams) => void) | null = null) {
    this.#caps = caps;
    this.#progress = progress;
  }

  get caps(): HostCaps {
    return this.#caps;
  }

  /** For the call's `assigns`. */
  assigns(): Record<string, unknown> {
    return { [KEY]: this };
  }

  /** The host's request of this round carries a progress token (else nothing takes progress). */
  get hearsProgress(): boolean {
    return this.#progress !== null;
  }

  /** Upstream progress, to the host's request of the current round (a retry brings its own token). */
  progress(p: ProgressParams): void {
    this.#progress?.(p);
  }

  ask(q: Omit<Question, "answer">, signal: AbortSignal): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      const full: Question = { ...q, answer: resolve };
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      const w = this.#waiting;
      if (w) {
        this.#waiting = null;
        w(full);
      } else this.#queued.push(full);
    });
  }

  /** The next question, when one comes before the request settles. */
  next(): Promise<Question> {
    const q = this.#queued.shift();
    if (q) return Promise.resolve(q);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** A retry's round: its host's capabilities (a retry may declare differently) and progress sink. */
  adopt(round: InputLink): InputLink {
    this.#caps = round.#caps;
    this.#progress = round.#progress;
    return this;
  }
}

/** The answer to a question the host cannot or did not answer. */
export function unanswered(method: Question["method"], why: string): JsonObject {
  return method === "elicitation/create" ? { action: "decline" } : { error: { code: -1, message: why } };
}

/**
 * The `handler` to give the hub's (or the client's) options so that upstream servers' elicitation,
 * sampling and roots requests reach the host through `serve`. Requests not made by serve are
 * declined (roots outside a request too: several hosts may share one upstream connection).
 */
export function serveInputHandler(): InputHandler {
  const link = (assigns: Record<string, unknown>) => {
    const l = assigns[KEY];
    return l instanceof InputLink ? l : null;
  };
  return {
    elicitationModes: ["form", "url"],
    async elicitation(params, ctx) {
      const l = link(ctx.assigns);
      const can = ctx.mode === "url" ? l?.caps.url : l?.caps.elicitation;
      if (!l || !can) return { action: "decline" };
      return l.ask({ key: ctx.key ?? UPSTREAM_KEY, method: "elicitation/create", params }, ctx.signal);
    },
    async sampling(params, ctx) {
      const l = link(ctx.assigns);
      if (!l?.caps.sampling) return { error: { code: -1, message: "The host cannot sample" } };
      return l.ask({ key: ctx.key ?? UPSTREAM_KEY, method: "sampling/createMessage", params }, ctx.signal);
    },
    async listRoots(ctx) {
      const l = link(ctx.assigns);
      if (!l?.caps.roots) return { error: { code: -32601, message: "The host declared no roots" } };
      return l.ask({ key: ctx.key ?? UPSTREAM_KEY, method: "roots/list", params: {} }, ctx.signal);
    },
  };
}
