/**
 * A downstream `tools/call` on its way up: the caller's view, serve's own governance (an `ask`
 * put to the downstream client as an elicitation), the call through the hub or the client, and
 * one audit line. Nothing reaches an upstream for a tool outside the caller's view.
 */

import type { Task } from "../client/tasks.js";
import { governance } from "../governance/interceptor.js";
import type { ApprovalAnswer, ApprovalRequest, GovernanceOptions } from "../governance/types.js";
import { McpClientError } from "../shared/errors.js";
import type { ProgressParams } from "../shared/request-options.js";
import type { ToolResult } from "../shared/tool.js";
import {
  type CallTool,
  carryTask,
  handBack,
  type ToolCall,
  type ToolCallInterceptor,
} from "../shared/tool-call.js";
import type { AuditEntry, AuditLog } from "./audit.js";
import type { CallerView } from "./callers.js";
import { TaskInput } from "./task-input.js";
import { type ServedTask, type ServeTaskOptions, TaskMap } from "./task-map.js";
import { outcomeKind, taskWait } from "./task-wire.js";
import type { ServedTool, Upstream } from "./upstream.js";
import type { InputLink } from "./upstream-input.js";
import { Rounds } from "./upstream-rounds.js";

/** serve's `policy`: the library's governance options; serve answers `ask` itself. */
export type ServePolicy = Omit<GovernanceOptions, "approve">;

/** How an `ask` reaches the person behind the downstream client, for one call. */
export interface ApprovalPort {
  /** The client declared elicitation: it can be asked. */
  canAsk: boolean;
  /** Its answer, when this request carries one (untrusted), and the digest it was asked for. */
  answer: { response: unknown; digest: string | undefined } | null;
}

/** What a downstream call came to. */
export type CallOutcome =
  | { kind: "result"; result: ToolResult; tool: ServedTool }
  | { kind: "ask"; request: ApprovalRequest }
  | { kind: "refused"; error: Error }
  /** The upstream made a task of a call the host asked to run as one: now mapped for the host. */
  | { kind: "task"; task: ServedTask; tool: ServedTool }
  /** The upstream server asks the host something (under its key); the call waits, parked under `id`. */
  | { kind: "input"; id: string; key: string; method: string; params: Record<string, unknown> };

export interface DownstreamCall {
  view: CallerView;
  name: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
  approval: ApprovalPort;
  /** Forwards the upstream server's questions and progress to the host. */
  link: InputLink;
  /** A retry carrying the host's answers to a parked call's question. */
  resume?: { id: string; responses: Record<string, unknown> | undefined } | undefined;
  /** The host asked for a task (and can take one): whose it will be, and the TTL it asked for (legacy). */
  task?: { owner: string; ttl: number | undefined } | undefined;
}

/** The key of an approval's elicitation in `inputRequests` / `inputResponses`. */
export const APPROVAL_KEY = "conduit_approval";

const PORT: unique symbol = Symbol("serve.approval");
interface PortState {
  port: ApprovalPort;
  asked: ApprovalRequest | null;
}

export class ToolCalls {
  readonly #upstream: Upstream;
  readonly #audit: AuditLog;
  readonly #governed: ToolCallInterceptor | null;
  #byName = new Map<string, ServedTool>();
  /** Calls waiting for the host's answer to an upstream question (prompts and resources too). */
  readonly parked = new Rounds();
  /** Upstream tasks handed to hosts (task-map.ts). */
  readonly tasks: TaskMap;

  constructor(
    upstream: Upstream,
    audit: AuditLog,
    policy: ServePolicy | undefined,
    tasks?: ServeTaskOptions,
  ) {
    this.#upstream = upstream;
    this.#audit = audit;
    this.tasks = new TaskMap(tasks);
    if (policy !== undefined && (policy as GovernanceOptions).approve !== undefined) {
      throw new TypeError(
        'conduit-mcp: option "policy.approve" is serve\'s own (it asks the downstream client)',
      );
    }
    this.#governed = policy === undefined ? null : governance({ ...policy, approve: (r) => answerFor(r) });
  }

  /** The tools the caller sees (and remembers every tool for routing). */
  async list(view: CallerView, signal?: AbortSignal): Promise<ServedTool[]> {
    const all = await this.#upstream.tools(signal);
    this.#byName = new Map(all.map((t) => [t.name, t]));
    return all.filter((t) => view.sees(t.name));
  }

  /** The upstream server of a tool the caller sees, once listed; undefined otherwise. */
  serverOf(view: CallerView, name: string): string | undefined {
    return view.sees(name) ? this.#byName.get(name)?.serverId : undefined;
  }

  /** One round of a downstream call: its outcome, or the upstream's question for the host. */
  async call(c: DownstreamCall): Promise<CallOutcome> {
    const round = await this.parked.run({
      method: "tools/call",
      principal: c.view.principal,
      link: c.link,
      signal: c.signal,
      resume: c.resume,
      start: (link, signal) => this.#complete({ ...c, signal, link }),
    });
    if (round.kind === "done") return round.value;
    if (round.kind === "unknown")
      return { kind: "refused", error: new McpClientError("not_found", "unknown_tool") };
    return round;
  }

