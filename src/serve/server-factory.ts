/**
 * One downstream server instance on the official SDK's low-level `Server`: its request handlers
 * pass every request up through the hub or the client, as the caller it was built for sees them.
 * The SDK's serving entries make one per connection (stdio), per legacy session or per modern
 * request (HTTP); all share the one upstream connection per server.
 */
import { randomUUID } from "node:crypto";
import { VERSION } from "../client/version.js";
import { jsonRpcCode, McpClientError } from "../shared/errors.js";
import type { ProgressParams, RequestOptions } from "../shared/request-options.js";
import type { CallerView } from "./callers.js";
import type { Forwarder } from "./forward.js";
import type { Sdk, SdkContext, SdkServer } from "./sdk.js";
import { declaresTasks, eraOf, registerTaskHandlers } from "./task-handlers.js";
import { modernOwner } from "./task-listen.js";
import { StatusPush } from "./task-status.js";
import { createResult, finishedTask, TASKS_EXTENSION, wireResult, wireTask } from "./task-wire.js";
import { APPROVAL_KEY, type ToolCalls } from "./tool-calls.js";
import type { ServedTool, Upstream } from "./upstream.js";
import { type HostCaps, InputLink } from "./upstream-input.js";

export interface ServeParts {
  sdk: Sdk;
  name: string;
  upstream: Upstream;
  calls: ToolCalls;
  forward: Forwarder;
}

/** The SDK server's notification handlers (not in sdk.ts's type: serve-speed's file). */
interface NotificationHandlers {
  setNotificationHandler?: (method: string, handler: (n: unknown) => Promise<void>) => void;
}

/** The SDK server's own notifications (sdk.ts's type has the list changes and logs only). */
interface Notifier {
  notification(n: { method: string; params: Record<string, unknown> }): Promise<void>;
}

const LOG_LEVEL_META = "io.modelcontextprotocol/logLevel";

const INVALID_PARAMS = -32602;
/** `requestState` of a round whose call waits for the host's answer: this, then the parked id. */
const PARKED = "parked:";

