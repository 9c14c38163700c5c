/** Governance as a layer of the tool-call pipeline (docs/governance.md). */
import type { ToolCallInterceptor } from "../shared/tool-call.js";
import { markHides } from "../shared/visibility.js";
import { Governor } from "./governor.js";
import type { GovernanceOptions } from "./types.js";

/**
 * Policy, approvals pinned to the tool's definition, hooks and safe retries, as an interceptor:
 * `new Client({ ..., interceptors: [governance({ policy, approve })] })`. The options are checked
 * here, once (an `OptionError` naming the first bad one); one governor serves every call and
 * every chain the interceptor is put in, so remembered grants are shared between them.
 */
export function governance(options: GovernanceOptions): ToolCallInterceptor {
  return governedBy(new Governor(options));
}

/**
 * The interceptor of a governor made elsewhere (the hub names its options' paths in errors),
 * marked with the tools it always refuses, so lists and searches leave them out.
 */
export function governedBy(governor: Governor): ToolCallInterceptor {
  return markHides(
    (next) => (call) => governor.run(call, next),
    (serverId, tool) => governor.hides(serverId, tool),
  );
}
