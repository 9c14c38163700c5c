import type { Tool, ToolResult } from "../client/types.js";
import { type DenialDetail, type HookDetail, McpClientError } from "../shared/errors.js";
import { isObject } from "../shared/guards.js";
import { sanitizeText } from "../shared/sanitize.js";
import type { EventName } from "../telemetry/events.js";
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
import { RESOLVED, type ResolvedGovernance, resolveGovernance } from "./options.js";
import { RulePolicy, type Verdict } from "./policy.js";
import { certainlyNotRun, retryAfterMs, retryableWhenIdempotent } from "./retries.js";
import { checkArguments } from "./schema-check.js";
import type {
  Decision,
  GovernanceOptions,
  HookCall,
  PolicyCall,
  PolicyVerdict,
  ToolDefinition,
} from "./types.js";

/** One call as the governor is handed it. */
export interface GovernedCall {
  serverId: string;
  /** The tool's name on its server (a hub passes the server's name, not the qualified one). */
  name: string;
  arguments: Record<string, unknown>;
  principal: string | null;
  context: Readonly<Record<string, unknown>>;
  /** `"idempotent"`: the caller opts this call in to being sent again (see the retry rule). */
  retry: "idempotent" | null;
  /** The call's one deadline (ms from now): hooks, approval and every attempt share it. */
  timeout: number;
  signal?: AbortSignal;
  /** The tool's listed definition, or undefined when it is not listed (the call is refused). */
  lookup: (options: { timeout: number; signal?: AbortSignal }) => Promise<Tool | undefined>;
}

/** Facts for the `tool_call:stop` event, filled in as the governor goes. */
export interface GovernedStats {
  attempts: number;
  decision: Decision | null;
}

/** One attempt: the arguments as hooks left them, and the time this attempt may take. */
export type Send<R> = (
  args: Record<string, unknown>,
  attempt: { timeout: number; number: number },
) => Promise<R>;

/** Where the governor's events go (a client's telemetry, or a hub's). */
export interface GovernorEvents {
  emit(name: EventName, fields?: () => Record<string, unknown>): void;
}

/**
 * Governs every tool call that passes through it: hooks, policy, approvals pinned to the
 * definition, safe retries, post-hooks. Used by `Client` (one server) and the hub (many) alike;
 * it knows nothing of either but the `send` it is handed.
 */
export class Governor {
  readonly #g: ResolvedGovernance;
  readonly #rules: RulePolicy | null;
  readonly #events: GovernorEvents;