export function buildServer(parts: ServeParts, view: CallerView): SdkServer {
  const { sdk, upstream, calls } = parts;
  const server = new sdk.Server(
    { name: parts.name, version: VERSION },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
        // Tasks passed through (task-handlers.ts): 2025-11-25's capability, 2026-07-28's extension.
        tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        extensions: { [TASKS_EXTENSION]: {} },
      },
    },
  );
  // Tasks are the caller's: its principal, else (no callers) this 2025 session or stdio
  // connection; 2026-07-28 requests without callers have no session, and share loopback's.
  const instance = randomUUID();
  const ownerOf = (ctx: SdkContext) =>
    view.principal !== null || eraOf(ctx) === "modern" ? modernOwner(view) : `session:${instance}`;
  registerTaskHandlers(server, { sdk, tasks: calls.tasks, ownerOf });
  // 2025 hosts' status notifications, on this session or connection only (task-status.ts).
  const pushes = new Set<StatusPush>();
  // A session's tasks end with it: nobody else can reach them (serve.ts chains its own onclose);
  // a caller's tasks outlive it, but nothing more is sent to a closed session.
  server.onclose = () => {
    for (const push of pushes) push.stop();
    pushes.clear();
    calls.tasks.forget(`session:${instance}`);
  };
  const fail = (err: unknown): never => {
    // Only the kind and the library's sanitised reason leave: no upstream detail, no stack.
    if (McpClientError.is(err, "not_found")) throw new sdk.ProtocolError(INVALID_PARAMS, err.message);
    if (err instanceof TypeError) throw new sdk.ProtocolError(INVALID_PARAMS, err.message);
    throw new sdk.ProtocolError(-32603, McpClientError.is(err) ? err.message : "upstream request failed");
  };
  const opts = (ctx: SdkContext) => ({ signal: ctx.mcpReq.signal });

  // A 2025 host's level: its entries filtered here, and the upstreams asked for that much.
  server.setRequestHandler("logging/setLevel", async (req) => {
    if (typeof req.params?.level !== "string") throw new sdk.ProtocolError(INVALID_PARAMS, "level");
    parts.forward.hostLevel(server, req.params.level);
    return {};
  });

  // A 2025 host's roots changed: every upstream that can hear it is told, and asks again within
  // a call (roots asked outside a call are refused: several hosts may share an upstream).
  (server as unknown as NotificationHandlers).setNotificationHandler?.(
    "notifications/roots/list_changed",
    async () => {
      for (const [, client] of upstream.clients()) client.notifyRootsChanged();
    },
  );

  server.setRequestHandler("tools/list", async (_req, ctx) => {
    const tools = await calls.list(view, ctx.mcpReq.signal).catch(fail);
    return { tools: tools.map(wireTool) };
  });

  /** This round's link to the host (its capabilities, its progress token) and, for a retry, what it resumes. */
  const roundOf = (ctx: SdkContext, params: Record<string, unknown>) => {
    const raw = ctx.mcpReq.requestState();
    const state = typeof raw === "string" ? raw : undefined;
    const parkedId = state?.startsWith(PARKED) ? state.slice(PARKED.length) : undefined;
    const token = isObject(params._meta)
      ? (params._meta.progressToken as string | number | undefined)
      : undefined;
    const link = new InputLink(hostCaps(server.getClientCapabilities() ?? {}), progressTo(ctx, token));
    const responses = ctx.mcpReq.inputResponses;
    return { link, state, resume: parkedId === undefined ? undefined : { id: parkedId, responses } };
  };
  /** An upstream question as this round's answer: the host is asked under the upstream's own key. */
  const ask = (round: { id: string; key: string; method: string; params: Record<string, unknown> }) =>
    sdk.inputRequired({
      inputRequests: { [round.key]: { method: round.method, params: round.params } },
      requestState: `${PARKED}${round.id}`,
    });
  /** A prompts/get or resources/read whose upstream request may ask the host something. */
  const inRounds = async (
    method: string,
    req: { params?: Record<string, unknown> },
    ctx: SdkContext,
    start: (o: RequestOptions) => Promise<unknown>,
  ): Promise<unknown> => {
    const r = roundOf(ctx, req.params ?? {});
    const round = await calls.parked.run({
      method,
      principal: view.principal,
      link: r.link,
      signal: ctx.mcpReq.signal,
      resume: r.resume,
      start: (link, signal) =>
        start({ signal, assigns: link.assigns(), onProgress: (p: ProgressParams) => link.progress(p) }),
    });
    if (round.kind === "done") return round.value;
    if (round.kind === "unknown")
      throw new sdk.ProtocolError(INVALID_PARAMS, "unknown or expired requestState");
    return ask(round);
  };

  server.setRequestHandler("tools/call", async (req, ctx) => {
    const p = req.params ?? {};
    const name = typeof p.name === "string" ? p.name : "";
    const args = isObject(p.arguments) ? p.arguments : {};
    const r = roundOf(ctx, p);
    const responses = ctx.mcpReq.inputResponses;
    // A 2026-07-28 host asks for log entries per request (a 2025 session has them all already).
    const level = ctx.mcpReq.envelope?.[LOG_LEVEL_META];
    const serverId = calls.serverOf(view, name);
    if (typeof level === "string") await parts.forward.want(level, serverId);
    const untrack =
      serverId === undefined
        ? () => {}
        : parts.forward.track(
            serverId,
            typeof level === "string" && !parts.forward.live.has(server)
              ? {
                  level,
                  send: (entry) =>
                    void ctx.mcpReq
                      .notify({ method: "notifications/message", params: { ...entry } })
                      .catch(() => {}),
                }
              : null,
          );
    const task = taskAsked(p, ctx);
    const owner = ownerOf(ctx);
    // Over the cap: refused before governance and before anything reaches an upstream.
    const slot = task ? calls.tasks.reserve(owner) : null;
    if (task && !slot) throw new sdk.ProtocolError(-32600, "Too many live tasks for this caller");
    const outcome = await calls
      .call({
        view,
        name,
        args,
        signal: ctx.mcpReq.signal,
        approval: {
          canAsk: r.link.caps.elicitation,
          answer:
            r.resume === undefined && responses && APPROVAL_KEY in responses
              ? { response: responses[APPROVAL_KEY], digest: r.state }
              : null,
        },
        link: r.link,
        resume: r.resume,
        task: task ? { owner, ttl: task.ttl } : undefined,
      })
      .finally(() => {
        untrack();
        slot?.();
      });
    if (outcome.kind === "input") return ask(outcome);
    if (outcome.kind === "task") {
      const e = outcome.task;
      // A 2025 host hears its task's status change (notifications/tasks/status), on its session
      // or connection, rate-bounded.
      if (eraOf(ctx) === "legacy") {
        const send = (params: Record<string, unknown>) =>
          void (server as unknown as Notifier)
            .notification({ method: "notifications/tasks/status", params })
            .catch(() => {});
        const intervalMs = calls.tasks.options.statusIntervalMs;
        const push = new StatusPush(e, {
          view: () => wireTask(e, "legacy"),
          send,
          intervalMs,
          initial: false,
        });
        pushes.add(push);
        void e.done.then(() => pushes.delete(push));
      }
      return createResult(e, eraOf(ctx));
    }
    // A 2025 host that asked for a task gets one even when the upstream answered at once.
    if (outcome.kind === "result" && task && eraOf(ctx) === "legacy") {
      const e = calls.tasks.add(finishedTask(owner, outcome.tool.serverId, outcome.result));
      return createResult(e, "legacy");
    }
    if (outcome.kind === "ask") {
      const r = outcome.request;
      return sdk.inputRequired({
        inputRequests: {
          [APPROVAL_KEY]: {
            method: "elicitation/create",
            params: {
              mode: "form",
              message: `Allow ${name} (server ${r.serverId}) with these arguments?\n${clip(JSON.stringify(r.arguments))}${r.previous ? "\nWarning: the tool's definition changed since it was approved." : ""}`,
              requestedSchema: {
                type: "object",
                properties: {
                  allow: { type: "boolean", title: "Allow this call" },
                  remember: {
                    type: "boolean",
                    title: "Allow this tool for the rest of the session",
                    default: false,
                  },
                },
                required: ["allow"],
              },
            },
          },
        },
        // The digest the answer is for: a changed definition is asked again.
        requestState: r.digest,
      });
    }
    if (outcome.kind === "refused") {
      if (McpClientError.is(outcome.error, "not_found")) fail(outcome.error);
      // The upstream needs a capability the host did not declare (a task-only tool, the host
      // without the tasks extension): a 2026-07-28 host is told so, as the upstream told serve.
      if (eraOf(ctx) === "modern" && jsonRpcCode(outcome.error) === MISSING_CAPABILITY) {
        const data = { requiredCapabilities: requiredOf(outcome.error) };
        throw new sdk.ProtocolError(MISSING_CAPABILITY, "Missing required client capability", data);
      }
      return { content: [{ type: "text", text: refusalText(outcome.error) }], isError: true };
    }
    return server.projectCallToolResult(wireResult(outcome.result), outcome.tool.tool.outputSchema);
  });

  server.setRequestHandler("resources/list", async (_req, ctx) => ({
    resources: await upstream.resources(opts(ctx)).catch(fail),
  }));
  server.setRequestHandler("resources/templates/list", async (_req, ctx) => ({
    resourceTemplates: await upstream.templates(opts(ctx)).catch(fail),
  }));
  server.setRequestHandler("resources/read", async (req, ctx) =>
    inRounds("resources/read", req, ctx, (o) => upstream.read(String(req.params?.uri ?? ""), o)).catch(fail),
  );
  server.setRequestHandler("prompts/list", async (_req, ctx) => ({
    prompts: await upstream.prompts(opts(ctx)).catch(fail),
  }));
  server.setRequestHandler("prompts/get", async (req, ctx) => {
    const args = isObject(req.params?.arguments) ? req.params.arguments : {};
    const name = String(req.params?.name ?? "");
    return inRounds("prompts/get", req, ctx, (o) => upstream.getPrompt(name, args, o)).catch(fail);
  });
  server.setRequestHandler("completion/complete", async (req, ctx) => {
    const p = req.params ?? {};
    const ref = isObject(p.ref) ? (p.ref as { type: string; name?: string; uri?: string }) : { type: "" };
    const argument = isObject(p.argument)
      ? (p.argument as { name: string; value: string })
      : { name: "", value: "" };
    const context = isObject(p.context)
      ? { context: p.context as { arguments?: Record<string, string> } }
      : {};
    const r = await upstream.complete(ref, argument, { ...opts(ctx), ...context }).catch(fail);
    return { completion: r.completion };
  });

  return server;
}

