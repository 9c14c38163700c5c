/**
 * `call --policy FILE` and `--approve`: a person can try a policy on one call. The file holds
 * JSON rules (an array, or `{ "policy": [...], "defaultDecision": "ask" }`); with `--approve`, an
 * `ask` is put to the person at the terminal, and refused when there is none.
 */
import {
  type ApprovalAnswer,
  type ApprovalRequest,
  type Decision,
  type GovernanceOptions,
  governance,
  type PolicyRule,
  type ToolCallInterceptor,
} from "../governance/index.js";
import { checkRules, DECISIONS } from "../governance/options.js";
import { sanitizeText } from "../index.js";
import { withinDepth } from "../shared/depth.js";
import { readRegularFile } from "../util/read-regular-file.js";
import type { Terminal } from "./input.js";
import { type GovernanceArgs, UsageError } from "./invocation.js";

/**
 * The one place the CLI installs governance: the option it adds to a client's or a hub's options
 * (none without `--policy` / `--approve`). Throws `UsageError` as `cliGovernance` does.
 */
export function governanceOption(
  args: GovernanceArgs | null,
  terminal: Terminal | null,
  note: (text: string) => void,
): { interceptors?: ToolCallInterceptor[] } {
  return args ? { interceptors: [governance(cliGovernance(args, terminal, note))] } : {};
}

/**
 * The governance options for `--policy` / `--approve`. Throws `UsageError` for a policy file that cannot be
 * read or holds no valid rules. `note` tells the user (stderr) when an ask is refused unasked.
 */
function cliGovernance(
  args: GovernanceArgs,
  terminal: Terminal | null,
  note: (text: string) => void,
): GovernanceOptions {
  const { policy, defaultDecision } = args.policyFile
    ? readPolicy(args.policyFile)
    : { policy: [], defaultDecision: undefined };
  const governance: GovernanceOptions = { policy, ...(defaultDecision ? { defaultDecision } : {}) };
  if (args.approve) {
    // The person may take their time: the call's own deadline (--timeout) still bounds it.
    governance.hookTimeout = 24 * 60 * 60 * 1000;
    governance.approve = (request) => {
      if (!terminal) {
        note(
          `refused to call ${line(request.tool.name)}: it needs approval and there is no terminal to ask on`,
        );
        return { deny: "no terminal to ask on" };
      }
      return askApproval(terminal, request);
    };
  }
  return governance;
}

export function readPolicy(file: string): { policy: PolicyRule[]; defaultDecision: Decision | undefined } {
  let text: string;
  try {
    // A FIFO or /dev/zero would hold the (synchronous) read for good; 1 MiB is many rules.
    text = readRegularFile(file, 1024 * 1024);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new UsageError(
      "bad_policy",
      `--policy: cannot read ${JSON.stringify(file)} (${String(code ?? err)})`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError("bad_policy", `--policy: the file is not valid JSON: ${(err as Error).message}`);
  }
  const doc = Array.isArray(value) ? { policy: value } : value;
  if (!withinDepth(doc, 64)) throw new UsageError("bad_policy", "--policy: nested deeper than 64 levels");
  if (typeof doc !== "object" || doc === null || !Array.isArray((doc as { policy?: unknown }).policy)) {
    throw new UsageError(
      "bad_policy",
      '--policy: the file must hold an array of rules, or { "policy": [...] }',
    );
  }
  const { policy, defaultDecision, ...rest } = doc as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw new UsageError("bad_policy", `--policy: unknown key ${JSON.stringify(unknown)}`);
  if (defaultDecision !== undefined && !(DECISIONS as readonly unknown[]).includes(defaultDecision)) {
    throw new UsageError("bad_policy", '--policy: "defaultDecision" must be "allow", "deny" or "ask"');
  }
  try {
    return { policy: checkRules(policy, "policy"), defaultDecision: defaultDecision as Decision | undefined };
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    throw new UsageError("bad_policy", `--policy: ${err.message.replace(/^conduit-mcp: /, "")}`);
  }
}

const line = (text: unknown, max = 300) =>
  sanitizeText(typeof text === "string" ? text : (JSON.stringify(text) ?? String(text)), { maxLength: max });

/** Shows what would run (and what changed, when it did) and asks yes or no. */
async function askApproval(t: Terminal, r: ApprovalRequest): Promise<ApprovalAnswer> {
  t.write(`\n${line(r.serverId)} wants to run the tool ${line(r.tool.name)}\n`);
  if (r.definition.description) t.write(`  description: ${line(r.definition.description, 500)}\n`);
  t.write(`  arguments:   ${line(r.arguments, 1000)}\n`);
  if (r.reason) t.write(`  policy:      ${line(r.reason)}\n`);
  if (r.previous) {
    t.write("  warning: the tool's definition changed since it was approved\n");
    t.write(`    before: ${line(r.previous.definition.description ?? "(no description)", 500)}\n`);
  }
  t.write(`  definition digest: ${r.digest.slice(0, 16)}\n`);
  const controller = new AbortController();
  const answer = await t.ask("Allow this call? [y/N] ", controller.signal);
  if (answer === null) return { deny: "no answer" };
  return /^y(es)?$/i.test(answer.trim()) ? true : { deny: "refused at the terminal" };
}
