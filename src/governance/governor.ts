import { type DenialDetail, type HookDetail, McpClientError } from "../shared/errors.js";
import { isObject } from "../shared/guards.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { Tool, ToolResult } from "../shared/tool.js";
import type { CallEvents, CallReport, CallTool, ToolCall } from "../shared/tool-call.js";
import { stableJson } from "../util/stable-json.js";
import {
  isToolResult,
  readApproval,
  readHookArguments,
  readOrNull,
  readToolResult,
  readVerdict,
} from "./answers.js";
import { bounded, pause } from "./bounded.js";
import { definitionOf, toolDigest } from "./digest.js";
import { type GrantStore, MemoryGrantStore } from "./grants.js";
import { isGrantStore, RESOLVED, type ResolvedGovernance, resolveGovernance } from "./options.js";
import { RulePolicy, type Verdict } from "./policy.js";
import { certainlyNotRun, retryAfterMs, retryableWhenIdempotent } from "./retries.js";
import { checkArguments } from "./schema-check.js";
import type { GovernanceOptions, HookCall, PolicyCall, PolicyVerdict, ToolDefinition } from "./types.js";

/** Where events go when the call names no sink (a call made by hand, not by a client or hub). */
const NO_EVENTS: CallEvents = { emit() {} };

/** The longest timer Node keeps (a lookup of a call with no timeout is bounded by it). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Governs every tool call that passes through it: hooks, policy, approvals pinned to the
 * definition, safe retries, post-hooks. Made once per `governance(options)` value; it knows
 * nothing of the client or the hub but the call it is handed (`ToolCall`: its tool source, its
 * event sink, its report) and the rest of the chain (`next`).
 */
export class Governor {
  readonly #g: ResolvedGovernance;
  /** The grants of calls that carry no store, when the options name none: this governor's life. */
  readonly #memory = new MemoryGrantStore();
  readonly #rules: RulePolicy | null;

