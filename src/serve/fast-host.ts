/**
 * What the fast path (fast-call.ts) sends to the host during a call: progress and log entries,
 * and, for a 2025 host, the questions an `input_required` round carries, asked as real requests
 * (`elicitation/create`, `sampling/createMessage`, `roots/list`) as the SDK's legacy shim does,
 * then the handler entered again with the answers. Each transport says how a message reaches its
 * host (stdio-fast.ts: a line; http-fast.ts: an event on the POST's stream) and routes the host's
 * responses back through `Legs`.
 */

/** One call's way to its host. */
export interface HostLink {
  /** A notification about this call (progress, a log entry); never throws. */
  notify(message: { method: string; params?: Record<string, unknown> }): void;
  /** 2025 only: a request to the host; its result, or a rejection (error, timeout, abort). */
  request(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<unknown>;
}

/** Limits of the fast path's requests to a host; mutable for tests. */
export const FAST_LIMITS = {
  /** A host has this long to answer one question (serve's parked questions wait as long). */
  answerTimeout: 300_000,
  /** Rounds of questions in one call before it fails (as the SDK's legacy shim). */
  maxRounds: 8,
};

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/**
 * The requests one connection (stdio) or session (HTTP) has sent its host and awaits, by id. Ids
 * are strings of their own, so they never meet the SDK's numeric ones on the same stream.
 */
export class Legs {
  readonly #pending = new Map<string, Pending>();
  #next = 0;

  /**
   * Sends a request with `write` and waits for its answer; aborted or timed out, the host is
   * told with `notifications/cancelled` (through `write`) and the wait rejects.
   */
  send(
    frame: { method: string; params?: Record<string, unknown> | undefined },
    write: (message: Record<string, unknown>) => void,
    signal: AbortSignal,
  ): Promise<unknown> {
    const id = `conduit-${++this.#next}`;
    if (signal.aborted) return Promise.reject(new Error("cancelled"));
    return new Promise((resolve, reject) => {
      const end = (err: Error) => {
        if (!this.#pending.delete(id)) return;
        clean();
        write({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason: err.message },
        });
        reject(err);
      };
      const timer = setTimeout(
        () => end(new Error("the host did not answer in time")),
        FAST_LIMITS.answerTimeout,
      );
      const onAbort = () => end(signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
      const clean = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (v) => {
          clean();
          resolve(v);
        },
        reject: (e) => {
          clean();
          reject(e);
        },
      });
      write({ jsonrpc: "2.0", id, method: frame.method, ...(frame.params ? { params: frame.params } : {}) });
    });
  }

  /** A host's response: true when it answers one of these requests (else it is not ours). */
  settle(message: { id?: unknown; result?: unknown; error?: unknown } | null): boolean {
    if (typeof message?.id !== "string") return false;
    const p = this.#pending.get(message.id);
    if (!p) return false;
    this.#pending.delete(message.id);
    if (message.result !== undefined && typeof message.result === "object" && message.result !== null) {
      p.resolve(message.result);
    } else {
      const e = message.error as { message?: unknown } | undefined;
      p.reject(
        new Error(typeof e?.message === "string" ? e.message.slice(0, 500) : "the host answered an error"),
      );
    }
    return true;
  }

  /** The connection or session ended: every wait rejects. */
  close(): void {
    for (const p of this.#pending.values()) p.reject(new Error("the connection closed"));
    this.#pending.clear();
  }
}

/** What a 2025 host must have declared for one embedded request. */
function declares(
  caps: Record<string, unknown> | undefined,
  req: { method: string; params?: unknown },
): boolean {
  const c = caps ?? {};
  if (req.method === "sampling/createMessage") return isObject(c.sampling);
  if (req.method === "roots/list") return isObject(c.roots);
  if (req.method !== "elicitation/create" || !isObject(c.elicitation)) return false;
  const mode = isObject(req.params) ? req.params.mode : undefined;
  return mode === "url" ? isObject(c.elicitation.url) : true;
}

/** An `input_required` result as the handler returns it. */
export const isInputRequired = (v: unknown): v is Record<string, unknown> =>
  isObject(v) && v.resultType === "input_required";

export interface Round {
  /** The handler again, with this round's answers and state. */
  again: (
    inputResponses: Record<string, unknown> | undefined,
    requestState: string | undefined,
  ) => Promise<unknown>;
  /** Lets go of the upstream request a round left waiting (its question unanswered): cancels it. */
  release: (requestState: string | undefined) => void;
  host: HostLink;
  caps: Record<string, unknown> | undefined;
  signal: AbortSignal;
}

/**
 * A 2025 host's rounds (the SDK's legacy shim, on the fast path): each `input_required` result's
 * requests asked of the host at once, then the handler entered again with the answers, until a
 * result. A failed round is a tool error, as the shim answers it; a cancelled call rejects. Either
 * way the upstream request the round left waiting is cancelled (the SDK's shim leaves it parked).
 */
export async function fulfil(first: Record<string, unknown>, r: Round): Promise<unknown> {
  let current = first;
  for (let round = 1; ; round++) {
    if (round > FAST_LIMITS.maxRounds)
      return failure(`tools/call needed more than ${FAST_LIMITS.maxRounds} rounds of input`);
    const requests = isObject(current.inputRequests) ? current.inputRequests : {};
    const state = typeof current.requestState === "string" ? current.requestState : undefined;
    const entries = Object.entries(requests);
    if (entries.length === 0 && state === undefined)
      return failure("an input-required result with neither inputRequests nor requestState");
    let responses: Record<string, unknown> | undefined;
    if (entries.length > 0) {
      for (const [key, e] of entries) {
        if (!isObject(e) || typeof e.method !== "string" || !declares(r.caps, e as { method: string }))
          return failure(
            `Cannot request input '${key}': the client on this 2025-era connection did not declare the required capability`,
          );
      }
      const round = new AbortController();
      const stop = () => round.abort(r.signal.reason);
      r.signal.addEventListener("abort", stop, { once: true });
      try {
        const answers = await Promise.all(
          entries.map(async ([key, e]) => {
            const req = e as { method: string; params?: Record<string, unknown> };
            let params = req.params;
            // The 2025 URL mode needs an id the 2026 in-band shape has none of.
            if (
              req.method === "elicitation/create" &&
              params?.mode === "url" &&
              params.elicitationId === undefined
            )
              params = { ...params, elicitationId: crypto.randomUUID() };
            try {
              return [key, await r.host.request(req.method, params, round.signal)] as const;
            } catch (err) {
              round.abort(err);
              throw err;
            }
          }),
        );
        responses = Object.fromEntries(answers);
      } catch (err) {
        r.release(state);
        if (r.signal.aborted) throw err;
        return failure(`Fulfilling input required by 'tools/call' failed: ${(err as Error).message}`);
      } finally {
        r.signal.removeEventListener("abort", stop);
      }
    }
    const next = await r.again(responses, state);
    if (!isInputRequired(next)) return next;
    current = next;
  }
}

const failure = (text: string) => ({ content: [{ type: "text", text }], isError: true });

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
