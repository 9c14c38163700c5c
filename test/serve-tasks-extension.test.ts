/**
 * The tasks extension (SEP-2663) through the built CLI's `serve --http` in front of the
 * conformance upstream (conformance/serve-upstream.mjs, the official server SDK), spoken as a
 * 2026-07-28 host on the wire: a task asking two things at once shows the host both, a partial
 * `tasks/update` leaves only the other pending; `tasks/*` without the extension is -32021; a
 * finished task's `tasks/cancel` is the same empty ack as a running one's. And an upstream's
 * -32021 on `tools/call` (the scripted server) reaches a 2026-07-28 host as -32021.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serve } from "../src/serve/index.js";
import { CLI } from "./support/cli.js";
import { silentLogger, waitFor } from "./support/index.js";
import { closeAll, scriptedClient } from "./support/scripted.js";
import { closeHost, httpHost, rawModernPost, textOf } from "./support/serve.js";

const UPSTREAM = fileURLToPath(new URL("../conformance/serve-upstream.mjs", import.meta.url));
const TASKS = "io.modelcontextprotocol/tasks";
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in the assertions
type Json = Record<string, any>;

let child: ChildProcess;
let url = "";

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [CLI, "serve", "--http", "127.0.0.1:0", "--", process.execPath, UPSTREAM, "stdio"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  await waitFor(() => /listening on (\S+)/.test(stderr), 15_000);
  url = /listening on (\S+)/.exec(stderr)![1]!;
}, 30_000);

afterAll(() => {
  child?.kill("SIGTERM");
});

/** One 2026-07-28 request; `tasks` declares the extension in its client capabilities. */
async function rpc(
  method: string,
  params: Json,
  o: { name?: string; tasks?: boolean; at?: string } = {},
): Promise<Json> {
  const caps = { elicitation: {}, ...(o.tasks === false ? {} : { extensions: { [TASKS]: {} } }) };
  const res = await rawModernPost(o.at ?? url, method, params, { caps, ...(o.name ? { name: o.name } : {}) });
  return (await res.json()) as Json;
}

const get = (taskId: string, tasks = true) => rpc("tasks/get", { taskId }, { name: taskId, tasks });

describe("serve: the tasks extension in front of an official-SDK upstream", () => {
  it("shows a task's simultaneous questions at once, and a partial answer leaves the other", async () => {
    const created = await rpc("tools/call", { name: "multi_input", arguments: {} }, { name: "multi_input" });
    expect(created.result.resultType).toBe("task");
    const taskId = created.result.taskId as string;
    let t: Json = {};
    await waitFor(async () => {
      t = (await get(taskId)).result;
      return Object.keys(t.inputRequests ?? {}).length === 2;
    }, 5_000);
    expect(t.status).toBe("input_required");
    const [first, second] = Object.keys(t.inputRequests);
    const answer = { action: "accept", content: { name: "Ada", confirm: true } };
    await rpc("tasks/update", { taskId, inputResponses: { [first!]: answer } }, { name: taskId });
    t = (await get(taskId)).result;
    expect(t.status).toBe("input_required");
    expect(Object.keys(t.inputRequests)).toEqual([second]);
    await rpc("tasks/update", { taskId, inputResponses: { [second!]: answer } }, { name: taskId });
    await waitFor(async () => (await get(taskId)).result.status === "completed", 5_000);
    expect((await get(taskId)).result.result.content[0].text).toContain("Ada");

    // Finished: cancelling it is the same empty ack, and it stays completed.
    const ack = await rpc("tasks/cancel", { taskId }, { name: taskId });
    expect(ack.result).toMatchObject({ resultType: "complete" });
    expect(ack.result.status).toBeUndefined();
    expect((await get(taskId)).result.status).toBe("completed");

    // Without the extension, the task surface is -32021 naming it, even for a known id.
    const refused = await get(taskId, false);
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  }, 30_000);
});

describe("serve: an upstream's -32021 on tools/call", () => {
  it("reaches a 2026-07-28 host as -32021 with only its requiredCapabilities; a 2025 host gets a refusal", async () => {
    const tool = { name: "needs-capability", inputSchema: { type: "object" } };
    const upstream = scriptedClient({ era: "modern", tools: [tool] });
    const served = await serve(upstream, { transport: { type: "http", port: 0 }, logger: silentLogger() });
    try {
      const r = await rpc(
        "tools/call",
        { name: tool.name, arguments: {} },
        { name: tool.name, at: served.url! },
      );
      expect(r.error).toEqual({
        code: -32021,
        message: "Missing required client capability",
        data: { requiredCapabilities: { elicitation: {} } },
      });
      const legacy = await httpHost(served.url!, "legacy");
      const answer = await legacy.callTool({ name: tool.name, arguments: {} });
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toContain("conduit-mcp refused or could not make this call");
      await closeHost(legacy);
    } finally {
      await served.close();
      await closeAll();
    }
  }, 30_000);
});