  constructor(options: GovernanceOptions | ResolvedGovernance, path = "governance") {
    this.#g = isResolved(options) ? options : resolveGovernance(options, path);
    this.#rules = Array.isArray(this.#g.policy)
      ? new RulePolicy(this.#g.policy, this.#g.defaultDecision)
      : null;
  }

  /**
   * Governs one call; `next` makes one attempt. A `task: "return"` call is governed like any
   * other (policy, approval, hooks before it), except that with `afterCall` hooks it is refused:
   * the task handed back would escape them. THE place that rule is kept, as a rejection, so the
   * trace sees the call end like any failed one.
   */
  async run(call: ToolCall, next: CallTool): Promise<ToolResult> {
    if (call.task === "return" && this.#g.afterCall.length > 0) {
      throw new TypeError(
        'conduit-mcp: task: "return" would hand back a task that afterCall hooks never see',
      );
    }
    const total = call.timeout ?? Number.POSITIVE_INFINITY;
    const deadline = Date.now() + total;
    const report: CallReport = call.report ?? { attempts: 0, decision: null };
    report.attempts = 0; // nothing sent yet: a refused call made no attempt
    const events = call.events ?? NO_EVENTS;
    const toolName = sanitizeText(call.name, { maxLength: 128 });
    const tries: Tries = {
      serverId: call.serverId,
      toolName,
      left: () => deadline - Date.now(),
      signal: call.signal,
      made: 0,
      events,
      grants: this.#g.grants ?? (isGrantStore(call.grants) ? call.grants : this.#memory),
    };
    const tool = await this.#lookup(call, tries);
    if (!tool) throw new McpClientError("not_found", "unknown_tool");
    let hookCall: HookCall = {
      serverId: call.serverId,
      tool,
      arguments: call.arguments,
      principal: call.principal ?? null,
      context: Object.freeze({ ...(call.context ?? {}) }),
    };
    for (let i = 0; i < this.#g.beforeCall.length; i++) {
      hookCall = await this.#before(i, hookCall, tries);
    }
    const verdict = await this.#decide(hookCall, tries);
    report.decision = verdict.decision;
    const grant = verdict.decision === "ask" ? await this.#grant(hookCall, tries) : null;
    events.emit("policy:decision", () => ({
      serverId: call.serverId,
      toolName,
      decision: verdict.decision,
      rule: verdict.rule,
      cachedGrant: grant?.granted === true,
    }));
    if (grant && !grant.granted) await this.#ask(hookCall, verdict, grant, tries);
    if (verdict.decision === "deny") {
      throw denial("denied_by_policy", "policy", verdict.reason, verdict.rule);
    }
    const idempotent = call.retry === "idempotent" || verdict.retry === "idempotent";
    const result = await this.#attempts(call, hookCall.arguments, next, { ...tries, idempotent, report });
    let out: ToolResult = result;
    for (let i = 0; i < this.#g.afterCall.length; i++) out = await this.#after(i, hookCall, out, tries);
    return out;
  }

  /**
   * Whether this governor refuses every call of `tool` whatever its arguments: rules (which read
   * only the tool, its server and its hints) decide `deny` for it. Such a tool is hidden from
   * lists and searches (src/shared/visibility.ts). A policy function reads the arguments and the
   * context, so it hides nothing; `ask` hides nothing.
   */
  hides(serverId: string, tool: Tool): boolean {
    return this.#rules !== null && this.#rules.decide(serverId, tool).decision === "deny";
  }

  // ---- steps ---------------------------------------------------------------------------------

  /** One pre-hook: its call, checked, with changed arguments validated against the schema again. */
  async #before(index: number, call: HookCall, t: Tries): Promise<HookCall> {
    const hook = this.#g.beforeCall[index]!;
    // A copy: a hook that edits the arguments in place changes its copy, which is then checked.
    const given = Object.freeze({ ...call, arguments: copyOf(call.arguments) });
    const out = await this.#callback("before", index, () => hook(given), t);
    const args = readOrNull(() => readHookArguments(out, call));
    if (args === null) {
      hookFailed(t, { phase: "before", hook: index, problem: "malformed" });
      throw hookError("before", "malformed", index);
    }
    if (stableJson(args) !== stableJson(call.arguments)) {
      const check = await checkArguments(call.tool.inputSchema, args);
      if (check !== "ok") {
        const problem = check === "invalid" ? "invalid_arguments" : "schema_unusable";
        hookFailed(t, { phase: "before", hook: index, problem });
        throw hookError("before", problem, index);
      }
    }
    return { ...call, arguments: args };
  }

  /** One post-hook: its result must still be a result. */
  async #after(index: number, call: HookCall, result: ToolResult, t: Tries): Promise<ToolResult> {
    const hook = this.#g.afterCall[index]!;
    const out = await this.#callback("after", index, () => hook(call, result), t);
    const read = out === result ? result : readOrNull(() => readToolResult(out));
    if (read === null) {
      hookFailed(t, { phase: "after", hook: index, problem: "malformed" });
      throw hookError("after", "malformed", index);
    }
    return read;
  }

  /** The policy's verdict on the call as the hooks left it. */
  async #decide(call: HookCall, t: Tries): Promise<Verdict> {
    if (this.#rules) return this.#rules.decide(call.serverId, call.tool);
    const fn = this.#g.policy as (c: PolicyCall) => PolicyVerdict | Promise<PolicyVerdict>;
    const given = Object.freeze({ ...call, arguments: copyOf(call.arguments) });
    const out = await this.#callback("policy", 0, () => fn(given), t);
    const v = readOrNull(() => readVerdict(out));
    if (!v) {
      hookFailed(t, { phase: "policy", hook: 0, problem: "malformed" });
      throw hookError("policy", "malformed");
    }
    return v;
  }

