// The legacy era's server requests against a scripted server that sends them as told: each
// refusal with its JSON-RPC code, the handler timeout, the concurrency cap, cancellation, the
// paused deadline of the related call, the budget, the notification and log queue, and callbacks
// that hang or throw without taking the connection down.
import { afterEach, describe, expect, it, vi } from "vitest";
import { type InputContext, type InputHandler, type JsonObject, McpClientError } from "../src/index.js";
import { recordEvents, WireTap, waitFor, watch } from "./support/index.js";
import { closeAll, inputTransport, scripted, structured } from "./support/input.js";

afterEach(closeAll);
afterEach(() => {
  vi.useRealTimers();
});

/** The timers a call's deadline runs on: faked, while the server's pipes stay real. */
const DEADLINE_CLOCK: Parameters<typeof vi.useFakeTimers>[0] = {
  toFake: ["setTimeout", "clearTimeout", "Date"],
};

/** A legacy scripted client whose wire is tapped: `answered()` counts its answers to server requests. */
function tapped(handler: InputHandler, options = {}) {
  const tap = new WireTap(inputTransport("legacy"));
  const c = scripted("legacy", handler, { transport: tap, ...options });
  const answered = () => tap.sent.filter((m) => m.method === undefined && typeof m.id === "number").length;
  return Object.assign(c, { tap, answered });
}

type Answer = { result?: JsonObject; error?: { code: number; message: string } } | null;

const sampling = (extra: JsonObject = {}) => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 50, ...extra },
});
const form = (schema: JsonObject = { type: "object", properties: { name: { type: "string" } } }) => ({
  method: "elicitation/create",
  params: { mode: "form", message: "Name?", requestedSchema: schema },
});
const url = (u: string) => ({
  method: "elicitation/create",
  params: { mode: "url", message: "Go", url: u, elicitationId: "e1" },
});
const roots = { method: "roots/list" };
const modelAnswer = { role: "assistant", content: { type: "text", text: "ok" }, model: "m" };

const full = (log: InputContext[] = [], over: Partial<InputHandler> = {}): InputHandler => ({
  sampling: (_p, ctx) => {
    log.push(ctx);
    return modelAnswer;
  },
  elicitationModes: ["form", "url"],
  elicitation: (_p, ctx) => {
    log.push(ctx);
    return ctx.mode === "url" ? { action: "accept" } : { action: "accept", content: { name: "Ada" } };
  },
  listRoots: (ctx) => {
    log.push(ctx);
    return { roots: [{ uri: "file:///data" }] };
  },
  ...over,
});

/** A callback that never answers, keeping its ctx.signal in `ref`. */
function hang(ref: { signal?: AbortSignal; started?: () => void }) {
  return (ctx: InputContext): Promise<never> => {
    ref.signal = ctx.signal;
    ref.started?.();
    return new Promise(() => {});
  };
}

async function ask(
  c: ReturnType<typeof scripted>,
  requests: JsonObject[],
  extra: JsonObject = {},
  opts = {},
): Promise<{ answers: Answer[]; stray: JsonObject[] }> {
  return structured(await c.callTool("ask", { requests, ...extra }, opts));
}

