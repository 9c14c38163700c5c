/**
 * Task status notifications through serve (issue 29), over HTTP with callers, in front of
 * test/fixtures/serve-tasks-status.mjs speaking each era upstream: a 2025-11-25 host (the official
 * client) hears `notifications/tasks/status` on its session for each change; a 2026-07-28 host
 * (raw on the wire) hears `notifications/tasks` on the `subscriptions/listen` it opened with
 * `taskIds`, each a complete `tasks/get` view, the end with its result inline. Hostile: an
 * upstream flooding status notifications (and notifications for ids nobody has) reaches a host as
 * at most one per `statusIntervalMs`; another caller's task id is not honoured and nothing of it
 * is heard; listens a host dropped are released (the per-caller cap shows it).
 */
import { fileURLToPath } from "node:url";
import type { Client as SdkClient } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../src/index.js";
import { serve } from "../src/serve/index.js";
import { nodeServer, silentLogger, waitFor } from "./support/index.js";
import {
  closeHost,
  expectWokenByStatus,
  httpHost,
  rawModernPost,
  type ServedHub,
  serveHub,
} from "./support/serve.js";

const STATUS_SERVER = fileURLToPath(new URL("./fixtures/serve-tasks-status.mjs", import.meta.url));
const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789ab";
const TASKS = "io.modelcontextprotocol/tasks";
const SID = "io.modelcontextprotocol/subscriptionId";
const INTERVAL = 100;
const ANY = {
  "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
} as never;
// biome-ignore lint/suspicious/noExplicitAny: wire JSON, read field by field in the assertions
type Json = Record<string, any>;

let s: ServedHub;
const hosts: SdkClient[] = [];

beforeAll(async () => {
  s = await serveHub(
    {
      servers: {
        m: { transport: nodeServer(STATUS_SERVER), client: { protocol: "modern" } },
        l: { transport: nodeServer(STATUS_SERVER), client: { protocol: "legacy" } },
      },
    },
    {
      callers: [
        { token: ALICE, principal: "alice" },
        { token: BOB, principal: "bob" },
      ],
      tasks: { statusIntervalMs: INTERVAL },
    },
  );
}, 30_000);

afterAll(async () => {
  await Promise.all(hosts.splice(0).map((h) => closeHost(h)));
  await s?.close();
});

const legacyHost = async (token: string) => {
  const h = await httpHost(s.served.url!, "legacy", { token });
  hosts.push(h);
  const heard: Json[] = [];
  h.setNotificationHandler("notifications/tasks/status" as never, (n: Json) => void heard.push(n.params));
  return { h, heard };
};
const legacyTask = async (h: SdkClient, name: string, args: Json): Promise<string> => {
  const r = (await h.request(
    { method: "tools/call", params: { name, arguments: args, task: {} } } as never,
    ANY,
  )) as Json;
  return r.task.taskId as string;
};

interface PostOptions {
  name?: string;
  signal?: AbortSignal;
  tasks?: boolean;
  /** The caller's bearer token (none: a serve without callers). */
  token?: string;
  /** Another serve's URL (default: the shared one). */
  at?: string;
}

