import {
  checkKeys,
  checkObject,
  fail,
  isPlainObject,
  optFunction,
  optInt,
  optOneOf,
  optString,
} from "../util/option-check.js";
import type { GrantStore } from "./grants.js";
import { HINTS } from "./policy.js";
import { sendAgainAfter } from "./retries.js";
import type {
  AfterCallHook,
  ApprovalAnswer,
  ApprovalRequest,
  BeforeCallHook,
  Decision,
  GovernanceOptions,
  PolicyCall,
  PolicyRule,
  PolicyVerdict,
} from "./types.js";

export const DECISIONS = ["allow", "deny", "ask"] as const;

export const GOVERNANCE_DEFAULTS = { hookTimeout: 5_000, attempts: 3 } as const;

/** Marks options already checked, so a governor made from them does not check them twice. */
export const RESOLVED: unique symbol = Symbol("governance.resolved");

export interface ResolvedGovernance {
  readonly [RESOLVED]: true;
  policy: readonly PolicyRule[] | ((call: PolicyCall) => PolicyVerdict | Promise<PolicyVerdict>);
  defaultDecision: Decision;
  approve: ((request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>) | null;
  beforeCall: readonly BeforeCallHook[];
  afterCall: readonly AfterCallHook[];
  attempts: number;
  backoff: (attempt: number) => number;
  attemptTimeout: number | null;
  hookTimeout: number;
  /** The `grants` option; null: the call's store (the client's `stores.grants`), else in memory. */
  grants: GrantStore | null;
}

const KEYS = [
  "policy",
  "defaultDecision",
  "approve",
  "beforeCall",
  "afterCall",
  "retries",
  "hookTimeout",
  "grants",
] as const;
const RULE_KEYS = ["tool", "server", "annotations", "decision", "reason", "retry"] as const;

/** Validates the `governance` option; throws a `TypeError` naming the first bad key. No I/O. */
export function resolveGovernance(input: unknown, path = "governance"): ResolvedGovernance {
  const o = checkObject(input, path) as GovernanceOptions & Record<string, unknown>;
  checkKeys(o, KEYS, path);
  let policy: ResolvedGovernance["policy"] = [];
  if (typeof o.policy === "function") policy = o.policy;
  else if (o.policy !== undefined) policy = checkRules(o.policy, `${path}.policy`);
  const retries = o.retries === undefined ? {} : checkObject(o.retries, `${path}.retries`);
  checkKeys(retries, ["attempts", "backoff", "attemptTimeout"], `${path}.retries`);
  const grants = o.grants ?? null;
  if (grants !== null && !isGrantStore(grants))
    fail(`${path}.grants`, "a GrantStore (get, latest, put, revoke)");
  return {
    [RESOLVED]: true,
    policy,
    defaultDecision: optOneOf(o.defaultDecision, `${path}.defaultDecision`, DECISIONS) ?? "allow",
    approve: optFunction<NonNullable<ResolvedGovernance["approve"]>>(o.approve, `${path}.approve`) ?? null,
    beforeCall: checkHooks<BeforeCallHook>(o.beforeCall, `${path}.beforeCall`),
    afterCall: checkHooks<AfterCallHook>(o.afterCall, `${path}.afterCall`),
    attempts: optInt(retries.attempts, `${path}.retries.attempts`, 1, 100) ?? GOVERNANCE_DEFAULTS.attempts,
    backoff: guarded(optFunction(retries.backoff, `${path}.retries.backoff`)),
    attemptTimeout: optInt(retries.attemptTimeout, `${path}.retries.attemptTimeout`, 1) ?? null,
    hookTimeout: optInt(o.hookTimeout, `${path}.hookTimeout`, 1) ?? GOVERNANCE_DEFAULTS.hookTimeout,
    grants,
  };
}

/** A caller's backoff that throws or answers nonsense falls back to the seed's for that attempt. */
function guarded(fn: ((attempt: number) => number) | undefined): (attempt: number) => number {
  if (!fn) return sendAgainAfter;
  return (attempt) => {
    try {
      const ms = fn(attempt);
      if (typeof ms === "number" && Number.isSafeInteger(ms) && ms >= 0) return ms;
    } catch {
      // fall through to the default
    }
    return sendAgainAfter(attempt);
  };
}

function checkHooks<T>(v: unknown, path: string): readonly T[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) fail(path, "an array of functions");
  v.forEach((f, i) => {
    if (typeof f !== "function") fail(`${path}[${i}]`, "a function");
  });
  return [...v] as T[];
}

function checkGlobs(v: unknown, path: string): void {
  if (v === undefined) return;
  if (typeof v === "string") return;
  if (!Array.isArray(v) || v.length === 0 || v.some((g) => typeof g !== "string")) {
    fail(path, "a glob string or a non-empty array of them");
  }
}

/** Policy rules, checked: also by the CLI for a `--policy` file (so the messages name the path). */
export function checkRules(v: unknown, path: string): PolicyRule[] {
  if (!Array.isArray(v)) fail(path, "an array of rules or a function");
  return v.map((raw, i) => {
    const p = `${path}[${i}]`;
    const r = checkObject(raw, p);
    checkKeys(r, RULE_KEYS, p);
    checkGlobs(r.tool, `${p}.tool`);
    checkGlobs(r.server, `${p}.server`);
    const decision = optOneOf(r.decision, `${p}.decision`, DECISIONS);
    if (decision === undefined) fail(`${p}.decision`, '"allow", "deny" or "ask"');
    optString(r.reason, `${p}.reason`);
    optOneOf(r.retry, `${p}.retry`, ["idempotent"] as const);
    if (r.annotations !== undefined) {
      const a = checkObject(r.annotations, `${p}.annotations`);
      checkKeys(a, HINTS, `${p}.annotations`);
      for (const k of HINTS) {
        if (a[k] !== undefined && typeof a[k] !== "boolean") fail(`${p}.annotations.${k}`, "a boolean");
      }
      // Hints are the server's word: they may make a call stricter, never let one through.
      if (decision === "allow") {
        fail(`${p}.decision`, '"ask" or "deny" in a rule on annotations (hints are untrusted)');
      }
    }
    if (!isPlainObject(raw)) fail(p, "a plain object");
    return { ...(r as unknown as PolicyRule) };
  });
}

/** Whether `v` has a GrantStore's methods (the `grants` option, or the store a call carries). */
export function isGrantStore(v: unknown): v is GrantStore {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return ["get", "latest", "put", "revoke"].every((m) => typeof o[m] === "function");
}