describe("legacy server requests", () => {
  it("declares in initialize only what the handler implements", async () => {
    const none = scripted("legacy", undefined);
    expect(structured(await none.callTool("seen", { tag: "x" })).clientCapabilities).toEqual({});
    const all = scripted("legacy", full(), { sampling: { context: true } });
    expect(structured(await all.callTool("seen", { tag: "x" })).clientCapabilities).toEqual({
      sampling: { context: {} },
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    });
    const quiet = scripted("legacy", { listRoots: () => ({ roots: [] }) }, { roots: { listChanged: false } });
    expect(structured(await quiet.callTool("seen", { tag: "x" })).clientCapabilities).toEqual({ roots: {} });
  });

  it("answers each kind; ctx carries the related call, its assigns, and the era", async () => {
    const log: InputContext[] = [];
    const c = scripted("legacy", full(log), { assigns: { who: "client" } });
    const { answers } = await ask(
      c,
      [sampling(), form(), url("https://example.com/a"), roots],
      {},
      { assigns: { who: "call" } },
    );
    expect(answers).toEqual([
      { result: modelAnswer },
      { result: { action: "accept", content: { name: "Ada" } } },
      { result: { action: "accept" } },
      { result: { roots: [{ uri: "file:///data" }] } },
    ]);
    expect(log).toHaveLength(4);
    for (const ctx of log) {
      expect(ctx).toMatchObject({
        client: "input-test",
        serverId: "input-test",
        era: "legacy",
        assigns: { who: "call" },
      });
      expect(typeof ctx.relatedRequestId).toBe("number");
    }
  });

  it("with two calls in flight none is related, and the client's assigns are used", async () => {
    const log: InputContext[] = [];
    const c = scripted("legacy", full(log), { assigns: { who: "client" } });
    const started = recordEvents({ client: "input-test", names: ["request:start"] });
    const sleeping = c.callTool("sleep", { ms: 1500 }, { assigns: { who: "sleeper" } });
    // The sleeping call is on its way before the asking one starts.
    await waitFor(() => started.of("request:start").some((e) => e.method === "tools/call"), "the first call");
    started.stop();
    await ask(c, [roots], {}, { assigns: { who: "asker" } });
    await sleeping;
    expect(log[0]).toMatchObject({ relatedRequestId: null, assigns: { who: "client" } });
  });

  it("refuses what it did not declare (-32601) and unknown methods, before any callback", async () => {
    const log: InputContext[] = [];
    const c = scripted("legacy", {
      listRoots: (ctx) => {
        log.push(ctx);
        return { roots: [] };
      },
    });
    const { answers } = await ask(c, [sampling(), form(), { method: "tasks/list" }]);
    expect(answers.map((a) => a?.error?.code)).toEqual([-32601, -32601, -32601]);
    expect(log).toHaveLength(0);
  });

  it("each safety row before the callback: -32602 with nothing asked", async () => {
    const log: InputContext[] = [];
    const c = scripted("legacy", { ...full(log), elicitationModes: ["form"] });
    const { answers } = await ask(c, [
      sampling({ maxTokens: 0 }),
      sampling({ maxTokens: 2.5 }),
      sampling({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
      sampling({ toolChoice: { mode: "none" } }),
      url("https://example.com"), // url mode not offered
      form({ type: "object", properties: { nested: { type: "object", properties: {} } } }),
    ]);
    expect(answers.map((a) => a?.error?.code)).toEqual([-32602, -32602, -32602, -32602, -32602, -32602]);
    expect(log).toHaveLength(0);
    const withUrl = scripted("legacy", full(log));
    const urls = await ask(withUrl, [
      url("javascript:alert(1)"),
      url("http://example.com"),
      url("file:///etc/passwd"),
      url("https://a:b@example.com"),
    ]);
    expect(urls.answers.map((a) => a?.error?.code)).toEqual([-32602, -32602, -32602, -32602]);
    expect(log).toHaveLength(0);
  });

  it("coerces includeContext and clamps maxTokens before the callback", async () => {
    const seen: JsonObject[] = [];
    const c = scripted("legacy", {
      sampling: (p) => {
        seen.push(p);
        return modelAnswer;
      },
    });
    await ask(c, [sampling({ maxTokens: 99_999, includeContext: "allServers" })]);
    expect(seen[0]).toMatchObject({ maxTokens: 4096, includeContext: "none" });
  });

  it("checks the answers after the callback: -32603", async () => {
    const c = scripted("legacy", {
      elicitationModes: ["form", "url"],
      elicitation: (_p, ctx) =>
        ctx.mode === "url"
          ? { action: "accept", content: { a: "b" } }
          : { action: "accept", content: { name: 7 } },
      sampling: () => ({ role: "robot" }),
      listRoots: () => ({ roots: null }),
    });
    const { answers } = await ask(c, [form(), url("https://example.com"), sampling(), roots]);
    expect(answers.map((a) => a?.error?.code)).toEqual([-32603, -32603, -32603, -32603]);
  });

  it("a callback's { error } is sent as it is", async () => {
    const c = scripted("legacy", {
      sampling: () => ({ error: { code: -1, message: "User rejected sampling request" } }),
    });
    const { answers } = await ask(c, [sampling()]);
    expect(answers[0]).toEqual({ error: { code: -1, message: "User rejected sampling request" } });
  });

  it("sampling with no call in flight is refused with the rejection code unless allowIdle", async () => {
    // The client's answers are watched on the wire: asking the server would put a call in flight.
    const log: InputContext[] = [];
    const c = tapped(full(log));
    await c.callTool("ask_later", { requests: [sampling(), roots], afterMs: 100 });
    await waitFor(() => c.answered() === 2, "both answers");
    const later = structured(await c.callTool("answers", {})).answers as Answer[];
    expect(later.map((a) => a?.error?.code ?? "result")).toEqual([-1, "result"]);
    expect(log).toHaveLength(1);
    expect(log[0]!.relatedRequestId).toBeNull();

    const custom = tapped(full(), { sampling: { rejectionCode: -32099 } });
    await custom.callTool("ask_later", { requests: [sampling()], afterMs: 100 });
    await waitFor(() => custom.answered() === 1, "the answer");
    expect((structured(await custom.callTool("answers", {})).answers as Answer[])[0]?.error?.code).toBe(
      -32099,
    );

    const idle = tapped(full(), { sampling: { allowIdle: true } });
    await idle.callTool("ask_later", { requests: [sampling()], afterMs: 100 });
    await waitFor(() => idle.answered() === 1, "the answer");
    expect((structured(await idle.callTool("answers", {})).answers as Answer[])[0]).toEqual({
      result: modelAnswer,
    });
  });

  it("the input request budget: sampling over it gets the rejection code, the rest -32000", async () => {
    const log: InputContext[] = [];
    const c = scripted("legacy", full(log), { inputRateLimit: { perSecond: 0.5, burst: 2 } });
    const { answers } = await ask(c, [roots, roots, sampling(), roots]);
    expect(answers.map((a) => a?.error?.code ?? "result")).toEqual(["result", "result", -1, -32000]);
    expect(log).toHaveLength(2);
  });

  it("a callback past its handlerTimeout is answered -32603 and its signal aborts", async () => {
    const ref: { signal?: AbortSignal } = {};
    const c = scripted("legacy", { listRoots: hang(ref) }, { handlerTimeout: { roots: 300 } });
    // The handler never settles: only its handlerTimeout can answer -32603.
    const { answers } = await ask(c, [roots]);
    expect(answers[0]?.error).toMatchObject({ code: -32603 });
    expect(ref.signal?.aborted).toBe(true);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("a callback that throws is answered -32603, logged sanitised, and the client keeps working", async () => {
    const c = scripted("legacy", {
      listRoots: () => {
        throw new Error("disk \u001b[2Jgone\u202e");
      },
    });
    const { answers } = await ask(c, [roots, roots]);
    expect(answers).toEqual([
      { error: { code: -32603, message: "Internal error" } },
      { error: { code: -32603, message: "Internal error" } },
    ]);
    const line = c.logger.lines.find((l) => l.includes("threw"));
    expect(line).toContain("disk gone");
    expect(line).not.toMatch(/[\u001b\u202e]/);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("at most maxServerRequests run at once; one more is answered -32000 (busy)", async () => {
    let running = 0;
    let peak = 0;
    const c = tapped(
      {
        listRoots: async () => {
          running += 1;
          peak = Math.max(peak, running);
          // Both run until the third was turned away as busy.
          await waitFor(() => c.tap.sent.some((m) => m.error?.code === -32000), "the busy answer");
          running -= 1;
          return { roots: [] };
        },
      },
      { maxServerRequests: 2 },
    );
    const { answers } = await ask(c, [roots, roots, roots]);
    expect(answers.map((a) => a?.error?.code ?? "result")).toEqual(["result", "result", -32000]);
    expect(peak).toBe(2);
  });

  it("the server's notifications/cancelled aborts the callback, and no answer is sent", async () => {
    const ref: { signal?: AbortSignal } = {};
    const c = scripted("legacy", { listRoots: hang(ref) });
    const { answers, stray } = await ask(c, [roots], { cancelAfterMs: 300, graceMs: 400 });
    expect(answers).toEqual([null]);
    expect(ref.signal?.aborted).toBe(true);
    expect(stray).toEqual([]);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("a server request tied to a call pauses that call's deadline", async () => {
    let answer!: () => void;
    let asked!: () => void;
    const asking = new Promise<void>((resolve) => (asked = resolve));
    const c = scripted("legacy", {
      listRoots: async () => {
        asked();
        await new Promise<void>((resolve) => (answer = resolve));
        return { roots: [] };
      },
    });
    await c.ready({ timeout: 20_000 });
    vi.useFakeTimers(DEADLINE_CLOCK);
    const call = watch(c.callTool("ask", { requests: [roots] }, { timeout: 700 }));
    await asking;
    // 1.2 s pass while the user answers; the pause keeps the 700 ms call alive.
    await vi.advanceTimersByTimeAsync(1200);
    expect(call.settled).toBe(false);
    answer();
    const r = await call.promise;
    expect(structured(r).answers[0]).toEqual({ result: { roots: [] } });
  });

  it("the paused deadline is still bounded by the call's maxTotalTimeout", async () => {
    const ref: { signal?: AbortSignal; started?: () => void } = {};
    const c = scripted("legacy", { listRoots: hang(ref) });
    // Connected first: the 300 ms timeout also bounds the wait for ready, and a loaded machine
    // can take that long to start the server, which would end the call before any pause.
    await c.ready({ timeout: 20_000 });
    const running = new Promise<void>((resolve) => (ref.started = resolve));
    vi.useFakeTimers(DEADLINE_CLOCK);
    const call = watch(
      c.callTool("ask", { requests: [roots] }, { timeout: 300, maxTotalTimeout: 900 }).catch((e) => e),
    );
    await running;
    // The pause keeps the 300 ms timeout from ending it; the handler never settles, so only the
    // total cap (900 ms from the start) can end it.
    await vi.advanceTimersByTimeAsync(899);
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(call.settled).toBe(true);
    const err = await call.promise;
    vi.useRealTimers();
    expect(err).toBeInstanceOf(McpClientError);
    expect(err.kind).toBe("timeout");
    // The server cancels its request when the call is cancelled? Not this one; the callback runs
    // until its own handlerTimeout. The client is unaffected.
    expect(ref.signal?.aborted).toBe(false);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("a lost connection aborts the callbacks", async () => {
    const ref: { signal?: AbortSignal; started?: () => void } = {};
    // The connection goes once the callback runs (not after a guessed delay).
    const running = new Promise<void>((resolve) => (ref.started = resolve));
    const c = scripted("legacy", { listRoots: hang(ref) });
    const call = c.callTool("ask", { requests: [roots] }).catch((e) => e);
    await running;
    await c.reconnect();
    expect(await call).toMatchObject({ kind: "transport" });
    expect(ref.signal?.aborted).toBe(true);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("notifyRootsChanged sends notifications/roots/list_changed", async () => {
    const c = scripted("legacy", full());
    await c.ready();
    expect(c.notifyRootsChanged()).toBe(true);
    // No wait: the notification goes out before the next call on the same pipe.
    expect(structured(await c.callTool("answers", {})).stray).toEqual([
      { notification: "notifications/roots/list_changed" },
    ]);
    const quiet = scripted("legacy", full(), { roots: { listChanged: false } });
    await quiet.ready();
    expect(quiet.notifyRootsChanged()).toBe(false);
    const noRoots = scripted("legacy", { sampling: () => modelAnswer });
    await noRoots.ready();
    expect(noRoots.notifyRootsChanged()).toBe(false);
  });
});

describe("notifications and logs to the handler", () => {
  const notify = (n: number, method = "notifications/resources/updated") =>
    Array.from({ length: n }, (_, i) => ({ method, params: { uri: `file:///${i}` } }));

  it("one at a time, in order; notification and log callbacks get only client, serverId and era", async () => {
    const got: Array<[string, unknown, JsonObject]> = [];
    let running = 0;
    let overlap = false;
    const c = scripted("legacy", {
      notification: async (method, params, ctx) => {
        running += 1;
        if (running > 1) overlap = true;
        // A turn of the event loop: a second delivery started meanwhile would overlap.
        await new Promise((resolve) => setImmediate(resolve));
        got.push([method, params.uri, ctx as unknown as JsonObject]);
        running -= 1;
      },
      log: (level, params, ctx) => {
        got.push([`log:${level}`, params.data, ctx as unknown as JsonObject]);
      },
    });
    await c.callTool("notify", {
      notifications: [
        ...notify(5),
        {
          method: "notifications/message",
          params: { level: "warning", logger: "db", data: "slow \u001b[31mquery", extra: 1 },
        },
        { method: "notifications/message", params: { level: "nonsense", data: { a: 1 } } },
      ],
    });
    await waitFor(() => got.length === 7, "all seven deliveries");
    expect(overlap).toBe(false);
    expect(got.map((g) => g[0])).toEqual([
      ...Array(5).fill("notifications/resources/updated"),
      "log:warning",
      "log:info",
    ]);
    expect(got.slice(0, 5).map((g) => g[1])).toEqual([0, 1, 2, 3, 4].map((i) => `file:///${i}`));
    expect(got[5]![1]).toBe("slow query");
    expect(got[0]![2]).toEqual({ client: "input-test", serverId: "input-test", era: "legacy" });
  });

  it("a throw is logged and skipped; the next one still arrives", async () => {
    const got: unknown[] = [];
    const c = scripted("legacy", {
      notification: (_m, params) => {
        if (params.uri === "file:///1") throw new Error("handler bug");
        got.push(params.uri);
      },
    });
    await c.callTool("notify", { notifications: notify(3) });
    await waitFor(() => got.includes("file:///2"), "the third notification");
    expect(got).toEqual(["file:///0", "file:///2"]);
    expect(c.logger.lines.some((l) => l.includes("handler bug"))).toBe(true);
  });

  it("beyond 1 000 waiting, new ones are dropped (with one warning)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let count = 0;
    let marked = false;
    const c = scripted("legacy", {
      notification: async (_m, params) => {
        count += 1;
        if (params.uri === "file:///marker") marked = true;
        if (count === 1) await gate;
      },
    });
    // All 1 200 arrived before the call's result (one ordered pipe): queued or dropped by now.
    await c.callTool("notify", { notifications: notify(1200) });
    release();
    // One more, sent after them: once it is delivered, everything before it was handled.
    await c.callTool("notify", {
      notifications: [{ method: "notifications/resources/updated", params: { uri: "file:///marker" } }],
    });
    await waitFor(() => marked, "the later notification");
    // The first was running, 1 000 waited; 199 were dropped. Then the later one.
    expect(count).toBe(1002);
    expect(c.logger.lines.filter((l) => l.includes("dropped"))).toHaveLength(1);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });
});
