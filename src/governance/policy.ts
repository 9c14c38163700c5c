import type { Tool } from "../shared/tool.js";
import { compileNameGlobs } from "../util/name-glob.js";
import type { AnnotationMatch, Decision, PolicyRule } from "./types.js";

/** The spec's defaults for hints a tool leaves out (or sends as something other than a boolean). */
const HINT_DEFAULTS: Required<AnnotationMatch> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

export const HINTS = Object.keys(HINT_DEFAULTS) as Array<keyof AnnotationMatch>;

const STRICTNESS: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

/** The stricter of two decisions. */
export function stricter(a: Decision, b: Decision): Decision {
  return STRICTNESS[a] >= STRICTNESS[b] ? a : b;
}

/** What a policy decided for one call. */
export interface Verdict {
  decision: Decision;
  /** The operator's text from the rule, or null. */
  reason: string | null;
  /** The index of the rule that decided; null for the default or a policy function. */
  rule: number | null;
  retry: "idempotent" | null;
}

interface CompiledRule {
  index: number;
  tool: ((name: string) => boolean) | null;
  server: ((id: string) => boolean) | null;
  annotations: AnnotationMatch | null;
  decision: Decision;
  reason: string | null;
  retry: "idempotent" | null;
}

/** A tool's hint as a policy reads it: the value sent when it is a boolean, else the default. */
function hint(tool: Tool, key: keyof AnnotationMatch): boolean {
  const v = (tool.annotations as Record<string, unknown> | undefined)?.[key];
  return typeof v === "boolean" ? v : HINT_DEFAULTS[key];
}

/** The hints the spec makes meaningful only when `readOnlyHint` is false. */
const WRITE_HINTS: ReadonlySet<keyof AnnotationMatch> = new Set(["destructiveHint", "idempotentHint"]);

/**
 * Whether a tool's hints hold as a rule asks. A condition on `destructiveHint` or
 * `idempotentHint` holds only for a tool that is not read-only: for one that says
 * `readOnlyHint: true` those hints mean nothing, whatever it sends or leaves out.
 */
function hintsMatch(tool: Tool, wanted: AnnotationMatch): boolean {
  const readOnly = hint(tool, "readOnlyHint");
  return HINTS.every((k) => {
    const want = wanted[k];
    if (want === undefined) return true;
    if (readOnly && WRITE_HINTS.has(k)) return false;
    return hint(tool, k) === want;
  });
}

/**
 * Rules compiled once. First match wins, with one exception that keeps hints from loosening
 * anything: a rule that matched on annotations (only `ask` or `deny`, checked when the options
 * are) never lowers what the first matching rule without annotations (or the default) says.
 */
export class RulePolicy {
  readonly #rules: CompiledRule[];
  readonly #fallback: Decision;

  constructor(rules: readonly PolicyRule[], fallback: Decision) {
    this.#fallback = fallback;
    this.#rules = rules.map((r, index) => ({
      index,
      tool: r.tool === undefined ? null : compileNameGlobs(r.tool, { anyOne: true }),
      server: r.server === undefined ? null : compileNameGlobs(r.server, { anyOne: true }),
      annotations: r.annotations ?? null,
      decision: r.decision,
      reason: r.reason ?? null,
      retry: r.retry ?? null,
    }));
  }

  decide(serverId: string, tool: Tool): Verdict {
    let first: CompiledRule | undefined;
    let base: CompiledRule | undefined;
    for (const r of this.#rules) {
      if (r.tool && !r.tool(tool.name)) continue;
      if (r.server && !r.server(serverId)) continue;
      if (r.annotations) {
        if (!hintsMatch(tool, r.annotations)) continue;
        first ??= r;
        continue;
      }
      first ??= r;
      base = r;
      break;
    }
    const baseDecision = base?.decision ?? this.#fallback;
    if (!first) return { decision: this.#fallback, reason: null, rule: null, retry: null };
    if (first === base || STRICTNESS[first.decision] >= STRICTNESS[baseDecision]) {
      return { decision: first.decision, reason: first.reason, rule: first.index, retry: first.retry };
    }
    // The hint rule asked for less than the rest of the policy: the rest holds.
    return base
      ? { decision: base.decision, reason: base.reason, rule: base.index, retry: base.retry }
      : { decision: this.#fallback, reason: null, rule: null, retry: null };
  }
}