/** What a host declared, as serve forwards to it (2025-11-25: an empty `elicitation` is form). */
function hostCaps(c: Record<string, unknown>): HostCaps {
  const e = isObject(c.elicitation) ? c.elicitation : null;
  return {
    elicitation: e !== null && (isObject(e.form) || !isObject(e.url)),
    url: e !== null && isObject(e.url),
    sampling: isObject(c.sampling),
    roots: isObject(c.roots),
  };
}

/** A round's progress sink: the host's request of this round, under its own token. */
function progressTo(
  ctx: SdkContext,
  token: string | number | undefined,
): ((p: ProgressParams) => void) | null {
  if (token === undefined) return null;
  return (p) =>
    void ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: { progressToken: token, progress: p.progress, total: p.total, message: p.message },
      })
      .catch(() => {});
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const clip = (s: string | undefined) =>
  s === undefined ? "{}" : s.length > 1000 ? `${s.slice(0, 999)}…` : s;

/**
 * A served tool as the wire has it: its public name, `_meta`, and task support `"optional"` when
 * its upstream runs it as a task (`"required"` too: serve awaits the task for a host that asks
 * for none, so every host can call it).
 */
function wireTool(t: ServedTool): Record<string, unknown> {
  const { serverId: _s, meta, execution, name: _n, ...rest } = t.tool;
  const support = execution?.taskSupport;
  const tasks = support === "optional" || support === "required";
  return {
    ...rest,
    name: t.name,
    ...(tasks ? { execution: { taskSupport: "optional" } } : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

/**
 * Whether the host asked for this call to run as a task: a 2025 host with `params.task` (its
 * `ttl`), a 2026-07-28 host by declaring the tasks extension in the request's capabilities.
 */
function taskAsked(p: Record<string, unknown>, ctx: SdkContext): { ttl: number | undefined } | null {
  if (eraOf(ctx) === "legacy") {
    if (!isObject(p.task)) return null;
    const ttl = p.task.ttl;
    return { ttl: typeof ttl === "number" && Number.isSafeInteger(ttl) && ttl > 0 ? ttl : undefined };
  }
  return declaresTasks(ctx) ? { ttl: undefined } : null;
}

const MISSING_CAPABILITY = -32021;

/** What the upstream said the host lacks (only that key of its error data leaves). */
function requiredOf(err: Error): Record<string, unknown> {
  const data = (err as { data?: { data?: { requiredCapabilities?: unknown } } }).data?.data;
  const r = data?.requiredCapabilities;
  return isObject(r) ? r : {};
}

function refusalText(err: Error): string {
  if (McpClientError.is(err)) {
    const why = (err.detail as { reason?: string } | undefined)?.reason;
    return `conduit-mcp refused or could not make this call: ${err.message}${why ? ` (${why})` : ""}`;
  }
  return "conduit-mcp could not make this call";
}
