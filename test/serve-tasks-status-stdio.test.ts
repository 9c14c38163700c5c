/**
 * 2026-07-28 task status notifications through `conduit-mcp serve` over stdio (the built CLI in
 * front of test/fixtures/serve-tasks-status.mjs), spoken raw by a host: a listen with `taskIds`
 * (and a list filter) is acknowledged with the host's own task ids and the SDK's list filter,
 * then carries `notifications/tasks` stamped with its id, the end with its result; a listen the
 * host cancelled hears no more; a listen without the tasks extension is -32021.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { CLI } from "./support/cli.js";
import { silentLogger, waitFor } from "./support/index.js";
import { expectWokenByStatus } from "./support/serve.js";

const STATUS_SERVER = fileURLToPath(new URL("./fixtures/serve-tasks-status.mjs", import.meta.url));
const TASKS = "io.modelcontextprotocol/tasks";
const SID = "io.modelcontextprotocol/subscriptionId";
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in the assertions
type Json = Record<string, any>;

let child: ChildProcess;
const got: Json[] = [];
let next = 0;

beforeAll(() => {
  child = spawn(process.execPath, [CLI, "serve", "--", process.execPath, STATUS_SERVER], {
    stdio: ["pipe", "pipe", "ignore"],
  });
  createInterface({ input: child.stdout! }).on("line", (line) => got.push(JSON.parse(line) as Json));
});

afterAll(() => {
  child?.stdin?.end();
  child?.kill("SIGTERM");
});

const write = (m: Json) => child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
const envelope = (tasks = true) => ({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS]: {} } } : {},
  "io.modelcontextprotocol/clientInfo": { name: "host", version: "1" },
});
async function request(method: string, params: Json, tasks = true): Promise<{ id: number; answer: Json }> {
  const id = ++next;
  write({ id, method, params: { ...params, _meta: envelope(tasks) } });
  let answer: Json | undefined;
  await waitFor(() => {
    answer = got.find((m) => m.id === id || m.params?._meta?.[SID] === id);
    return answer !== undefined;
  }, 15_000);
  return { id, answer: answer! };
}
const on = (sid: number) => got.filter((m) => m.params?._meta?.[SID] === sid || m.id === sid);

describe("serve over stdio: task status notifications to a 2026-07-28 host", () => {
  it("acknowledges the host's task ids on its listen and sends each change there, the end with its result", async () => {
    const call = await request("tools/call", { name: "steps", arguments: { n: 2, every: 600 } });
    expect(call.answer.result).toMatchObject({ resultType: "task" });
    const taskId = call.answer.result.taskId as string;
    const other = await request("tools/call", { name: "steps", arguments: { n: 20, every: 100 } });
    const otherId = other.answer.result.taskId as string;

    const listen = await request("subscriptions/listen", {
      notifications: { taskIds: [taskId, "not-a-task"], toolsListChanged: true },
    });
    expect(listen.answer).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [taskId], toolsListChanged: true } },
    });
    const dropped = await request("subscriptions/listen", { notifications: { taskIds: [otherId] } });
    expect(dropped.answer.params.notifications.taskIds).toEqual([otherId]);
    await waitFor(() => on(dropped.id).some((m) => m.method === "notifications/tasks"), 5_000);
    write({ method: "notifications/cancelled", params: { requestId: dropped.id } });
    await new Promise((r) => setTimeout(r, 50));
    const heardBefore = on(dropped.id).length;

    await waitFor(() => on(listen.id).some((m) => m.params?.status === "completed"), 10_000);
    const notes = on(listen.id).filter((m) => m.method === "notifications/tasks");
    expect(notes.every((n) => n.params.taskId === taskId)).toBe(true);
    expect(notes.map((n) => n.params.statusMessage ?? n.params.status)).toEqual([
      "working",
      "step 1",
      "step 2",
      "completed",
    ]);
    expect(notes.at(-1)!.params.result).toEqual({
      content: [{ type: "text", text: "done" }],
      isError: false,
    });
    // The other task ran on (a change every 100 ms), but its cancelled listen heard no more.
    await new Promise((r) => setTimeout(r, 300));
    expect(on(dropped.id)).toHaveLength(heardBefore);
    expect(JSON.stringify(got)).not.toContain("up-");
  }, 30_000);

  it("a listen for task ids without the tasks extension is -32021", async () => {
    const { answer } = await request("subscriptions/listen", { notifications: { taskIds: ["x"] } }, false);
    expect(answer.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  }, 20_000);

  it("wakes conduit-mcp's client as a 2026 stdio host: its wait ends long before its 5 s poll", async () => {
    const host = new Client({
      name: "desktop",
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [CLI, "serve", "--", process.execPath, STATUS_SERVER],
      },
      protocol: "modern",
      logger: silentLogger(),
    });
    await expectWokenByStatus(host, "steps");
  }, 20_000);
});
