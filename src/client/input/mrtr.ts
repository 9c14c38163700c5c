/**
 * Modern era: the multi round-trip loop. `tools/call`, `resources/read` and `prompts/get` may
 * answer `resultType: "input_required"`; the client answers each input request with the
 * handler's callbacks, in the caller's context and one after another, then sends the original
 * request again as a new request (new id, same params) with `inputResponses` keyed as asked and
 * `requestState` echoed byte for byte. The whole loop shares the caller's one deadline and
 * signal. Interim results are never returned.
 *
 * How each failure surfaces:
 * - the server broke the protocol (an input request it may not send: a capability or mode not
 *   declared, `tools` in sampling without `sampling.tools`, malformed params, a URL or schema the
 *   client refuses): `kind: "protocol"`, with the reason the legacy era would answer with and
 *   `data: { key, method, code }`;
 * - the input request budget is spent: `kind: "rate_limited"`, reason `input_rate_limit`;
 * - a cap (8 rounds, 16 input requests in a round, 64 KiB of `requestState`): `mrtr_round_limit`;
 * - a callback threw, refused, ran past its `handlerTimeout`, or answered what the spec does not
 *   allow: `kind: "input_handler"`;
 * - the caller's deadline passed: `timeout`; the caller's signal fired: its reason.
 */
import { type Deadline, timerFor } from "../../shared/deadline.js";
import { McpClientError } from "../../shared/errors.js";
import { isObject, type JsonObject } from "../../shared/guards.js";
import { isUnsafeKey, setOwn } from "../../shared/keys.js";
import type { RequestOptions } from "../types.js";
import { runCallback } from "./invoke.js";
import { asInputRefusal, call } from "./legacy.js";
import { checkAnswer, isRefusal, type Prepared, prepareInput } from "./safety.js";
import type { InputService } from "./service.js";

export const MRTR_LIMITS = {
  /** Requests one call may send (the first included). */
  rounds: 8,
  /** Input requests in one `input_required` result. */
  inputRequests: 16,
  /** `requestState` size, in UTF-8 bytes. */
  requestStateBytes: 64 * 1024,
} as const;

/** The methods whose result may be `input_required`. */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  "tools/call",
  "resources/read",
  "prompts/get",
]);

export interface LoopRequest {
  params: JsonObject;
  /** The caller's options, checked. */
  opts: RequestOptions;
  /**
   * The call's one deadline, made where it started: every round is sent within it, progress that
   * restarts the timeout moves it (the connection extends it), and nothing passes its cap.
   */
  deadline: Deadline;
  /** Sends one round (one request, one `request` span) with these params, within the deadline. */
  send: (params: JsonObject) => Promise<JsonObject>;
  /** Counts the rounds sent, for the `tool_call:stop` event. */
  rounds: { count: number };
  /** Extension result types the caller takes as they are (`"task"` when it declared tasks). */
  accept?: ReadonlySet<string>;
}

/** Runs the loop to a complete result. */
export async function requestWithInput(svc: InputService, req: LoopRequest): Promise<JsonObject> {
  // What later rounds add (the answers, the state); the first round sends the params as they are
  // (the params builder copies them before adding `_meta`).
  let extra: JsonObject | undefined;
  for (;;) {
    beginRound(req.deadline, req.rounds);
    const result = await req.send(extra === undefined ? req.params : { ...req.params, ...extra });
    if (isFinal(result, req.accept)) return result;
    extra = await nextRound(svc, req, result);
  }
}

/** Before each round is sent: the call's deadline must not have passed; the round is counted. */
export function beginRound(deadline: Deadline, rounds: { count: number }): void {
  if (deadline.expired()) throw new McpClientError("timeout", "deadline_exceeded");
  rounds.count += 1;
}

/**
 * Whether a round's result ends the loop: complete (or a result type the caller takes). False
 * for `input_required`; any other type is invalid.
 */
export function isFinal(result: JsonObject, accept: ReadonlySet<string> | undefined): boolean {
  const type = result.resultType ?? "complete";
  if (type === "complete" || (typeof type === "string" && accept?.has(type))) return true;
  if (type !== "input_required") throw new McpClientError("protocol", "invalid_result_type");
  return false;
}

/** Where a call's rounds stand: its options, its one deadline, the rounds sent. */
export type RoundState = Pick<LoopRequest, "opts" | "deadline" | "rounds">;