  /** The whole call, to its end: never rejects, and writes its audit line. */
  async #complete(c: DownstreamCall): Promise<CallOutcome> {
    const start = Date.now();
    const state: PortState = { port: c.approval, asked: null };
    const report = { attempts: 0, decision: null as "allow" | "deny" | "ask" | null };
    let tool: ServedTool | undefined;
    let outcome: CallOutcome;
    try {
      // The view first: a tool the caller may not see is unknown to it, and nothing goes upstream.
      if (!c.view.sees(c.name)) throw new McpClientError("not_found", "unknown_tool");
      tool = this.#byName.get(c.name);
      if (!tool) {
        await this.list(c.view, c.signal);
        tool = this.#byName.get(c.name);
      }
      if (!tool) throw new McpClientError("not_found", "unknown_tool");
      const made = handBack<Task>(await this.#run(tool, c, state, report));
      outcome =
        "content" in made
          ? { kind: "result", result: made, tool }
          : { kind: "task", task: this.#mapTask(tool, made, c), tool };
    } catch (err) {
      outcome = state.asked
        ? { kind: "ask", request: state.asked }
        : { kind: "refused", error: err as Error };
    }
    if (outcome.kind === "ask") return outcome;
    const line = (o: string): AuditEntry => ({
      time: new Date().toISOString(),
      principal: c.view.principal,
      server: tool?.serverId ?? null,
      tool: tool?.tool.name ?? c.name,
      decision: report.decision ?? (outcome.kind === "refused" && isDenied(outcome.error) ? "deny" : "allow"),
      durationMs: Date.now() - start,
      outcome: o,
    });
    // A task's line is written when its outcome is known (its end, its cancellation, serve closing).
    if (outcome.kind === "task") void outcome.task.done.then((o) => this.#audit.write(line(outcomeKind(o))));
    else if (this.#audit.enabled) this.#audit.write(line(outcomeOf(outcome)));
    return outcome;
  }

  /**
   * An upstream task, mapped for the host that asked; serve waits for it through its client, and
   * what it asks meanwhile waits for that host (task-input.ts).
   */
  #mapTask(tool: ServedTool, task: Task, c: DownstreamCall): ServedTask {
    const client = this.#upstream.client(task.serverId);
    if (!client) throw new McpClientError("closed", "server_removed");
    const input = new TaskInput(c.link.caps);
    const wait = taskWait(client, task, input.link.assigns());
    return this.tasks.add({ owner: c.task!.owner, serverId: tool.serverId, task, input, wait });
  }

  #run(
    served: ServedTool,
    c: DownstreamCall,
    state: PortState,
    report: { attempts: number; decision: "allow" | "deny" | "ask" | null },
  ): Promise<ToolResult> {
    const up = this.#upstream;
    const ttl = c.task?.ttl;
    const core: CallTool = (call) => {
      const options = {
        signal: c.signal,
        // Every round's progress goes to that round's request (the first round's has ended).
        // Asked of the upstream only when the host's call carries a progress token: it costs a
        // token, a handler and a bigger request on every call (serve-hop).
        ...(c.link.hearsProgress ? { onProgress: (p: ProgressParams) => c.link.progress(p) } : {}),
        ...(c.view.principal !== null ? { principal: c.view.principal } : {}),
        assigns: c.link.assigns(),
        ...(ttl !== undefined ? { taskTtl: ttl } : {}),
      };
      if (!c.task) return up.call(served.name, call.arguments, options);
      return up.callForTask(served.name, call.arguments, options).then(carryTask);
    };
    if (!this.#governed)
      return core({ name: served.tool.name, arguments: c.args, serverId: served.serverId });
    const call: ToolCall = {
      name: served.tool.name,
      arguments: c.args,
      serverId: served.serverId,
      signal: c.signal,
      ...(c.view.principal !== null ? { principal: c.view.principal } : {}),
      // Governance refuses a task it could not judge the end of (afterCall hooks).
      ...(c.task ? { task: "return" as const } : {}),
      context: { [PORT]: state },
      tools: { find: async (name) => (name === served.tool.name ? served.tool : undefined) },
      report,
    };
    return this.#governed(core)(call);
  }
}

/** serve's approver: the downstream client's answer when this request carries one, else ask it. */
function answerFor(request: ApprovalRequest): ApprovalAnswer {
  const state = (request.context as Record<symbol, PortState | undefined>)[PORT];
  if (!state) return { deny: "no one to ask" };
  const { port } = state;
  if (!port.canAsk) return { deny: "the client cannot be asked (it declared no elicitation)" };
  // An answer counts only for the definition it was given for: a changed tool is asked again.
  if (port.answer && port.answer.digest === request.digest) {
    const r = port.answer.response as { action?: unknown; content?: { allow?: unknown; remember?: unknown } };
    if (r?.action === "accept" && r.content?.allow === true) {
      return { allow: true, remember: r.content.remember === true ? "session" : "once" };
    }
    return { deny: "declined by the user" };
  }
  state.asked = request;
  return { deny: "asking the client" };
}

const isDenied = (err: Error) => McpClientError.is(err, "denied");

function outcomeOf(o: CallOutcome): string {
  if (o.kind === "result") return o.result.isError ? "tool_error" : "ok";
  if (o.kind === "refused") return McpClientError.is(o.error) ? o.error.kind : "error";
  return o.kind;
}
