// The io.modelcontextprotocol/tasks extension (SEP-2663) for conformance/serve-upstream.mjs, on the
// official server SDK: the SDK (2.4) has no task store of its own, so the tools return a
// `resultType: "task"` CreateTaskResult themselves and tasks/get, tasks/update, tasks/cancel are
// request handlers registered with explicit schemas (the SDK's way for the extension's methods).
// The tools are the fixtures the suite's tasks-* scenarios name (greet, slow_compute, failing_job,
// protocol_error_job, confirm_delete, multi_input, test_tool_with_task).
import {
  CLIENT_CAPABILITIES_META_KEY,
  inputRequired,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from "@modelcontextprotocol/server";
import { z } from "zod";

export const TASKS = "io.modelcontextprotocol/tasks";
const TTL_MS = 300_000;
const POLL_MS = 100;
const FINAL = ["completed", "failed", "cancelled"];
// Shared by every per-request server the HTTP handler builds: a task outlives its request.
const tasks = new Map();
let seq = 0;

const text = (t) => ({ content: [{ type: "text", text: t }] });
const now = () => new Date().toISOString();
const required = () =>
  new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS]: {} } } });

// The request's own client capabilities (the 2026-07-28 envelope, which the SDK lifts off the
// `_meta` the handler sees), else the session's (2025-11-25).
function declares(server, ctx) {
  const env = ctx.mcpReq.envelope;
  const caps =
    env?.[CLIENT_CAPABILITIES_META_KEY] ?? env?.clientCapabilities ?? server.getClientCapabilities();
  return caps?.extensions?.[TASKS] !== undefined;
}

function envelope(t) {
  return {
    taskId: t.taskId,
    status: t.status,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlMs: TTL_MS,
    pollIntervalMs: POLL_MS,
    ...(t.statusMessage ? { statusMessage: t.statusMessage } : {}),
  };
}

function detailed(t) {
  return {
    ...envelope(t),
    ...(t.status === "input_required" ? { inputRequests: t.inputRequests } : {}),
    ...(t.status === "completed" ? { result: t.result } : {}),
    ...(t.status === "failed" ? { error: t.error } : {}),
  };
}

function set(t, status, extra = {}) {
  if (FINAL.includes(t.status)) return false;
  Object.assign(t, { status, lastUpdatedAt: now() }, extra);
  if (FINAL.includes(status)) clearTimeout(t.timer);
  return true;
}

// Creates a task and starts `run(task)`; the task exists before the CreateTaskResult leaves.
function create(run) {
  const t = { taskId: `t${++seq}-${Math.random().toString(36).slice(2, 10)}`, status: "working" };
  t.createdAt = t.lastUpdatedAt = now();
  tasks.set(t.taskId, t);
  run(t);
  return { resultType: "task", ...envelope(t) };
}

const after = (t, ms, fn) => {
  t.timer = setTimeout(fn, ms);
};
// The suite answers confirm_delete with { confirm: true } and multi_input with { name, confirm }:
// the questions ask for those fields, so a client that checks answers against the schema passes them.
const ask = (message) => ({
  method: "elicitation/create",
  params: {
    mode: "form",
    message,
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string" }, confirm: { type: "boolean" } },
    },
  },
});

// Parks the task on `questions`; answers may come one key at a time (partial fulfilment).
function park(t, questions, done) {
  set(t, "input_required", { inputRequests: { ...questions }, answers: {} });
  t.onInput = (responses) => {
    for (const [k, v] of Object.entries(responses ?? {})) {
      if (k in t.inputRequests) {
        t.answers[k] = v;
        delete t.inputRequests[k];
      }
    }
    if (Object.keys(t.inputRequests).length > 0) return set(t, "input_required", {});
    t.onInput = undefined;
    set(t, "working", { inputRequests: undefined });
    done(t.answers);
  };
}