/** What the next round adds to the params, for an `input_required` result: the answers, the state. */
export async function nextRound(svc: InputService, req: RoundState, result: JsonObject): Promise<JsonObject> {
  if (svc.deps.era() !== "modern") throw new McpClientError("protocol", "unexpected_input_required");
  const { inputRequests, requestState } = result;
  if (
    (inputRequests !== undefined && !isObject(inputRequests)) ||
    (requestState !== undefined && typeof requestState !== "string") ||
    (inputRequests === undefined && requestState === undefined)
  ) {
    throw new McpClientError("protocol", "invalid_input_required");
  }
  if (req.rounds.count >= MRTR_LIMITS.rounds) {
    throw new McpClientError("mrtr_round_limit", "max_rounds", { limit: MRTR_LIMITS.rounds });
  }
  const keys = inputRequests ? Object.keys(inputRequests) : [];
  // The answers go back keyed as asked: a key no object can hold as data is refused.
  if (keys.some(isUnsafeKey)) throw new McpClientError("protocol", "invalid_input_request_key");
  if (keys.length > MRTR_LIMITS.inputRequests) {
    throw new McpClientError("mrtr_round_limit", "max_input_requests", {
      limit: MRTR_LIMITS.inputRequests,
    });
  }
  if (requestState !== undefined && Buffer.byteLength(requestState, "utf8") > MRTR_LIMITS.requestStateBytes) {
    throw new McpClientError("mrtr_round_limit", "max_request_state", {
      limit: MRTR_LIMITS.requestStateBytes,
    });
  }
  const extra: JsonObject = {};
  if (keys.length > 0) {
    extra.inputResponses = await answerRound(svc, inputRequests as JsonObject, keys, req);
  }
  if (requestState !== undefined) extra.requestState = requestState;
  return extra;
}

/** Checks every input request of a round, then answers them all at once. */
export async function answerRound(
  svc: InputService,
  inputRequests: JsonObject,
  keys: string[],
  call: Pick<RoundState, "opts" | "deadline">,
): Promise<JsonObject> {
  const { opts, deadline } = call;
  const prepared: Array<[string, Prepared]> = [];
  for (const key of keys) {
    const entry = inputRequests[key];
    if (!isObject(entry) || typeof entry.method !== "string") {
      throw new McpClientError("protocol", "invalid_input_request", { key });
    }
    const p = prepareInput(svc.options, entry.method, entry.params);
    if (isRefusal(p)) {
      svc.deps.warn(`refused ${entry.method} from server "${svc.deps.serverId}" (${p.reason})`);
      throw new McpClientError("protocol", p.reason, {
        key,
        method: entry.method,
        code: p.code,
        message: p.message,
      });
    }
    prepared.push([key, p]);
  }
  if (!svc.takeBudget(keys.length)) {
    svc.deps.warn(`refused input requests from server "${svc.deps.serverId}": over the input request budget`);
    throw new McpClientError("rate_limited", "input_rate_limit");
  }

  // One signal for the round: the caller's signal, or the call's deadline.
  const call$ = new AbortController();
  const onCaller = () => call$.abort(opts.signal!.reason);
  opts.signal?.addEventListener("abort", onCaller, { once: true });
  if (opts.signal?.aborted) onCaller();
  const timer = timerFor(deadline.remaining(), () =>
    call$.abort(new McpClientError("timeout", "deadline_exceeded")),
  );
  try {
    // The round's requests are asked at once (they are simultaneous: a task's `inputRequests`
    // may be answered one key at a time, so a handler in front of a host, as serve's is, shows
    // the host all of them); the first failure stops the others.
    const answers = await Promise.all(
      prepared.map(([key, p]) =>
        answerOne(svc, p, opts, { key, parent: call$.signal }).catch((err: unknown) => {
          call$.abort(err);
          throw err;
        }),
      ),
    );
    const responses: JsonObject = {};
    for (const [i, [key]] of prepared.entries()) setOwn(responses, key, answers[i]);
    return responses;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener("abort", onCaller);
  }
}

/** Answers input request `at.key` with its callback, within the round's signal (`at.parent`). */
async function answerOne(
  svc: InputService,
  p: Prepared,
  opts: RequestOptions,
  at: { key: string; parent: AbortSignal },
): Promise<JsonObject> {
  const { key, parent } = at;
  const controller = new AbortController();
  const ctx = svc.context("modern", opts.assigns, null, controller.signal, { ...p.extra, key });
  const outcome = await runCallback(
    () => call(svc, p, ctx),
    controller,
    svc.options.handlerTimeout[p.kind],
    parent,
  );
  const data = { key, method: p.method };
  switch (outcome.status) {
    case "aborted":
      throw outcome.reason;
    case "timeout":
      throw new McpClientError("input_handler", "handler_timeout", data);
    case "threw":
      throw new McpClientError("input_handler", "handler_threw", data, { cause: outcome.error });
    case "ok": {
      const refused = asInputRefusal(outcome.value);
      if (refused)
        throw new McpClientError("input_handler", "handler_refused", { ...data, ...refused.error });
      const checked = checkAnswer(p, outcome.value);
      if (isRefusal(checked)) {
        throw new McpClientError("input_handler", checked.reason, { ...data, message: checked.message });
      }
      if (checked.dropped)
        svc.deps.warn(`${checked.dropped} root(s) left out: only local file:// URIs are sent`);
      return checked.result;
    }
  }
}
