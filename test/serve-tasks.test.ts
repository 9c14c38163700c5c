/**
 * Tasks through serve (issue 29), over HTTP with callers: a 2025-11-25 host (the official client,
 * its raw `tools/call` with `params.task` and `tasks/*`) and a 2026-07-28 host (conduit-mcp's
 * client: the official client's 2026-07-28 era refuses `resultType: "task"`), in front of
 * test/fixtures/task-server.mjs speaking each era upstream. Ids are serve's own and bound to the
 * caller; foreign and forged ids, a cancel of a finished task, a flood over the cap, a task past
 * its deadline and an upstream with malformed tasks are refused or ended, and counted upstream.
 */
import { fileURLToPath } from "node:url";
import type { Client as SdkClient } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, type McpClientError, type Task } from "../src/index.js";
import type { AuditEntry } from "../src/serve/audit.js";
import { nodeServer, silentLogger, waitFor } from "./support/index.js";
import { closeHost, httpHost, type ServedHub, serveHub, textOf } from "./support/serve.js";

const TASK_SERVER = fileURLToPath(new URL("./fixtures/task-server.mjs", import.meta.url));
const HOSTILE = fileURLToPath(new URL("./fixtures/serve-tasks-hostile.mjs", import.meta.url));
const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789ab";
const CAROL = "carol-token-0123456789";
/** The official client's `request()` with no result schema of its own (it has none for tasks). */
const ANY = {
  "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
} as never;
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in the assertions
type Json = Record<string, any>;

