import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Client, type ClientOptions, McpClientError, type Task } from "../src/index.js";
import { EVENT_NAMES } from "../src/telemetry/index.js";
import { waitFor } from "./support/async.js";
import { afterRequestStarts } from "./support/events.js";
import { recordEvents, recordingLogger } from "./support/scripted.js";

const TASK_SERVER = fileURLToPath(new URL("./fixtures/task-server.mjs", import.meta.url));
const EVERYTHING = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function taskClient(
  protocol: "modern" | "legacy",
  config: Record<string, unknown> = {},
  extra: Partial<ClientOptions> = {},
) {
  const c = new Client({
    name: `tasks-${protocol}`,
    transport: { type: "stdio", command: process.execPath, args: [TASK_SERVER, JSON.stringify(config)] },
    protocol,
    logger: recordingLogger(),
    handler: {
      elicitation: async () => ({ action: "accept", content: { name: "Ada" } }),
    },
    ...extra,
  });
  open.push(c);
  return c;
}

const stats = async (c: Client) =>
  (await c.callTool("stats", {})).structured as Record<
    "gets" | "updates" | "cancels" | "results" | "listens",
    number
  >;
const text = (r: { content: Array<Record<string, unknown>> }) => r.content[0]?.text;

describe.each(["modern", "legacy"] as const)("tasks, %s era", (era) => {
  it('task: "return" gives a Task; getTask and awaitTask follow it to the result', async () => {
    const c = taskClient(era);
    const task = (await c.callTool("job", { ms: 150 }, { task: "return" })) as Task;
    expect(task).toMatchObject({ status: "working", era, pollIntervalMs: 50, ttlMs: 60_000 });
    expect(typeof task.id).toBe("string");
    expect((await c.getTask(task)).status).toBe("working");
    const result = await c.awaitTask(task, { timeout: 5000 });
    expect(text(result)).toBe("done");
    expect(result.isError).toBe(false);
  });

  it('task: "await" polls to the end and returns the ToolResult', async () => {
    const c = taskClient(era);
    const result = await c.callTool("job", { ms: 120 }, { task: "await", timeout: 5000 });
    expect(text(result)).toBe("done");
  });

  it("a failed task rejects with its JSON-RPC error", async () => {
    const c = taskClient(era);
    await expect(c.callTool("job", { ms: 50, fail: true }, { task: "await" })).rejects.toMatchObject({
      kind: "protocol",
      reason: "jsonrpc_error",
      detail: { jsonrpc: -32603 },
    });
  });

  it("cancelTask is cooperative, and awaiting a cancelled task rejects", async () => {
    const c = taskClient(era);
    const task = (await c.callTool("job", { never: true }, { task: "return" })) as Task;
    await c.cancelTask(task);
    await expect(c.awaitTask(task, { timeout: 2000 })).rejects.toMatchObject({
      kind: "unavailable",
      reason: "task_cancelled",
    });
    expect((await stats(c)).cancels).toBe(1);
  });

  it("the timeout bounds the whole wait, and the task is cancelled when it passes", async () => {
    const c = taskClient(era);
    // The task exists first (under load, making it can take longer than the wait's timeout).
    const task = (await c.callTool("job", { never: true }, { task: "return" })) as Task;
    // The task never ends: only the wait's deadline can reject it with kind timeout.
    await expect(c.awaitTask(task, { timeout: 300 })).rejects.toMatchObject({ kind: "timeout" });
    await waitFor(async () => (await stats(c)).cancels === 1);
    expect((await stats(c)).cancels).toBe(1);
    // callTool with task "await" takes the same path: one deadline for the call and the wait.
    await expect(c.callTool("job", { never: true }, { task: "await", timeout: 1 })).rejects.toMatchObject({
      kind: "timeout",
    });
  });

  it("an abort cancels the task too", async () => {
    const c = taskClient(era);
    const task = (await c.callTool("job", { never: true }, { task: "return" })) as Task;
    const ac = new AbortController();
    // Aborted while it waits: once it has asked the server about the task.
    afterRequestStarts("tasks/get", () => ac.abort(new Error("enough")), c.name);
    await expect(c.awaitTask(task, { signal: ac.signal })).rejects.toThrow("enough");
    await waitFor(async () => (await stats(c)).cancels > 0, "the server to see the cancellation");
    expect((await stats(c)).cancels).toBe(1);
  });

  it("a tool that does not run as a task answers at once, even with task set", async () => {
    const c = taskClient(era);
    const r = await c.callTool("plain", {}, { task: "return" });
    expect(text(r as { content: Array<Record<string, unknown>> })).toBe("at once");
  });

  it("task ids never appear in events or logs", async () => {
    const logger = recordingLogger();
    const rec = recordEvents(...EVENT_NAMES);
    const c = taskClient(era, {}, { logger });
    const task = (await c.callTool("job", { ms: 100 }, { task: "return" })) as Task;
    await c.awaitTask(task);
    await c.close();
    rec.stop();
    expect(JSON.stringify(rec.events)).not.toContain(task.id);
    expect(logger.lines.join("\n")).not.toContain(task.id);
  });
});