// Tools that only run as tasks: a caller without the extension gets -32021 before the tool runs.
// McpServer's own tools/call handler turns every thrown error into an `isError` result, so the
// gate wraps that handler as McpServer installs it: call this before the first registerTool, on a
// server constructed without the `tools` capability (which would install the handler at once).
const TASK_ONLY = new Set(["failing_job", "protocol_error_job", "confirm_delete", "multi_input"]);
export function gateTaskOnlyTools(s) {
  const server = s.server;
  const install = server.setRequestHandler.bind(server);
  server.setRequestHandler = (method, ...rest) => {
    if (method !== "tools/call" || typeof rest[0] !== "function") return install(method, ...rest);
    const handler = rest[0];
    return install(method, async (request, ctx) => {
      if (TASK_ONLY.has(request.params?.name) && !declares(server, ctx)) throw required();
      return handler(request, ctx);
    });
  };
}

export function registerTaskTools(s) {
  const server = s.server;
  const tool = (name, description, inputSchema, handler) =>
    s.registerTool(name, { description, inputSchema }, handler);

  tool("greet", "Says hello (sync only)", z.object({ name: z.string().optional() }), async ({ name }) =>
    text(`Hello, ${name ?? "World"}!`),
  );
  tool(
    "slow_compute",
    "Sleeps `seconds` then answers (task-supporting)",
    z.object({ seconds: z.number().optional(), label: z.string().optional() }),
    async ({ seconds = 0, label = "" }, ctx) => {
      const answer = text(`computed ${label} after ${seconds}s`);
      if (!declares(server, ctx)) {
        await new Promise((r) => setTimeout(r, seconds * 1000));
        return answer;
      }
      return create((t) => after(t, seconds * 1000, () => set(t, "completed", { result: answer })));
    },
  );
  tool("failing_job", "A tool error after a moment (task required)", z.object({}), async (_a, ctx) => {
    if (!declares(server, ctx)) throw required();
    return create((t) =>
      after(t, 300, () => set(t, "completed", { result: { ...text("the job failed"), isError: true } })),
    );
  });
  tool("protocol_error_job", "A protocol error (task required)", z.object({}), async (_a, ctx) => {
    if (!declares(server, ctx)) throw required();
    return create((t) =>
      after(t, 100, () => set(t, "failed", { error: { code: -32603, message: "the job crashed" } })),
    );
  });
  tool(
    "confirm_delete",
    "Asks to confirm (task required)",
    z.object({ filename: z.string().optional() }),
    async ({ filename = "file" }, ctx) => {
      if (!declares(server, ctx)) throw required();
      return create((t) =>
        park(t, { confirm: ask(`Delete ${filename}?`) }, (a) =>
          set(t, "completed", { result: text(`confirm_delete answered ${JSON.stringify(a.confirm)}`) }),
        ),
      );
    },
  );
  tool("multi_input", "Asks two questions at once (task required)", z.object({}), async (_a, ctx) => {
    if (!declares(server, ctx)) throw required();
    return create((t) =>
      park(t, { first: ask("First name?"), second: ask("Last name?") }, (a) =>
        set(t, "completed", { result: text(`multi_input answered ${JSON.stringify(a)}`) }),
      ),
    );
  });
  tool(
    "test_tool_with_task",
    "Asks a name (input_required), then runs a task",
    z.object({}),
    async (_a, ctx) => {
      const name = ctx.mcpReq.inputResponses?.user_name;
      if (name === undefined)
        return inputRequired({ inputRequests: { user_name: ask("What is your name?") } });
      if (!declares(server, ctx)) throw required();
      return create((t) =>
        after(t, 200, () => set(t, "completed", { result: text(`Hello, ${JSON.stringify(name)}`) })),
      );
    },
  );

  const lookup = (params, ctx) => {
    if (!declares(server, ctx)) throw required();
    const t = tasks.get(params.taskId);
    if (!t) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Task not found");
    return t;
  };
  const id = z.object({ taskId: z.string() }).passthrough();
  server.setRequestHandler("tasks/get", { params: id }, async (params, ctx) => detailed(lookup(params, ctx)));
  server.setRequestHandler(
    "tasks/update",
    { params: id.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() }) },
    async (params, ctx) => {
      // The SDK lifts `inputResponses` off the params into the request context (as for MRTR).
      lookup(params, ctx).onInput?.(params.inputResponses ?? ctx.mcpReq.inputResponses);
      return {};
    },
  );
  server.setRequestHandler("tasks/cancel", { params: id }, async (params, ctx) => {
    set(lookup(params, ctx), "cancelled");
    return {};
  });
}
