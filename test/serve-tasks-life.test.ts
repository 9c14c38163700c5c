import { afterEach, describe, expect, it } from "vitest";
import { Client, type Task } from "../src/index.js";
import { serve } from "../src/serve/index.js";
import { CLI } from "./support/cli.js";
import { silentLogger, waitFor } from "./support/index.js";
import { closeHost, httpHost, servedTaskUpstream, TASK_SERVER, textOf } from "./support/serve.js";

const ANY = {
  "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
} as never;
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in the assertions
type Json = Record<string, any>;

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => {});
});

const upstreamStats = async (c: Client): Promise<Json> => (await c.callTool("stats", {})).structured as Json;

describe.each(["modern", "legacy"] as const)("serve over stdio: a %s host", (era) => {
  it("runs a task, cancels one, and calls a tool required as a task plainly", async () => {
    const host = new Client({
      name: "desktop",
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [CLI, "serve", "--", process.execPath, TASK_SERVER, '{"pollIntervalMs":30}'],
      },
      protocol: era,
      logger: silentLogger(),
    });
    open.push(() => host.close());
    const task = (await host.callTool("job", { ms: 100 }, { task: "return" })) as Task;
    expect(task.status).toBe("working");
    expect(task.id).not.toMatch(/^task-/);
    expect(textOf(await host.awaitTask(task, { timeout: 10_000 }))).toBe("done");
    const before = await upstreamStats(host);
    const running = (await host.callTool("job", { never: true }, { task: "return" })) as Task;
    await host.cancelTask(running);
    await waitFor(async () => (await upstreamStats(host)).cancels > before.cancels, 5_000);
    // A tool its upstream requires as a task, called plainly: serve awaits it.
    expect(textOf(await host.callTool("must", { ms: 20 }))).toBe("done");
  });
});

describe("serve(client): one upstream behind serve", () => {
  it("hands a 2025 host the upstream's task; forgets it after its TTL, when its session ends, at close", async () => {
    const { upstream, served } = await servedTaskUpstream({ ttlMs: 600 }, open);
    const h = await httpHost(served.url!, "legacy");
    open.push(() => closeHost(h));
    const send = (method: string, params: Json) =>
      h.request({ method, params } as never, ANY) as Promise<Json>;

    const created = await send("tools/call", { name: "job", arguments: { ms: 50 }, task: {} });
    expect(textOf(await send("tasks/result", { taskId: created.task.taskId }))).toBe("done");

    // Past its TTL, a running task is cancelled upstream and its id found no more.
    const before = await upstreamStats(upstream);
    const old = await send("tools/call", { name: "job", arguments: { never: true }, task: {} });
    await waitFor(async () => (await upstreamStats(upstream)).cancels > before.cancels, 5_000);
    await new Promise((r) => setTimeout(r, 100));
    await expect(send("tasks/get", { taskId: old.task.taskId })).rejects.toMatchObject({ code: -32602 });

    // A 2025 session's tasks (no callers: bound to the session) end with it, long before their
    // TTL and deadline (the defaults here: an hour, half an hour).
    const plain = await serve(upstream, { transport: { type: "http", port: 0 }, logger: silentLogger() });
    open.push(() => plain.close());
    const other = await httpHost(plain.url!, "legacy");
    const ended = await upstreamStats(upstream);
    await other.request(
      { method: "tools/call", params: { name: "job", arguments: { never: true }, task: {} } } as never,
      ANY,
    );
    await closeHost(other);
    await waitFor(async () => (await upstreamStats(upstream)).cancels > ended.cancels, 5_000);

    // Closing serve cancels every task still running upstream.
    const mid = await upstreamStats(upstream);
    await send("tools/call", { name: "job", arguments: { never: true }, task: {} });
    await send("tools/call", { name: "job", arguments: { never: true }, task: {} });
    await served.close();
    await waitFor(async () => (await upstreamStats(upstream)).cancels >= mid.cancels + 2, 5_000);
  });
});
