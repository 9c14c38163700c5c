/**
 * The rounds of one downstream request whose upstream request asks the host something
 * (`tools/call`, `prompts/get`, `resources/read`: the requests 2026-07-28 lets answer
 * `input_required`). A round ends with the result, or with the upstream's next question: then
 * the upstream request keeps running, "parked" under an unguessable id that the downstream
 * `requestState` carries, and the host's retry hands its answer over and waits for what comes next.
 */
import { randomUUID } from "node:crypto";
import type { JsonObject } from "../shared/guards.js";
import { type InputLink, type Question, unanswered } from "./upstream-input.js";

/** A host has this long to answer before the upstream request is cancelled. */
const ANSWER_TIMEOUT = 300_000;
/** Requests waiting for a host's answer at once; beyond, questions are declined. */
const MAX_PARKED = 256;

/** A request waiting for the host, found again by its id. */
interface Parked {
  /** The downstream method: a retry of another method does not take it. */
  method: string;
  principal: string | null;
  link: InputLink;
  done: Promise<unknown>;
  question: Question;
  timer: NodeJS.Timeout;
  abort: AbortController;
}

/** What one round of a downstream request came to. */
export type Round<T> =
  | { kind: "done"; value: T }
  | { kind: "input"; id: string; key: string; method: string; params: JsonObject }
  /** A retry naming no parked request of this caller and method (gone, answered, timed out). */
  | { kind: "unknown" };

export interface RoundSpec<T> {
  method: string;
  principal: string | null;
  /** This round's link: the host's capabilities and progress sink. */
  link: InputLink;
  /** This round's downstream signal: the host cancelling it cancels the upstream request. */
  signal: AbortSignal;
  /** A retry: the parked id from `requestState` and the host's `inputResponses`. */
  resume?: { id: string; responses: Record<string, unknown> | undefined } | undefined;
  /** The upstream request, started on the first round. */
  start: (link: InputLink, signal: AbortSignal) => Promise<T>;
}

/** Whether an upstream question could reach this link's host (serveInputHandler declines the rest). */
const asksAnything = (link: InputLink) =>
  link.caps.elicitation || link.caps.url || link.caps.sampling || link.caps.roots;

export class Rounds {
  readonly #parked = new Map<string, Parked>();

  async run<T>(s: RoundSpec<T>): Promise<Round<T>> {
    let done: Promise<T>;
    let abort: AbortController;
    let link = s.link;
    if (s.resume) {
      const parked = this.#take(s.resume.id, s);
      if (!parked) return { kind: "unknown" };
      const r = s.resume.responses?.[parked.question.key];
      parked.question.answer(
        typeof r === "object" && r !== null && !Array.isArray(r)
          ? (r as JsonObject)
          : parked.question.method === "elicitation/create"
            ? { action: "cancel" }
            : unanswered(parked.question.method, "no answer"),
      );
      done = parked.done as Promise<T>;
      abort = parked.abort;
      link = parked.link.adopt(s.link);
    } else if (!asksAnything(link)) {
      // A host that declared nothing it could be asked never gets a question: no round can park,
      // so the request runs on the host's own signal, without a controller or a race (serve-hop).
      return { kind: "done", value: await s.start(link, s.signal) };
    } else {
      abort = new AbortController();
      done = s.start(link, abort.signal);
    }
    const cancel = () => abort.abort(s.signal.reason);
    s.signal.addEventListener("abort", cancel, { once: true });
    if (s.signal.aborted) cancel();
    try {
      return await this.#race(done, link, { method: s.method, principal: s.principal, abort });
    } finally {
      s.signal.removeEventListener("abort", cancel);
    }
  }

  /** Waits for the request to end, or for its next question (then parks it). */
  async #race<T>(
    done: Promise<T>,
    link: InputLink,
    p: { method: string; principal: string | null; abort: AbortController },
  ): Promise<Round<T>> {
    const settled = done.then(
      (value) => ({ kind: "done" as const, value }),
      (err: unknown) => ({ kind: "failed" as const, err }),
    );
    for (;;) {
      const first = await Promise.race([settled, link.next().then((q) => ({ kind: "q" as const, q }))]);
      if (first.kind === "done") return first;
      if (first.kind === "failed") throw first.err;
      if (this.#parked.size >= MAX_PARKED) {
        first.q.answer(unanswered(first.q.method, "busy"));
        continue;
      }
      const id = randomUUID();
      const timer = setTimeout(() => this.drop(id), ANSWER_TIMEOUT);
      timer.unref();
      this.#parked.set(id, { ...p, link, done, question: first.q, timer });
      const { key, method, params } = first.q;
      return { kind: "input", id, key, method, params };
    }
  }

  #take(id: string, s: { method: string; principal: string | null }): Parked | undefined {
    const parked = this.#parked.get(id);
    if (!parked || parked.principal !== s.principal || parked.method !== s.method) return undefined;
    this.#parked.delete(id);
    clearTimeout(parked.timer);
    return parked;
  }

  /** A host that never answers: the upstream request is cancelled. */
  drop(id: string): void {
    const parked = this.#parked.get(id);
    if (!parked) return;
    this.#parked.delete(id);
    clearTimeout(parked.timer);
    parked.abort.abort(new Error("the host did not answer"));
  }

  get size(): number {
    return this.#parked.size;
  }

  close(): void {
    for (const id of [...this.#parked.keys()]) this.drop(id);
  }
}
