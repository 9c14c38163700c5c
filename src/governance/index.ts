/**
 * The `conduit-mcp/governance` entry: policy, approvals, hooks and safe retries as a tool-call
 * interceptor (docs/governance.md). Placeholder re-exports until the pipeline lands (issue 25).
 */
export { definitionOf, toolDigest } from "./digest.js";
// A pre-hook throws `refuse(reason)` to deny a call (docs/governance.md).
export { refuse } from "./governor.js";
export { type Grant, type GrantKey, type GrantStore, MemoryGrantStore } from "./grants.js";
export { sendAgainAfter } from "./retries.js";
export type {
  AfterCallHook,
  AnnotationMatch,
  ApprovalAnswer,
  ApprovalRequest,
  BeforeCallHook,
  Decision,
  GovernanceOptions,
  HookCall,
  Policy,
  PolicyCall,
  PolicyRule,
  PolicyVerdict,
  RetryOptions,
  ToolDefinition,
} from "./types.js";