  /** What an `ask` is about: the definition, its digest, and whether a remembered grant answers it. */
  async #grant(call: HookCall, t: Tries): Promise<Pending> {
    const definition = definitionOf(call.tool);
    const digest = toolDigest(definition);
    const key = { principal: call.principal, serverId: call.serverId, tool: call.tool.name, digest };
    const found = await this.#store(() => t.grants.get(key), t);
    return { key, definition, granted: found !== undefined };
  }

  /** Puts an `ask` to the approver; resolves when allowed, rejects `denied` (or `hook`) otherwise. */
  async #ask(call: HookCall, verdict: Verdict, p: Pending, t: Tries): Promise<void> {
    const { key, definition } = p;
    const store = t.grants;
    const approve = this.#g.approve;
    // Fail closed: a call that needs a person, and no one to ask.
    if (!approve) {
      throw denial("approval_required", "policy", verdict.reason, verdict.rule);
    }
    const before = await this.#store(() => store.latest(call.principal, call.serverId, call.tool.name), t);
    const previous =
      before && before.digest !== key.digest
        ? { digest: before.digest, definition: before.definition }
        : null;
    const request = Object.freeze({
      ...call,
      arguments: copyOf(call.arguments),
      digest: key.digest,
      definition,
      previous,
      reason: verdict.reason,
    });
    const answer: unknown = await this.#callback("approve", 0, () => approve(request), t);
    const approval = readOrNull(() => readApproval(answer));
    if (approval === null) {
      hookFailed(t, { phase: "approve", hook: 0, problem: "malformed" });
      throw hookError("approve", "malformed");
    }
    if ("deny" in approval) {
      throw denial("denied_by_approver", "approver", approval.deny, verdict.rule);
    }
    if (approval.allow === "session") {
      await this.#store(() => store.put({ ...key, definition, grantedAt: Date.now() }), t);
    }
  }

  /**
   * The tool's listed definition. A listing refused before it was sent (`overloaded`: the
   * client's `maxInFlight` or `maxQueued`) is asked for again under `retries`, as the call itself
   * would be: nothing ran. Each refusal is one of the call's attempts.
   */
  async #lookup(call: ToolCall, tries: Tries): Promise<Tool | undefined> {
    const source = call.tools;
    // Fail closed: a call that lost its tool source (an interceptor that built a call of its own).
    if (!source) throw new TypeError("conduit-mcp: governance needs the call's tool source (call.tools)");
    for (let n = 1; ; n++) {
      try {
        const timeout = Math.min(MAX_TIMER_MS, Math.max(1, tries.left()));
        return await source.find(call.name, { timeout, ...(call.signal ? { signal: call.signal } : {}) });
      } catch (err) {
        if (!(await this.#again(n, err, certainlyNotRun(err), tries))) throw err;
        tries.made = n;
      }
    }
  }

  /** The attempts, within the call's deadline; sent again only where the retry rule allows. */
  async #attempts(
    call: ToolCall,
    args: Record<string, unknown>,
    next: CallTool,
    o: Tries & { idempotent: boolean; report: CallReport },
  ): Promise<ToolResult> {
    const { attemptTimeout } = this.#g;
    for (let n = o.made + 1; ; n++) {
      const remaining = o.left();
      if (remaining <= 0) throw new McpClientError("timeout", "deadline_exceeded");
      o.report.attempts = n;
      let failure: unknown;
      let result: ToolResult | undefined;
      // Each attempt gets what is left of the call's one deadline (none given: the next step's own).
      const timeout = Math.min(remaining, attemptTimeout ?? remaining);
      const attempt = timeout === Number.POSITIVE_INFINITY ? call.timeout : timeout;
      try {
        result = await next({ ...call, arguments: args, timeout: attempt });
      } catch (err) {
        failure = err;
      }
      const again =
        failure === undefined
          ? o.idempotent && isToolResult(result) && result.isError
          : o.idempotent
            ? retryableWhenIdempotent(failure)
            : certainlyNotRun(failure);
      if (!(await this.#again(n, failure, again, o))) {
        if (failure !== undefined) throw failure;
        return result as ToolResult;
      }
    }
  }

  /**
   * After attempt `n` ended with `failure` (undefined: an `isError` result): whether to make
   * another. When so, `tool_call:retry` announces it and its backoff is waited out first.
   */
  async #again(n: number, failure: unknown, retryable: boolean, o: Tries): Promise<boolean> {
    // Retries count from 0, as the reconnect backoff's attempts do: 100 * 2 ** retry.
    const wait = retryAfterMs(failure) ?? this.#g.backoff(n - 1);
    if (!retryable || n >= this.#g.attempts || o.signal?.aborted || wait >= o.left()) return false;
    o.events.emit("tool_call:retry", () => ({
      serverId: o.serverId,
      toolName: o.toolName,
      attempt: n + 1,
      delay: wait,
      errorKind: failure instanceof McpClientError ? failure.kind : null,
      isError: failure === undefined ? true : null,
    }));
    await pause(wait, o.signal);
    return true;
  }

  /** A grant store operation (the application's code, maybe remote): bounded, failing closed. */
  async #store<T>(op: () => T | Promise<T>, t: Tries): Promise<T> {
    const outcome = await bounded(op, this.#g.hookTimeout);
    if (outcome.ok) return outcome.value;
    const problem = outcome.why === "timeout" ? "timeout" : "threw";
    hookFailed(t, { phase: "grants", hook: 0, problem });
    throw hookError("grants", problem);
  }

  /** Runs one application callback within `hookTimeout` and the call's deadline. */
  async #callback<T>(
    phase: "before" | "after" | "policy" | "approve",
    index: number,
    fn: () => T | Promise<T>,
    t: Tries,
  ): Promise<T> {
    const start = Date.now();
    const budget = Math.min(this.#g.hookTimeout, Math.max(1, t.left()));
    const outcome = await bounded(fn, budget, t.signal);
    const duration = Date.now() - start;
    if (outcome.ok) {
      t.events.emit("hook:stop", () => ({ phase, hook: index, duration }));
      return outcome.value;
    }
    if (outcome.why === "threw" && phase === "before" && readOrNull(() => refusal(outcome.error))) {
      // A pre-hook that refuses on purpose: a denial, with the hook's own (operator) reason.
      t.events.emit("hook:stop", () => ({ phase, hook: index, duration }));
      throw outcome.error;
    }
    const problem = outcome.why === "timeout" ? "timeout" : "threw";
    hookFailed(
      t,
      duration === undefined ? { phase, hook: index, problem } : { phase, hook: index, problem, duration },
    );
    if (problem === "timeout" && budget < this.#g.hookTimeout) {
      throw new McpClientError("timeout", "deadline_exceeded");
    }
    throw hookError(phase, problem, phaseIndexed(phase) ? index : undefined);
  }
}

