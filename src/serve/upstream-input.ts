/**
 * Elicitation and sampling asked by an upstream server during a call, forwarded to the host. The
 * host is asked the 2026-07-28 way whatever its era (the SDK asks a 2025 host with a request): the
 * downstream call answers `input_required` while the upstream call waits ("parked", found again
 * by an unguessable id in `requestState`), and the host's retry hands its answer to the upstream
 * server and waits for the next question or the result.
 *
 * The upstream's clients need `serveInputHandler()` as their `handler`; a host that did not
 * declare the capability gets nothing forwarded (elicitation declined, sampling refused).
 */
import { randomUUID } from "node:crypto";
import type { InputHandler } from "../client/input/options.js";
import type { JsonObject } from "../shared/guards.js";

/** The key of a call's `assigns` that ties upstream input to its downstream call. */
const KEY = "conduitServeInput";
/** A host has this long to answer before the upstream call's question is declined. */
const ANSWER_TIMEOUT = 300_000;
/** Calls waiting for a host's answer at once; beyond, questions are declined. */
const MAX_PARKED = 256;

interface Question {
  method: "elicitation/create" | "sampling/createMessage";
  params: JsonObject;
  answer: (response: JsonObject) => void;
}

/** One downstream call's link to the input its upstream call asks for. */
export class InputLink {
  readonly canElicit: boolean;
  readonly canSample: boolean;
  #waiting: ((q: Question) => void) | null = null;
  #queued: Question[] = [];

  constructor(caps: { elicitation: boolean; sampling: boolean }) {
    this.canElicit = caps.elicitation;
    this.canSample = caps.sampling;
  }

  /** For the call's `assigns`. */
  assigns(): Record<string, unknown> {
    return { [KEY]: this };
  }

  ask(method: Question["method"], params: JsonObject, signal: AbortSignal): Promise<JsonObject> {
    return new Promise((resolve, reject) => {
      const q: Question = { method, params, answer: resolve };
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      const w = this.#waiting;
      if (w) {
        this.#waiting = null;
        w(q);
      } else this.#queued.push(q);
    });
  }

  /** The next question, when one comes before `done` settles. */
  next(): Promise<Question> {
    const q = this.#queued.shift();
    if (q) return Promise.resolve(q);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** The host's new capabilities for this round (a retry may declare differently). */
  withCaps(caps: { elicitation: boolean; sampling: boolean }): InputLink {
    (this as { canElicit: boolean }).canElicit = caps.elicitation;
    (this as { canSample: boolean }).canSample = caps.sampling;
    return this;
  }
}

/**
 * The `handler` to give the hub's (or the client's) options so that upstream servers' elicitation
 * and sampling reach the host through `serve`. Calls not made by serve are declined.
 */
export function serveInputHandler(): InputHandler {
  const link = (assigns: Record<string, unknown>) => {
    const l = assigns[KEY];
    return l instanceof InputLink ? l : null;
  };
  return {
    elicitationModes: ["form"],
    async elicitation(params, ctx) {
      const l = link(ctx.assigns);
      if (!l?.canElicit) return { action: "decline" };
      return l.ask("elicitation/create", params, ctx.signal);
    },
    async sampling(params, ctx) {
      const l = link(ctx.assigns);
      if (!l?.canSample) return { error: { code: -1, message: "The host cannot sample" } };
      return l.ask("sampling/createMessage", params, ctx.signal);
    },
  };
}

/** A call waiting for the host, found again by its id. */
interface Parked<T> {
  principal: string | null;
  link: InputLink;
  done: Promise<T>;
  question: Question;
  timer: NodeJS.Timeout;
  abort: AbortController;
}

/** What one round of a downstream call came to. */
export type Round<T> = { kind: "done"; value: T } | { kind: "ask"; id: string; question: Question };

export class ParkedCalls<T> {
  readonly #parked = new Map<string, Parked<T>>();

  /** Waits for the call to end, or for its next question (then parks it). */
  async race(
    done: Promise<T>,
    link: InputLink,
    p: { principal: string | null; abort: AbortController },
  ): Promise<Round<T>> {
    const settled = done.then(
      (value) => ({ kind: "done" as const, value }),
      (err: unknown) => ({ kind: "failed" as const, err }),
    );
    const first = await Promise.race([settled, link.next().then((q) => ({ kind: "q" as const, q }))]);
    if (first.kind === "done") return first;
    if (first.kind === "failed") throw first.err;
    if (this.#parked.size >= MAX_PARKED) {
      first.q.answer(first.q.method === "elicitation/create" ? { action: "decline" } : { error: "busy" });
      return this.race(done, link, p);
    }
    const id = randomUUID();
    const timer = setTimeout(() => this.drop(id), ANSWER_TIMEOUT);
    timer.unref();
    this.#parked.set(id, { principal: p.principal, link, done, question: first.q, timer, abort: p.abort });
    return { kind: "ask", id, question: first.q };
  }

  /** Takes a parked call back for the host's answer; undefined for an unknown id or another principal. */
  take(id: string, principal: string | null): Parked<T> | undefined {
    const parked = this.#parked.get(id);
    if (!parked || parked.principal !== principal) return undefined;
    this.#parked.delete(id);
    clearTimeout(parked.timer);
    return parked;
  }

  /** A host that never answers: the upstream call is cancelled. */
  drop(id: string): void {
    const parked = this.#parked.get(id);
    if (!parked) return;
    this.#parked.delete(id);
    parked.abort.abort(new Error("the host did not answer"));
  }

  get size(): number {
    return this.#parked.size;
  }

  close(): void {
    for (const id of [...this.#parked.keys()]) this.drop(id);
  }
}