describe("modern tasks", () => {
  it("an input_required task is answered by the handler through tasks/update", async () => {
    const c = taskClient("modern");
    const result = await c.callTool("job", { ms: 120, input: true }, { task: "await", timeout: 5000 });
    expect(text(result)).toBe("hello Ada");
    expect((await stats(c)).updates).toBe(1);
  });

  it("the tasks extension is declared only on requests made with task", async () => {
    const c = taskClient("modern");
    expect(text((await c.callTool("job", { ms: 10 })) as { content: Array<Record<string, unknown>> })).toBe(
      "at once",
    );
  });

  it("status notifications through the listen stream wake the waiter before the poll interval", async () => {
    // A poll interval far past the call's timeout: the call can only succeed if the status
    // notification wakes the waiter (the first poll would come after the deadline).
    const c = taskClient("modern", { pollIntervalMs: 60_000, notify: true });
    const result = await c.callTool("job", { ms: 200 }, { task: "await", timeout: 10_000 });
    expect(text(result)).toBe("done");
    expect((await stats(c)).listens).toBeGreaterThanOrEqual(1);
  });

  it("a resultType task without having asked for one is a protocol error", async () => {
    const c = taskClient("modern", { alwaysTask: true });
    await expect(c.callTool("job", { ms: 10 })).rejects.toMatchObject({
      kind: "protocol",
      reason: "invalid_result_type",
    });
    expect(text((await c.callTool("plain", {})) as { content: Array<Record<string, unknown>> })).toBe(
      "at once",
    );
  });

  it("a task is bound to the client that created it", async () => {
    const a = taskClient("modern");
    const b = taskClient("modern");
    const task = (await a.callTool("job", { never: true }, { task: "return" })) as Task;
    await expect(b.getTask(task)).rejects.toThrow(TypeError);
    await expect(a.getTask({ ...task })).rejects.toThrow(TypeError);
  });
});

describe("legacy tasks", () => {
  it('a "required" tool runs as a task and is awaited even without the task option', async () => {
    const c = taskClient("legacy");
    const r = await c.callTool("must", { ms: 80 });
    expect(text(r)).toBe("done");
    const s = await stats(c);
    expect(s.results).toBe(1);
  });

  it('an "optional" tool runs as a task only when asked', async () => {
    const c = taskClient("legacy");
    expect(text((await c.callTool("job", { ms: 10 })) as { content: Array<Record<string, unknown>> })).toBe(
      "at once",
    );
    const task = await c.callTool("job", { ms: 10 }, { task: "return", taskTtl: 30_000 });
    expect((task as Task).id).toBeTypeOf("string");
  });

  it("against server-everything: a research task with input required, answered by the handler", async () => {
    const asked: string[] = [];
    const c = new Client({
      name: "everything-tasks",
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
        stderr: "discard",
        stdinGrace: 100,
      },
      logger: recordingLogger(),
      handler: {
        elicitation: async (params) => {
          asked.push(String(params.message));
          const schema = params.requestedSchema as {
            properties: Record<string, { oneOf?: Array<{ const: string }> }>;
          };
          const [field, spec] = Object.entries(schema.properties)[0]!;
          return { action: "accept", content: { [field]: spec.oneOf?.[0]?.const ?? "technical" } };
        },
      },
    });
    open.push(c);
    await c.ready({ timeout: 15_000 });
    expect(c.era()).toBe("legacy");
    const tools = await c.listAllTools();
    expect(tools.find((t) => t.name === "simulate-research-query")?.execution?.taskSupport).toBe("required");
    const [plain, ambiguous] = await Promise.all([
      c.callTool("simulate-research-query", { topic: "tides" }, { task: "await", timeout: 20_000 }),
      c.callTool("simulate-research-query", { topic: "python", ambiguous: true }, { timeout: 20_000 }),
    ]);
    expect(plain.isError).toBe(false);
    expect(JSON.stringify(plain.content)).toContain("tides");
    expect(ambiguous.isError).toBe(false);
    expect(asked.length).toBe(1);
  }, 30_000);

  it("a task of server-everything can be returned, read and cancelled", async () => {
    const c = new Client({
      name: "everything-cancel",
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
        stderr: "discard",
        stdinGrace: 100,
      },
      logger: recordingLogger(),
    });
    open.push(c);
    const task = (await c.callTool(
      "simulate-research-query",
      { topic: "x" },
      { task: "return", timeout: 10_000 },
    )) as Task;
    expect(task.status).toBe("working");
    expect((await c.getTask(task)).status).toBe("working");
    await c.cancelTask(task);
    expect(["cancelled", "working"]).toContain(task.status);
    const err = await c.awaitTask(task, { timeout: 3000 }).catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
  }, 20_000);
});
