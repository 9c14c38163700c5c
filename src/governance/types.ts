import type { Tool, ToolResult } from "../shared/tool.js";
import type { GrantStore, ToolDefinition } from "../stores/grants.js";

export type { ToolDefinition };

/** What a policy says of a call. */
export type Decision = "allow" | "deny" | "ask";

/** The four behaviour hints of the spec, as a rule may match on them (untrusted: ask/deny only). */
export interface AnnotationMatch {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/**
 * One policy rule. Every condition given must hold (an absent one holds always); the first rule
 * that matches decides. `tool` and `server` are globs (`*` any run of characters, `?` one
 * character, everything else literal), or lists of them, matched whatever the case and Unicode
 * spelling (NFKC, invisible characters removed: `Delete_Files` is caught by `delete_*`).
 */
export interface PolicyRule {
  tool?: string | readonly string[];
  server?: string | readonly string[];
  /** Matches on the tool's hints (missing hints take the spec's defaults). Only `ask` or `deny`. */
  annotations?: AnnotationMatch;
  decision: Decision;
  /** Operator text: a denial carries it (`error.detail.reason`), an approver is shown it. */
  reason?: string;
  /** `"idempotent"`: the operator knows this tool is safe to send again (see the retry rule). */
  retry?: "idempotent";
}

/** What a policy function returns. */
export type PolicyVerdict = Decision | { decision: Decision; reason?: string; retry?: "idempotent" };

/** A policy: rules (first match wins), or a function of the call. */
export type Policy = readonly PolicyRule[] | ((call: PolicyCall) => PolicyVerdict | Promise<PolicyVerdict>);

/** What a policy function, the approver and the hooks see of a call. */
export interface PolicyCall {
  serverId: string;
  /** The tool's definition as listed (and as the digest covers). */
  tool: Tool;
  arguments: Record<string, unknown>;
  principal: string | null;
  context: Readonly<Record<string, unknown>>;
}

/** What `approve` is asked with. */
export interface ApprovalRequest extends PolicyCall {
  /** SHA-256 (hex) over the canonical JSON of `definition`. */
  digest: string;
  /** The definition being approved. */
  definition: ToolDefinition;
  /** The definition approved before under another digest (a changed tool), else null. */
  previous: { digest: string; definition: ToolDefinition } | null;
  /** The rule's reason, when the rule that asked gave one. */
  reason: string | null;
}

/** What `approve` may answer. Anything else fails the call closed (`kind: "hook"`). */
export type ApprovalAnswer =
  | boolean
  | "deny"
  | { deny: string }
  | { allow: true; remember?: "once" | "session" };

/** A call as the hooks see it: they return it (arguments may change) or throw to refuse. */
export interface HookCall extends PolicyCall {}

export type BeforeCallHook = (call: HookCall) => HookCall | Promise<HookCall>;
export type AfterCallHook = (call: HookCall, result: ToolResult) => ToolResult | Promise<ToolResult>;

export interface RetryOptions {
  /** Attempts in all, the first included. Default 3. */
  attempts?: number;
  /** `(retry) => ms` before retry `retry` (from 0: before the second attempt). Default 100 * 2 ** retry, capped at 5 000. */
  backoff?: (retry: number) => number;
  /** Each attempt's own limit inside the call's deadline (only an opted-in retry can use what is left). Default: none. */
  attemptTimeout?: number;
}

/** The `governance` option of `Client` (and of `Hub`, for all servers or per server). */
export interface GovernanceOptions {
  policy?: Policy;
  /** Used when no rule matches. Default `"allow"`. */
  defaultDecision?: Decision;
  approve?: (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
  beforeCall?: readonly BeforeCallHook[];
  afterCall?: readonly AfterCallHook[];
  retries?: RetryOptions;
  /** Milliseconds a hook, the policy function or the approver may take. Default 5 000. */
  hookTimeout?: number;
  /** Where remembered grants live. Default: in memory, for this governor's life. */
  grants?: GrantStore;
}

export type { Grant, GrantKey, GrantStore } from "../stores/grants.js";