/** One 2026-07-28 request as a host (with the tasks extension unless `tasks: false`); the raw response. */
function rawPost(method: string, params: Json, o: PostOptions = {}) {
  const caps = o.tasks === false ? {} : { extensions: { [TASKS]: {} } };
  return rawModernPost(o.at ?? s.served.url!, method, params, {
    caps,
    ...(o.token ? { token: o.token } : {}),
    ...(o.name ? { name: o.name } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
}
const post = (token: string, method: string, params: Json, o: PostOptions = {}) =>
  rawPost(method, params, { ...o, token });
const modernTask = async (token: string, name: string, args: Json): Promise<string> => {
  const r = (await (await post(token, "tools/call", { name, arguments: args }, { name })).json()) as Json;
  expect(r.result.resultType).toBe("task");
  return r.result.taskId as string;
};

/** A listen's messages until its stream ends (or `until` holds, then it is dropped). */
async function listen(token: string, filter: Json, until?: (m: Json[]) => boolean): Promise<Json[]> {
  const stop = new AbortController();
  const res = await post(token, "subscriptions/listen", { notifications: filter }, { signal: stop.signal });
  expect(res.headers.get("content-type")).toContain("text/event-stream");
  const out: Json[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      buffer += value;
      for (let cut = buffer.indexOf("\n\n"); cut >= 0; cut = buffer.indexOf("\n\n")) {
        const data = buffer
          .slice(0, cut)
          .split("\n")
          .find((l) => l.startsWith("data:"));
        buffer = buffer.slice(cut + 2);
        if (data) out.push(JSON.parse(data.slice(5)) as Json);
      }
      if (until?.(out)) return out;
    }
  } finally {
    stop.abort();
  }
}

describe("serve: task status notifications", () => {
  for (const up of ["m", "l"]) {
    it(`a 2025 host hears each status change of its task on its session (${up === "m" ? "2026" : "2025"} upstream)`, async () => {
      const { h, heard } = await legacyHost(ALICE);
      const id = await legacyTask(h, `mcp__${up}__steps`, { n: 3, every: 600 });
      await waitFor(() => heard.some((n) => n.status === "completed"), 10_000);
      expect(heard.every((n) => n.taskId === id)).toBe(true);
      const messages = heard.map((n) => n.statusMessage ?? n.status);
      expect(messages).toEqual(["step 1", "step 2", "step 3", "completed"]);
      expect(heard[0]).toMatchObject({ status: "working", ttl: expect.any(Number), pollInterval: 5_000 });
      // Only serve's view leaves: no upstream id, no related-task meta.
      expect(JSON.stringify(heard)).not.toContain("up-");
    }, 20_000);

    it(`a 2026 host hears its task on the listen it opened, the end with its result (${up === "m" ? "2026" : "2025"} upstream)`, async () => {
      const id = await modernTask(ALICE, `mcp__${up}__steps`, { n: 2, every: 600 });
      const messages = await listen(ALICE, { taskIds: [id, "not-a-task", id] });
      const [ack, ...rest] = messages;
      expect(ack).toMatchObject({
        method: "notifications/subscriptions/acknowledged",
        params: { notifications: { taskIds: [id] } },
      });
      const subscription = ack!.params._meta[SID];
      const notes = rest.filter((m) => m.method === "notifications/tasks");
      expect(notes.every((n) => n.params.taskId === id && n.params._meta[SID] === subscription)).toBe(true);
      // The extension's TaskStatusNotification: a DetailedTask (schema.json's required fields).
      for (const n of notes) {
        expect(n.params).toMatchObject({
          createdAt: expect.any(String),
          lastUpdatedAt: expect.any(String),
          ttlMs: expect.any(Number),
          pollIntervalMs: expect.any(Number),
        });
      }
      expect(notes.map((n) => n.params.statusMessage ?? n.params.status)).toEqual([
        "working",
        "step 1",
        "step 2",
        "completed",
      ]);
      expect(notes.at(-1)!.params).toMatchObject({
        status: "completed",
        ttlMs: expect.any(Number),
        result: { content: [{ type: "text", text: "done" }] },
      });
      // Every task it asked for ended: the listen ends gracefully with its result.
      expect(rest.at(-1)).toMatchObject({ id: subscription, result: { resultType: "complete" } });
      expect(JSON.stringify(messages)).not.toContain("up-");
    }, 20_000);
  }

  it("conduit-mcp's client as a 2026 host is woken by them: its wait ends long before its 5 s poll", async () => {
    const host = new Client({
      name: "host",
      transport: { type: "http", url: s.served.url!, auth: { bearer: ALICE } },
      protocol: "modern",
      logger: silentLogger(),
    });
    await expectWokenByStatus(host, "mcp__m__steps");
  }, 20_000);

  it("an upstream flooding status notifications (and for ids nobody has) reaches hosts at one per interval", async () => {
    const { h, heard } = await legacyHost(ALICE);
    // The upstreams' tasks/get counts are since they started (earlier tests made tasks too).
    const gets = async (up: string) =>
      ((await s.hub.callTool(`mcp__${up}__stats`, {})).structured as Json).gets as number;
    const before = { l: await gets("l"), m: await gets("m") };
    // From before the tasks are made: serve's waits (and their tasks/get) begin with them.
    const started = Date.now();
    const legacyId = await legacyTask(h, "mcp__l__flood", { count: 10, ms: 900 });
    const modernId = await modernTask(ALICE, "mcp__m__flood", { count: 10, ms: 900 });
    const messages = await listen(ALICE, { taskIds: [modernId] });
    await waitFor(() => heard.some((n) => n.status === "completed"), 10_000);
    const took = Date.now() - started;
    const notes = messages.filter((m) => m.method === "notifications/tasks");
    // serve's wait looks upstream at most once per 25 ms, however many notifications woke it.
    for (const up of ["l", "m"] as const) {
      expect((await gets(up)) - before[up]).toBeLessThanOrEqual(Math.ceil(took / 25) + 5);
    }
    for (const got of [heard.map((n) => n.taskId), notes.map((n) => n.params.taskId)]) {
      // Bounded by time, not by the upstream: one per interval at most, plus the end.
      expect(got.length).toBeLessThanOrEqual(Math.ceil(took / INTERVAL) + 3);
      expect(got.length).toBeGreaterThanOrEqual(2);
    }
    expect(heard.every((n) => n.taskId === legacyId)).toBe(true);
    expect(notes.every((n) => n.params.taskId === modernId)).toBe(true);
    expect(heard.at(-1)!.status).toBe("completed");
    expect(notes.at(-1)!.params.status).toBe("completed");
    expect(JSON.stringify([heard, messages])).not.toMatch(/ghost|up-/);
  }, 20_000);

  it("another caller's task is not honoured, and nothing of it is heard", async () => {
    const { heard: bobHeard } = await legacyHost(BOB);
    const { h } = await legacyHost(ALICE);
    await legacyTask(h, "mcp__l__steps", { n: 2, every: 100 });
    const aliceModern = await modernTask(ALICE, "mcp__m__steps", { n: 2, every: 100 });
    // Bob names Alice's task: the same as an id that never was (left out), and the listen ends.
    const messages = await listen(BOB, { taskIds: [aliceModern] });
    expect(messages[0]).toMatchObject({ params: { notifications: { taskIds: [] } } });
    expect(messages.filter((m) => m.method === "notifications/tasks")).toEqual([]);
    await new Promise((r) => setTimeout(r, 500));
    expect(bobHeard).toEqual([]);
    // Without the tasks extension, a listen for task ids is -32021 naming it.
    const refused = (await (
      await post(
        ALICE,
        "subscriptions/listen",
        { notifications: { taskIds: [aliceModern] } },
        { tasks: false },
      )
    ).json()) as Json;
    expect(refused.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  }, 20_000);

  it("a 2025 session that goes mid-task hears no more, and another session of the caller is not told", async () => {
    const a = await legacyHost(ALICE);
    const id = await legacyTask(a.h, "mcp__m__steps", { n: 4, every: 200 });
    await waitFor(() => a.heard.length > 0, 5_000);
    await closeHost(a.h);
    hosts.splice(hosts.indexOf(a.h), 1);
    const before = a.heard.length;
    const b = await legacyHost(ALICE);
    // The task is the caller's (its principal's): it runs on and ends, readable from the new session.
    await waitFor(async () => {
      const got = (await b.h.request({ method: "tasks/get", params: { taskId: id } } as never, ANY)) as Json;
      return got.status === "completed";
    }, 10_000);
    expect(b.heard).toEqual([]);
    expect(a.heard).toHaveLength(before);
  }, 20_000);

  it("listens a host dropped mid-task are released (the per-caller cap of 16 shows it)", async () => {
    const id = await modernTask(BOB, "mcp__m__steps", { n: 50, every: 200 });
    const drop = async () => {
      const stops = Array.from({ length: 16 }, () => new AbortController());
      const opened = await Promise.all(
        stops.map((c) =>
          post(BOB, "subscriptions/listen", { notifications: { taskIds: [id] } }, { signal: c.signal }),
        ),
      );
      expect(opened.every((r) => (r.headers.get("content-type") ?? "").includes("text/event-stream"))).toBe(
        true,
      );
      // The seventeenth is refused while sixteen are open.
      const over = (await (
        await post(BOB, "subscriptions/listen", { notifications: { taskIds: [id] } })
      ).json()) as Json;
      expect(over.error).toMatchObject({ code: -32603, message: "Subscription limit reached" });
      for (const c of stops) c.abort();
    };
    await drop();
    // The host went away sixteen times: each listen was released, so sixteen open again.
    await waitFor(async () => {
      const c = new AbortController();
      const r = await post(
        BOB,
        "subscriptions/listen",
        { notifications: { taskIds: [id] } },
        { signal: c.signal },
      );
      const ok = (r.headers.get("content-type") ?? "").includes("text/event-stream");
      c.abort();
      return ok;
    }, 5_000);
    await new Promise((r) => setTimeout(r, 200));
    await drop();
    await (await post(BOB, "tasks/cancel", { taskId: id }, { name: id })).json();
  }, 30_000);

  it("close() ends a listen open on a running task: the task's cancellation, then the listen's result", async () => {
    const upstream = new Client({
      name: "jobs",
      transport: nodeServer(STATUS_SERVER),
      protocol: "modern",
      logger: silentLogger(),
    });
    const served = await serve(upstream, { transport: { type: "http", port: 0 }, logger: silentLogger() });
    try {
      const at = served.url!;
      const args = { name: "steps", arguments: { n: 50, every: 200 } };
      const call = await rawPost("tools/call", args, { at, name: "steps" });
      const taskId = ((await call.json()) as Json).result.taskId as string;
      const res = await rawPost("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { at });
      const text = res.text();
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await served.close();
      const frames = (await text)
        .split("\n\n")
        .map((f) => f.split("\n").find((l) => l.startsWith("data:")))
        .filter((d): d is string => d !== undefined)
        .map((d) => JSON.parse(d.slice(5)) as Json);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(frames.at(-2)).toMatchObject({
        method: "notifications/tasks",
        params: { taskId, status: "cancelled" },
      });
      expect(frames.at(-1)).toMatchObject({ result: { resultType: "complete" } });
    } finally {
      await served.close();
      await upstream.close();
    }
  }, 20_000);
});