/** What `hook:exception` says of a callback that failed: its phase, its index, the problem. */
interface HookFailure {
  phase: string;
  hook: number;
  problem: string;
  duration?: number;
}

function hookFailed(t: Tries, failure: HookFailure): void {
  t.events.emit("hook:exception", () => ({ ...failure }));
}

/** Refuses a call from a `beforeCall` hook: the call fails with `kind: "denied"` and this reason. */
export function refuse(reason: string): McpClientError {
  return denial("denied_by_hook", "hook", reason, null);
}

/** One call's attempts so far (`made`), and what their retries are announced and timed with. */
interface Tries {
  serverId: string;
  toolName: string;
  left: () => number;
  signal?: AbortSignal | undefined;
  made: number;
  events: CallEvents;
  /** Where this call's grants live: the `grants` option, the call's store, or this governor's own. */
  grants: GrantStore;
}

/** What an `ask` is about (see `#grant`). */
interface Pending {
  key: { principal: string | null; serverId: string; tool: string; digest: string };
  definition: ToolDefinition;
  granted: boolean;
}

/** A deep copy of arguments, so no callback can change, in place, what another checked. */
function copyOf(args: Record<string, unknown>): Record<string, unknown> {
  try {
    return structuredClone(args);
  } catch {
    throw new TypeError(
      "conduit-mcp: tool arguments must be plain JSON data (a function or symbol cannot be sent)",
    );
  }
}

function phaseIndexed(phase: string): boolean {
  return phase === "before" || phase === "after";
}

/** A refusal: the code says which, `detail` who refused, the rule and the operator's words. */
function denial(
  code: "denied_by_policy" | "approval_required" | "denied_by_approver" | "denied_by_hook",
  by: DenialDetail["by"],
  reason: string | null,
  rule: number | null,
): McpClientError {
  const detail: DenialDetail = { by };
  if (rule !== null) detail.rule = rule;
  if (reason) detail.reason = sanitizeText(reason, { maxLength: 120 });
  return new McpClientError("denied", code, undefined, { detail });
}

/** A governance callback that failed: `reason` the problem, `detail` where. */
function hookError(
  phase: HookDetail["phase"],
  problem: "threw" | "timeout" | "malformed" | "invalid_arguments" | "schema_unusable",
  hook?: number,
): McpClientError {
  return new McpClientError("hook", problem, undefined, {
    detail: hook === undefined ? { phase } : { phase, hook },
  });
}

/** A before-hook's deliberate refusal (`refuse()`): a `denied` error. */
function refusal(err: unknown): boolean {
  return McpClientError.is(err, "denied");
}

function isResolved(o: unknown): o is ResolvedGovernance {
  return isObject(o) && (o as { [RESOLVED]?: unknown })[RESOLVED] === true;
}