  constructor(options: GovernanceOptions | ResolvedGovernance, events: GovernorEvents, path = "governance") {
    this.#g = isResolved(options) ? options : resolveGovernance(options, path);
    this.#rules = Array.isArray(this.#g.policy)
      ? new RulePolicy(this.#g.policy, this.#g.defaultDecision)
      : null;
    this.#events = events;
  }

  /** Whether after-hooks are set (a task handed back would escape them). */
  get hasAfterHooks(): boolean {
    return this.#g.afterCall.length > 0;
  }

  /** Governs one call; `send` makes one attempt. A result that is not a `ToolResult` (a task) passes as is. */
  async run<R>(
    call: GovernedCall,
    send: Send<R>,
    stats: GovernedStats = { attempts: 0, decision: null },
  ): Promise<R> {
    const deadline = Date.now() + call.timeout;
    const left = () => deadline - Date.now();
    stats.attempts = 0; // nothing sent yet: a refused call made no attempt
    const toolName = sanitizeText(call.name, { maxLength: 128 });
    const tries: Tries = { serverId: call.serverId, toolName, left, signal: call.signal, made: 0 };
    const tool = await this.#lookup(call, tries);
    if (!tool) throw new McpClientError("not_found", "unknown_tool");
    let hookCall: HookCall = {
      serverId: call.serverId,
      tool,
      arguments: call.arguments,
      principal: call.principal,
      context: call.context,
    };
    for (let i = 0; i < this.#g.beforeCall.length; i++) {
      hookCall = await this.#before(i, hookCall, left, call.signal);
    }
    const verdict = await this.#decide(hookCall, left, call.signal);
    stats.decision = verdict.decision;
    const grant = verdict.decision === "ask" ? await this.#grant(hookCall) : null;
    this.#events.emit("policy:decision", () => ({
      serverId: call.serverId,
      toolName,
      decision: verdict.decision,
      rule: verdict.rule,
      cachedGrant: grant?.granted === true,
    }));
    if (grant && !grant.granted) await this.#ask(hookCall, verdict, grant, left, call.signal);
    if (verdict.decision === "deny") {
      throw denial("denied_by_policy", "policy", verdict.reason, verdict.rule);
    }
    const idempotent = call.retry === "idempotent" || verdict.retry === "idempotent";
    const result = await this.#attempts(hookCall.arguments, send, { ...tries, idempotent, stats });
    if (!isToolResult(result)) return result;
    let out: ToolResult = result;
    for (let i = 0; i < this.#g.afterCall.length; i++)
      out = await this.#after(i, hookCall, out, left, call.signal);
    return out as R;
  }

  // ---- steps ---------------------------------------------------------------------------------

  /** One pre-hook: its call, checked, with changed arguments validated against the schema again. */
  async #before(index: number, call: HookCall, left: () => number, signal?: AbortSignal): Promise<HookCall> {
    const hook = this.#g.beforeCall[index]!;
    // A copy: a hook that edits the arguments in place changes its copy, which is then checked.
    const given = Object.freeze({ ...call, arguments: copyOf(call.arguments) });
    const out = await this.#callback("before", index, () => hook(given), left, signal);
    const args = readOrNull(() => readHookArguments(out, call));
    if (args === null) {
      this.#hookFailed("before", index, "malformed");
      throw hookError("before", "malformed", index);
    }
    if (stableJson(args) !== stableJson(call.arguments)) {
      const check = await checkArguments(call.tool.inputSchema, args);
      if (check !== "ok") {
        const problem = check === "invalid" ? "invalid_arguments" : "schema_unusable";
        this.#hookFailed("before", index, problem);
        throw hookError("before", problem, index);
      }
    }
    return { ...call, arguments: args };
  }

  /** One post-hook: its result must still be a result. */
  async #after(
    index: number,
    call: HookCall,
    result: ToolResult,
    left: () => number,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const hook = this.#g.afterCall[index]!;
    const out = await this.#callback("after", index, () => hook(call, result), left, signal);
    const read = out === result ? result : readOrNull(() => readToolResult(out));
    if (read === null) {
      this.#hookFailed("after", index, "malformed");
      throw hookError("after", "malformed", index);
    }
    return read;
  }

  /** The policy's verdict on the call as the hooks left it. */
  async #decide(call: HookCall, left: () => number, signal?: AbortSignal): Promise<Verdict> {
    if (this.#rules) return this.#rules.decide(call.serverId, call.tool);
    const fn = this.#g.policy as (c: PolicyCall) => PolicyVerdict | Promise<PolicyVerdict>;
    const given = Object.freeze({ ...call, arguments: copyOf(call.arguments) });
    const out = await this.#callback("policy", 0, () => fn(given), left, signal);
    const v = readOrNull(() => readVerdict(out));
    if (!v) {
      this.#hookFailed("policy", 0, "malformed");
      throw hookError("policy", "malformed");
    }
    return v;
  }

  /** What an `ask` is about: the definition, its digest, and whether a remembered grant answers it. */
  async #grant(call: HookCall): Promise<Pending> {
    const definition = definitionOf(call.tool);
    const digest = toolDigest(definition);
    const key = { principal: call.principal, serverId: call.serverId, tool: call.tool.name, digest };
    const found = await this.#store(() => this.#g.grants.get(key));
    return { key, definition, granted: found !== undefined };
  }

  /** Puts an `ask` to the approver; resolves when allowed, rejects `denied` (or `hook`) otherwise. */
  async #ask(
    call: HookCall,
    verdict: Verdict,
    p: Pending,
    left: () => number,
    signal?: AbortSignal,
  ): Promise<void> {
    const { key, definition } = p;
    const store = this.#g.grants;
    const approve = this.#g.approve;
    // Fail closed: a call that needs a person, and no one to ask.
    if (!approve) {
      throw denial("approval_required", "policy", verdict.reason, verdict.rule);
    }
    const before = await this.#store(() => store.latest(call.principal, call.serverId, call.tool.name));
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
    const answer: unknown = await this.#callback("approve", 0, () => approve(request), left, signal);
    const approval = readOrNull(() => readApproval(answer));
    if (approval === null) {
      this.#hookFailed("approve", 0, "malformed");
      throw hookError("approve", "malformed");
    }
    if ("deny" in approval) {
      throw denial("denied_by_approver", "approver", approval.deny, verdict.rule);
    }
    if (approval.allow === "session") {
      await this.#store(() => store.put({ ...key, definition, grantedAt: Date.now() }));
    }
  }

  /**
   * The tool's listed definition. A listing refused before it was sent (`overloaded`: the
   * client's `maxInFlight` or `maxQueued`) is asked for again under `retries`, as the call itself
   * would be: nothing ran. Each refusal is one of the call's attempts.
   */
  async #lookup(call: GovernedCall, tries: Tries): Promise<Tool | undefined> {
    for (let n = 1; ; n++) {
      try {
        return await call.lookup({ timeout: Math.max(1, tries.left()), signal: call.signal });
      } catch (err) {
        if (!(await this.#again(n, err, certainlyNotRun(err), tries))) throw err;
        tries.made = n;
      }
    }
  }

  /** The attempts, within the call's deadline; sent again only where the retry rule allows. */
  async #attempts<R>(
    args: Record<string, unknown>,
    send: Send<R>,
    o: Tries & { idempotent: boolean; stats: GovernedStats },
  ): Promise<R> {
    const { attemptTimeout } = this.#g;
    for (let n = o.made + 1; ; n++) {
      const remaining = o.left();
      if (remaining <= 0) throw new McpClientError("timeout", "deadline_exceeded");
      o.stats.attempts = n;
      let failure: unknown;
      let result: R | undefined;
      try {
        result = await send(args, { timeout: Math.min(remaining, attemptTimeout ?? remaining), number: n });
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
        return result as R;
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
    this.#events.emit("tool_call:retry", () => ({
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
  async #store<T>(op: () => T | Promise<T>): Promise<T> {
    const outcome = await bounded(op, this.#g.hookTimeout);
    if (outcome.ok) return outcome.value;
    const problem = outcome.why === "timeout" ? "timeout" : "threw";
    this.#hookFailed("grants", 0, problem);
    throw hookError("grants", problem);
  }

  /** Runs one application callback within `hookTimeout` and the call's deadline. */
  async #callback<T>(
    phase: "before" | "after" | "policy" | "approve",
    index: number,
    fn: () => T | Promise<T>,
    left: () => number,
    signal?: AbortSignal,
  ): Promise<T> {
    const start = Date.now();
    const budget = Math.min(this.#g.hookTimeout, Math.max(1, left()));
    const outcome = await bounded(fn, budget, signal);
    const duration = Date.now() - start;
    if (outcome.ok) {
      this.#events.emit("hook:stop", () => ({ phase, hook: index, duration }));
      return outcome.value;
    }
    if (outcome.why === "threw" && phase === "before" && readOrNull(() => refusal(outcome.error))) {
      // A pre-hook that refuses on purpose: a denial, with the hook's own (operator) reason.
      this.#events.emit("hook:stop", () => ({ phase, hook: index, duration }));
      throw outcome.error;
    }
    const problem = outcome.why === "timeout" ? "timeout" : "threw";
    this.#hookFailed(phase, index, problem, duration);
    if (problem === "timeout" && budget < this.#g.hookTimeout) {
      throw new McpClientError("timeout", "deadline_exceeded");
    }
    throw hookError(phase, problem, phaseIndexed(phase) ? index : undefined);
  }

  #hookFailed(phase: string, index: number, problem: string, duration?: number): void {
    this.#events.emit("hook:exception", () => ({
      phase,
      hook: index,
      problem,
      ...(duration === undefined ? {} : { duration }),
    }));
  }
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
  signal?: AbortSignal;
  made: number;
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
