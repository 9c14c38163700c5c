/**
 * The `conduit-mcp/governance` entry: policy, approvals, hooks and safe retries as a tool-call
 * interceptor (docs/governance.md): `interceptors: [governance({ policy, approve })]`.
 */

export type { CallTool, ToolCall, ToolCallInterceptor } from "../shared/tool-call.js";
export { definitionOf, toolDigest } from "./digest.js";
// A pre-hook throws `refuse(reason)` to deny a call (docs/governance.md).
export { refuse } from "./governor.js";
export { MemoryGrantStore } from "./grants.js";
export { governance } from "./interceptor.js";
export { sendAgainAfter } from "./retries.js";
export type {
  AfterCallHook,
  AnnotationMatch,
  ApprovalAnswer,
  ApprovalRequest,
  BeforeCallHook,
  Decision,
  GovernanceOptions,
  Grant,
  GrantKey,
  GrantStore,
  HookCall,
  Policy,
  PolicyCall,
  PolicyRule,
  PolicyVerdict,
  RetryOptions,
  ToolDefinition,
} from "./types.js";
