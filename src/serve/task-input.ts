/**
 * What an upstream task asks while it runs (elicitation, sampling, roots), kept for the host that
 * made it: serve's wait for the task answers the upstream through a link of its own, and each
 * question waits here, under a key unique over the task's life, until the host answers it (a
 * 2026-07-28 host: `inputRequests` in `tasks/get`, answered by `tasks/update`; a 2025 host: asked
 * during its `tasks/result`). A host that did not declare the capability is never asked
 * (`serveInputHandler` declines for it, as for a plain call).
 */
import type { JsonObject } from "../shared/guards.js";
import { type HostCaps, InputLink, type Question } from "./upstream-input.js";

/** Questions a task may have waiting at once; beyond, the upstream's next ones are declined. */
const MAX_WAITING = 16;

export class TaskInput {
  readonly link: InputLink;
  readonly #waiting = new Map<string, Question>();
  readonly #used = new Set<string>();
  #wake: (() => void) | null = null;
  /** Told when the questions waiting change (the task's status for the host moves). */
  changed: () => void = () => {};

  constructor(caps: HostCaps) {
    this.link = new InputLink(caps);
    void this.#pump();
  }

  /** Takes each question the upstream asks through the link (pending forever once the task is done: no timer). */
  async #pump(): Promise<void> {
    for (;;) {
      const q = await this.link.next();
      if (this.#waiting.size >= MAX_WAITING) {
        q.answer(
          q.method === "elicitation/create"
            ? { action: "decline" }
            : { error: { code: -1, message: "too many questions" } },
        );
        continue;
      }
      // Keys are unique over the task's life (the extension's rule): a reused one gets a suffix.
      let key = q.key;
      for (let n = 2; this.#used.has(key); n++) key = `${q.key}#${n}`;
      this.#used.add(key);
      this.#waiting.set(key, q);
      const wake = this.#wake;
      this.#wake = null;
      wake?.();
      this.changed();
    }
  }

  /** The questions waiting for the host, as `inputRequests`; null when none. */
  requests(): Record<string, { method: string; params: JsonObject }> | null {
    if (this.#waiting.size === 0) return null;
    const out: Record<string, { method: string; params: JsonObject }> = {};
    for (const [key, q] of this.#waiting) out[key] = { method: q.method, params: q.params };
    return out;
  }

  /** The host's answers (`inputResponses`); keys unknown or already answered are ignored. */
  answer(responses: unknown): void {
    if (typeof responses !== "object" || responses === null || Array.isArray(responses)) return;
    let answered = false;
    for (const [key, response] of Object.entries(responses)) {
      const q = this.#waiting.get(key);
      if (!q || typeof response !== "object" || response === null || Array.isArray(response)) continue;
      this.#waiting.delete(key);
      q.answer(response as JsonObject);
      answered = true;
    }
    if (answered) this.changed();
  }

  /** Resolves when a question arrives (at once when one waits). */
  next(): Promise<void> {
    if (this.#waiting.size > 0) return Promise.resolve();
    return new Promise((resolve) => {
      const before = this.#wake;
      this.#wake = () => {
        before?.();
        resolve();
      };
    });
  }
}