describe("serve: tasks passed through", () => {
  let s: ServedHub;
  const audit: AuditEntry[] = [];
  const hosts: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    s = await serveHub(
      {
        servers: {
          m: {
            transport: nodeServer(TASK_SERVER, ['{"pollIntervalMs":30}']),
            client: { protocol: "modern" },
          },
          l: {
            transport: nodeServer(TASK_SERVER, ['{"pollIntervalMs":30}']),
            client: { protocol: "legacy" },
          },
          hm: { transport: nodeServer(HOSTILE), client: { protocol: "modern" } },
          hl: { transport: nodeServer(HOSTILE), client: { protocol: "legacy" } },
        },
      },
      {
        callers: [
          { token: ALICE, principal: "alice" },
          { token: BOB, principal: "bob" },
          { token: CAROL, principal: "carol" },
        ],
        policy: {
          policy: [{ server: "m", tool: "plain", decision: "deny", reason: "not as a task either" }],
        },
        audit: (e) => audit.push(e),
        tasks: { maxPerCaller: 3, deadlineMs: 1_500 },
      },
    );
  }, 30_000);

  afterAll(async () => {
    await Promise.all(hosts.splice(0).map((h) => h.close()));
    await s?.close();
  });

  /** A 2025-11-25 host: the official client. */
  const legacyHost = async (token: string, elicit?: () => Json) => {
    const h = await httpHost(s.served.url!, "legacy", { token, ...(elicit ? { elicit } : {}) });
    hosts.push({ close: () => closeHost(h) });
    return h;
  };
  /** A 2026-07-28 host: conduit-mcp's client. */
  const modernHost = (token: string, elicit?: () => Json) => {
    const h = new Client({
      name: "host",
      transport: { type: "http", url: s.served.url!, auth: { bearer: token } },
      protocol: "modern",
      logger: silentLogger(),
      ...(elicit ? { handler: { elicitation: async () => elicit() as never } } : {}),
    });
    hosts.push(h);
    return h;
  };
  const send = (h: SdkClient, method: string, params: Json) =>
    h.request({ method, params } as never, ANY) as Promise<Json>;
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => {
        throw new Error("expected an error");
      },
      (e: { code?: number }) => e.code,
    );
  /** The upstream's counters, through serve's view of it (a plain call: `calls` counts it too). */
  const stats = async (up: string): Promise<Json> => {
    const r = await s.hub.callTool(`mcp__${up}__stats`, {});
    return r.structured as Json;
  };

  for (const up of ["m", "l"]) {
    it(`a 2025 host runs a ${up === "m" ? "2026" : "2025"} upstream's tool as a task: get, result, list, status`, async () => {
      const h = await legacyHost(ALICE);
      const heard: Json[] = [];
      h.setNotificationHandler("notifications/tasks/status" as never, (n: Json) => void heard.push(n.params));
      const before = await stats(up);
      const created = await send(h, "tools/call", {
        name: `mcp__${up}__job`,
        arguments: { ms: 300 },
        task: { ttl: 60_000 },
      });
      const id = created.task.taskId as string;
      expect(created.task.status).toBe("working");
      // serve's own id: not the upstream's (task-N-...), 128 random bits.
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      const got = await send(h, "tasks/get", { taskId: id });
      expect(got).toMatchObject({ taskId: id, status: "working", ttl: expect.any(Number) });
      const listed = await send(h, "tasks/list", {});
      expect(listed.tasks.map((t: Json) => t.taskId)).toContain(id);
      const result = await send(h, "tasks/result", { taskId: id });
      expect(textOf(result)).toBe("done");
      expect(result._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId: id } });
      expect((await send(h, "tasks/get", { taskId: id })).status).toBe("completed");
      const after = await stats(up);
      // It ran upstream as a task, and serve waited for it there.
      expect(after.calls - before.calls).toBe(2);
      expect(after.gets + after.results).toBeGreaterThan(before.gets + before.results);
      await waitFor(() => heard.some((n) => n.taskId === id && n.status === "completed"), 5_000);
      // A task the upstream failed: its JSON-RPC error, code and (sanitised) message.
      const broken = await send(h, "tools/call", {
        name: `mcp__${up}__job`,
        arguments: { ms: 50, fail: true },
        task: {},
      });
      await expect(send(h, "tasks/result", { taskId: broken.task.taskId })).rejects.toMatchObject({
        code: -32603,
        message: expect.stringContaining("the job broke"),
      });
      expect((await send(h, "tasks/get", { taskId: broken.task.taskId })).status).toBe("failed");
      await waitFor(
        () => audit.some((e) => e.server === up && e.tool === "job" && e.outcome === "ok"),
        5_000,
      );
      expect(audit.find((e) => e.server === up && e.tool === "job")).toMatchObject({
        principal: "alice",
        decision: "allow",
      });
    });

    it(`a 2026 host runs a ${up === "m" ? "2026" : "2025"} upstream's tool as a task, and cancels one`, async () => {
      const h = modernHost(ALICE);
      const task = (await h.callTool(`mcp__${up}__job`, { ms: 200 }, { task: "return" })) as Task;
      expect(task.status).toBe("working");
      expect(textOf(await h.awaitTask(task, { timeout: 10_000 }))).toBe("done");
      const broken = (await h.callTool(
        `mcp__${up}__job`,
        { ms: 50, fail: true },
        { task: "return" },
      )) as Task;
      const why = await h.awaitTask(broken, { timeout: 10_000 }).catch((e: McpClientError) => e);
      expect(why).toMatchObject({ kind: "protocol", reason: "jsonrpc_error", detail: { jsonrpc: -32603 } });
      expect((why as McpClientError).serverMessage()).toContain("the job broke");
      const before = await stats(up);
      const running = (await h.callTool(`mcp__${up}__job`, { never: true }, { task: "return" })) as Task;
      await h.cancelTask(running);
      expect((await h.getTask(running)).status).toBe("cancelled");
      // serve's wait stopped, which cancels the task upstream.
      await waitFor(async () => (await stats(up)).cancels > before.cancels, 5_000);
      // Cancelling a finished task is the extension's idempotent empty ack (SEP-2663: -32602 is
      // for unknown ids only): it stays completed, and nothing more goes upstream.
      const cancels = (await stats(up)).cancels;
      await expect(h.cancelTask(task)).resolves.toBeUndefined();
      expect((await h.getTask(task)).status).toBe("completed");
      expect((await stats(up)).cancels).toBe(cancels);
    });
  }

  it("what a task asks is put to the host that made it: inputRequests and tasks/update (2026), requests in tasks/result (2025)", async () => {
    const ada = () => ({ action: "accept", content: { name: "Ada" } });
    const modern = modernHost(ALICE, ada);
    const task = (await modern.callTool("mcp__m__job", { ms: 200, input: true }, { task: "return" })) as Task;
    expect(textOf(await modern.awaitTask(task, { timeout: 10_000 }))).toBe("hello Ada");
    const legacy = await legacyHost(ALICE, () => ({ action: "accept", content: { name: "Grace" } }));
    const created = await send(legacy, "tools/call", {
      name: "mcp__m__job",
      arguments: { ms: 200, input: true },
      task: {},
    });
    await waitFor(
      async () =>
        (await send(legacy, "tasks/get", { taskId: created.task.taskId })).status === "input_required",
      5_000,
    );
    expect(textOf(await send(legacy, "tasks/result", { taskId: created.task.taskId }))).toBe("hello Grace");
    // A host that cannot be asked: the question is declined for it, and the task goes on.
    const mute = await legacyHost(ALICE);
    const other = await send(mute, "tools/call", {
      name: "mcp__m__job",
      arguments: { ms: 100, input: true },
      task: {},
    });
    expect(textOf(await send(mute, "tasks/result", { taskId: other.task.taskId }))).toBe("done");
  });

  it("a tool its upstream requires as a task is callable by hosts that ask for none (serve awaits it)", async () => {
    const legacy = await legacyHost(ALICE);
    const tools = await legacy.listTools();
    expect(tools.tools.find((t) => t.name === "mcp__l__must")?.execution).toEqual({
      taskSupport: "optional",
    });
    expect(textOf(await legacy.callTool({ name: "mcp__l__must", arguments: { ms: 50 } }))).toBe("done");
    const modern = modernHost(ALICE);
    expect(textOf(await modern.callTool("mcp__m__must", { ms: 50 }))).toBe("done");
    // A 2025 host that asks for a task of a tool run at once still gets one, already completed.
    const created = await send(legacy, "tools/call", { name: "mcp__l__plain", arguments: {}, task: {} });
    const done = await send(legacy, "tasks/result", { taskId: created.task.taskId });
    expect(textOf(done)).toBe("at once");
  });

  it("another caller's task id is not found for it, and nothing reaches the upstream", async () => {
    const alice = await legacyHost(ALICE);
    const bob = await legacyHost(BOB);
    const created = await send(alice, "tools/call", {
      name: "mcp__l__job",
      arguments: { never: true },
      task: {},
    });
    const id = created.task.taskId;
    const before = await stats("l");
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      expect(await failure(send(bob, method, { taskId: id }))).toBe(-32602);
    }
    expect((await send(bob, "tasks/list", {})).tasks.map((t: Json) => t.taskId)).not.toContain(id);
    // A 2026 host of the same other caller: the same answer.
    const bobModern = new Client({
      name: "bob",
      transport: { type: "http", url: s.served.url!, auth: { bearer: BOB } },
      protocol: "modern",
      logger: silentLogger(),
    });
    hosts.push(bobModern);
    const mine = (await bobModern.callTool("mcp__m__job", { ms: 20 }, { task: "return" })) as Task;
    await bobModern.awaitTask(mine, { timeout: 5_000 });
    const after = await stats("l");
    expect(after.cancels).toBe(before.cancels);
    expect((await send(alice, "tasks/get", { taskId: id })).status).toBe("working");
    await send(alice, "tasks/cancel", { taskId: id });
  });

  it("forged and garbage ids are not found, and reach no upstream", async () => {
    const h = await legacyHost(ALICE);
    const created = await send(h, "tools/call", { name: "mcp__l__job", arguments: { ms: 50 }, task: {} });
    await send(h, "tasks/result", { taskId: created.task.taskId });
    const before = await stats("l");
    const forged = [
      "task-1-abc",
      "",
      "x".repeat(10_000),
      `${created.task.taskId}x`,
      "../l/task-1",
      "mcp__l__task-1",
    ];
    for (const taskId of forged) {
      for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
        expect(await failure(send(h, method, { taskId }))).toBe(-32602);
      }
    }
    expect(await failure(send(h, "tasks/get", { taskId: 42 }))).toBe(-32602);
    expect(await failure(send(h, "tasks/get", {}))).toBe(-32602);
    const after = await stats("l");
    expect([after.calls, after.cancels, after.results]).toEqual([
      before.calls + 1,
      before.cancels,
      before.results,
    ]);
  });

  it("a task past serve's deadline is cancelled upstream and failed for the host", async () => {
    const h = await legacyHost(ALICE);
    const before = await stats("m");
    const created = await send(h, "tools/call", {
      name: "mcp__m__job",
      arguments: { never: true },
      task: {},
    });
    const id = created.task.taskId;
    expect(await failure(send(h, "tasks/result", { taskId: id }))).toBe(-32603);
    expect((await send(h, "tasks/get", { taskId: id })).status).toBe("failed");
    await waitFor(async () => (await stats("m")).cancels > before.cancels, 5_000);
    await waitFor(() => audit.some((e) => e.server === "m" && e.outcome === "timeout"), 5_000);
  });

  it("a flood of task creations over the per-caller cap is refused before the upstream", async () => {
    // Bob's own: the cap is per caller.
    const h = await legacyHost(BOB);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const c = await send(h, "tools/call", { name: "mcp__l__job", arguments: { never: true }, task: {} });
      ids.push(c.task.taskId);
    }
    const before = await stats("l");
    const refused = await Promise.all(
      Array.from({ length: 20 }, () =>
        failure(send(h, "tools/call", { name: "mcp__l__job", arguments: { never: true }, task: {} })),
      ),
    );
    expect(new Set(refused)).toEqual(new Set([-32600]));
    expect((await stats("l")).calls).toBe(before.calls + 1);
    // Alice is not affected by Bob's flood.
    const alice = modernHost(ALICE);
    const t = (await alice.callTool("mcp__m__job", { ms: 10 }, { task: "return" })) as Task;
    await alice.awaitTask(t, { timeout: 5_000 });
    // A cancelled (finished) task makes room for the next.
    await send(h, "tasks/cancel", { taskId: ids[0] });
    const again = await send(h, "tools/call", { name: "mcp__l__job", arguments: { ms: 10 }, task: {} });
    expect(again.task.status).toBe("working");
    for (const id of ids.slice(1)) await send(h, "tasks/cancel", { taskId: id });
  });

  it("concurrent creations cannot pass the cap together", async () => {
    const h = await legacyHost(CAROL);
    const before = await stats("m");
    const answers = await Promise.allSettled(
      Array.from({ length: 12 }, () =>
        send(h, "tools/call", { name: "mcp__m__job", arguments: { never: true }, task: {} }),
      ),
    );
    const made = answers
      .filter((a) => a.status === "fulfilled")
      .map((a) => (a as PromiseFulfilledResult<Json>).value);
    expect(made).toHaveLength(3);
    expect(
      answers.filter((a) => a.status === "rejected").map((a) => (a as PromiseRejectedResult).reason.code),
    ).toEqual(Array(9).fill(-32600));
    // Three reached the upstream (and the stats call itself).
    expect((await stats("m")).calls).toBe(before.calls + 4);
    for (const c of made) await send(h, "tasks/cancel", { taskId: c.task.taskId });
  });

  it("governance decides a task-augmented call as a plain one: denied, audited, nothing upstream", async () => {
    const h = await legacyHost(ALICE);
    const before = await stats("m");
    const r = await send(h, "tools/call", { name: "mcp__m__plain", arguments: {}, task: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/denied/);
    expect((await stats("m")).calls).toBe(before.calls + 1);
    expect(audit.find((e) => e.server === "m" && e.tool === "plain")).toMatchObject({
      decision: "deny",
      outcome: "denied",
    });
  });

  for (const up of ["hm", "hl"]) {
    it(`an upstream (${up === "hm" ? "2026" : "2025"}) with malformed tasks: refused, or failed`, async () => {
      const h = await legacyHost(ALICE);
      // No task id: the client refuses the result; the host gets an error, no task.
      const bad = await send(h, "tools/call", { name: `mcp__${up}__malformed`, arguments: {}, task: {} });
      expect(bad.isError).toBe(true);
      expect(bad.task).toBeUndefined();
      // A task whose tasks/get names another task: failed for the host.
      const liar = await send(h, "tools/call", { name: `mcp__${up}__liar`, arguments: {}, task: {} });
      const id = liar.task.taskId;
      expect(id).not.toBe("liar-1");
      await waitFor(async () => (await send(h, "tasks/get", { taskId: id })).status === "failed", 5_000);
      expect(await failure(send(h, "tasks/result", { taskId: id }))).toBe(-32603);
    });
  }

  it("a 2026 host that declares no tasks gets the result (serve awaits the task)", async () => {
    const h = modernHost(ALICE);
    const r = await h.callTool("mcp__m__job", { ms: 50 });
    expect(textOf(r)).toBe("done");
    // The upstream's own task id (its related-task meta) never reaches the host.
    expect(JSON.stringify(r.meta ?? {})).not.toContain("task-");
  });
});
