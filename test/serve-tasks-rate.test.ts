import { afterEach, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { serve } from "../src/serve/index.js";
import { TaskRate } from "../src/serve/task-rate.js";
import { nodeServer, silentLogger } from "./support/index.js";
import { closeHost, httpHost, servedTaskUpstream, TASK_SERVER } from "./support/serve.js";

const ANY = {
  "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
} as never;
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in the assertions
type Json = Record<string, any>;

const open: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of open.splice(0).reverse()) await close().catch(() => {});
});

describe("TaskRate", () => {
  it("allows a burst, then the sustained rate, and never stores more than the burst", () => {
    let now = 0;
    const rate = new TaskRate({ perSecond: 2, burst: 3 }, () => now);
    expect([1, 2, 3, 4].map(() => rate.take("a"))).toEqual([true, true, true, false]);
    expect(rate.take("b")).toBe(true); // another caller, its own bucket
    now += 500; // one token back at 2 per second
    expect([rate.take("a"), rate.take("a")]).toEqual([true, false]);
    now += 60_000; // a long idle time refills to the burst, not beyond
    expect([1, 2, 3, 4].map(() => rate.take("a"))).toEqual([true, true, true, false]);
  });
});

describe("serve: tasks/* requests over the rate limit", () => {
  it("are refused with a JSON-RPC error, per caller, and nothing reaches the upstream", async () => {
    const { upstream, served } = await servedTaskUpstream({ requestsPerSecond: 2, requestBurst: 3 }, open);
    const hostA = await httpHost(served.url!, "legacy");
    open.push(() => closeHost(hostA));
    const hostB = await httpHost(served.url!, "legacy");
    open.push(() => closeHost(hostB));
    const send = (h: typeof hostA, method: string, params: Json) =>
      h.request({ method, params } as never, ANY) as Promise<Json>;
    const stats = async (): Promise<Json> => (await upstream.callTool("stats", {})).structured as Json;

    const created = await send(hostA, "tools/call", { name: "job", arguments: { never: true }, task: {} });
    const taskId = created.task.taskId as string;
    for (let i = 0; i < 3; i++) {
      expect((await send(hostA, "tasks/get", { taskId })).status).toBe("working");
    }
    // The bucket is empty: the 4th is refused, a cancel included, which never goes upstream.
    await expect(send(hostA, "tasks/get", { taskId })).rejects.toMatchObject({ code: -32000 });
    const before = await stats();
    await expect(send(hostA, "tasks/cancel", { taskId })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining("Rate limit"),
    });
    expect((await stats()).cancels).toBe(before.cancels);
    // Another caller (another 2025 session) has its own budget (its lookups find nothing of A's).
    await expect(send(hostB, "tasks/list", {})).resolves.toMatchObject({ tasks: [] });

    // Refilled at 2 per second: A may ask again, and its task still runs.
    await new Promise((r) => setTimeout(r, 700));
    expect((await send(hostA, "tasks/get", { taskId })).status).toBe("working");
  }, 30_000);

  it("rejects a limit that is not a whole number >= 1", async () => {
    const upstream = new Client({
      name: "jobs",
      transport: nodeServer(TASK_SERVER, ["{}"]),
      protocol: "legacy",
      logger: silentLogger(),
    });
    open.push(() => upstream.close());
    await expect(
      serve(upstream, { transport: { type: "http", port: 0 }, tasks: { requestsPerSecond: 0.5 } }),
    ).rejects.toThrow(/tasks\.requestsPerSecond/);
  });
});
