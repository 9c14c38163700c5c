// The modern era's multi round-trip loop against a scripted server that asks exactly as told:
// the wire rules (new id, same params, inputResponses keyed as asked, requestState echoed byte for
// byte and only on the retry), every cap, every safety row as it surfaces in modern (see
// src/client/input/mrtr.ts for the kinds), and callbacks that throw, refuse or hang.
import { afterEach, describe, expect, it, vi } from "vitest";
import { type InputContext, type InputHandler, type JsonObject, McpClientError } from "../src/index.js";
import { recordEvents, watch } from "./support/index.js";
import { closeAll, scripted, structured } from "./support/input.js";

afterEach(closeAll);
afterEach(() => {
  vi.useRealTimers();
});

const sampleReq = (extra: JsonObject = {}) => ({
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "hi" } }], maxTokens: 50, ...extra },
});
const formReq = (schema: JsonObject, extra: JsonObject = {}) => ({
  method: "elicitation/create",
  params: { message: "Fill in", requestedSchema: schema, ...extra },
});
const urlReq = (url: string) => ({
  method: "elicitation/create",
  params: { mode: "url", message: "Go", url },
});
const NAME_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const inputRequired = (inputRequests: JsonObject | undefined, requestState?: string) => ({
  resultType: "input_required",
  ...(inputRequests ? { inputRequests } : {}),
  ...(requestState !== undefined ? { requestState } : {}),
});

const answer = {
  role: "assistant",
  content: { type: "text", text: "ok" },
  model: "m",
};

/** A handler that answers everything and records each call's params and ctx. */
function handler(
  log: Array<{ kind: string; params: JsonObject; ctx: InputContext }>,
  over: Partial<InputHandler> = {},
) {
  const h: InputHandler = {
    sampling: (params, ctx) => {
      log.push({ kind: "sampling", params, ctx });
      return answer;
    },
    elicitation: (params, ctx) => {
      log.push({ kind: "elicitation", params, ctx });
      return ctx.mode === "url" ? { action: "accept" } : { action: "accept", content: { name: "Ada" } };
    },
    listRoots: (ctx) => {
      log.push({ kind: "roots", params: {}, ctx });
      return { roots: [{ uri: "file:///work" }] };
    },
    ...over,
  };
  return h;
}

async function seen(c: ReturnType<typeof scripted>, tag: string): Promise<JsonObject[]> {
  const r = await c.callTool("seen", { tag });
  return (structured(r).seen as Array<{ method: string; id: number; params: JsonObject }>).filter(
    (s) => s.method !== "tools/call" || s.params.name === "mrtr",
  ) as unknown as JsonObject[];
}

describe("the MRTR loop on the wire", () => {
  it("retries as a new request with the same params, inputResponses keyed as asked, requestState byte for byte", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    const state1 = 'opaque \u00e9\u{1F600} "quoted" \\ state==  ';
    const script = [
      inputRequired({ a: sampleReq(), "b/key with space": formReq(NAME_SCHEMA) }, state1),
      inputRequired({ r: { method: "roots/list" } }),
    ];
    const r = await c.callTool("mrtr", { tag: "t1", script, other: [1, 2] });
    // The last request carried the roots answer and, since round 2 had no state, no requestState.
    expect(structured(r)).toEqual({
      inputResponses: { r: { roots: [{ uri: "file:///work" }] } },
      requestState: null,
      hasRequestState: false,
    });
    const reqs = await seen(c, "t1");
    expect(reqs).toHaveLength(3);
    const [first, second, third] = reqs as Array<{ id: number; params: JsonObject }>;
    expect(new Set([first!.id, second!.id, third!.id]).size).toBe(3);
    for (const req of [first!, second!, third!]) {
      expect(req.params.name).toBe("mrtr");
      expect(req.params.arguments).toEqual({ tag: "t1", script, other: [1, 2] });
      expect((req.params._meta as JsonObject)["io.modelcontextprotocol/protocolVersion"]).toBe("2026-07-28");
    }
    expect(first!.params).not.toHaveProperty("inputResponses");
    expect(first!.params).not.toHaveProperty("requestState");
    expect(second!.params.requestState).toBe(state1);
    expect(second!.params.inputResponses).toEqual({
      a: answer,
      "b/key with space": { action: "accept", content: { name: "Ada" } },
    });
    expect(log.map((l) => l.kind)).toEqual(["sampling", "elicitation", "roots"]);
    expect(log.every((l) => l.ctx.era === "modern" && l.ctx.relatedRequestId === null)).toBe(true);
  });

  it("requestState goes only on the retry, not on other requests sent meanwhile", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The other call goes while the first is being answered (not after a guessed delay).
    let asked!: () => void;
    const answering = new Promise<void>((r) => (asked = r));
    const c = scripted("modern", {
      elicitation: async () => {
        asked();
        await gate;
        return { action: "decline" };
      },
    });
    const call = c.callTool("mrtr", {
      tag: "t2",
      script: [inputRequired({ q: formReq(NAME_SCHEMA) }, "S2")],
    });
    await answering;
    const other = await c.callTool("mrtr", { tag: "t2-other", script: [] });
    expect(structured(other)).toMatchObject({ inputResponses: null, hasRequestState: false });
    release();
    expect(structured(await call)).toEqual({
      inputResponses: { q: { action: "decline" } },
      requestState: "S2",
      hasRequestState: true,
    });
  });

  it("a round with only requestState is retried at once, echoing it", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    const r = await c.callTool("mrtr", { tag: "t3", script: [inputRequired(undefined, "only-state")] });
    expect(structured(r)).toEqual({
      inputResponses: null,
      requestState: "only-state",
      hasRequestState: true,
    });
    expect(log).toHaveLength(0);
  });

  it("resources/read and prompts/get loop the same way", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    await c.callTool("register", { tag: "res", script: [inputRequired({ k: sampleReq() }, "R")] });
    await c.callTool("register", {
      tag: "pr",
      script: [inputRequired({ k: { method: "roots/list" } }, "P")],
    });
    const read = await c.readResource("mrtr://res");
    expect(JSON.parse((read.contents as Array<{ text: string }>)[0]!.text)).toEqual({
      inputResponses: { k: answer },
      requestState: "R",
      hasRequestState: true,
    });
    const prompt = await c.getPrompt("mrtr", { tag: "pr" });
    expect(
      JSON.parse((prompt.messages as Array<{ content: { text: string } }>)[0]!.content.text),
    ).toMatchObject({
      inputResponses: { k: { roots: [{ uri: "file:///work" }] } },
      requestState: "P",
    });
  });

  it("each round is one request span; tool_call:stop counts the rounds", async () => {
    const c = scripted("modern", handler([]), { name: "mrtr-spans" });
    const rec = recordEvents({ client: "mrtr-spans", names: ["request:stop", "tool_call:stop"] });
    try {
      await c.callTool("mrtr", {
        tag: "spans",
        script: [inputRequired({ a: sampleReq() }, "1"), inputRequired({ b: sampleReq() }, "2")],
      });
      expect(rec.of("request:stop").filter((e) => e.method === "tools/call")).toHaveLength(3);
      expect(rec.of("tool_call:stop")[0]).toMatchObject({ status: "ok", rounds: 3 });
      await c
        .callTool("mrtr", { tag: "spans-cap", script: [inputRequired(undefined, "x")], repeatLast: true })
        .catch(() => {});
      expect(rec.of("tool_call:stop")[1]).toMatchObject({
        status: "error",
        errorKind: "mrtr_round_limit",
        rounds: 8,
      });
    } finally {
      rec.stop();
    }
  });

  it("each round's request:stop duration is that request's own, not the time since the call began", async () => {
    // The rounds share one deadline; a slow answer (300 ms here) between them is not theirs.
    const slow = handler([], {
      sampling: async () => {
        await new Promise((r) => setTimeout(r, 300));
        return answer;
      },
    });
    const c = scripted("modern", slow, { name: "mrtr-durations" });
    const rec = recordEvents({ client: "mrtr-durations", names: ["request:stop"] });
    try {
      await c.callTool("mrtr", {
        tag: "durations",
        script: [inputRequired({ a: sampleReq() }, "1"), inputRequired({ b: sampleReq() }, "2")],
      });
      const rounds = rec.of("request:stop").filter((e) => e.method === "tools/call");
      expect(rounds).toHaveLength(3);
      // Before the fix the second and third read >= 300 and >= 600 ms (from the shared deadline).
      for (const r of rounds) expect(r.duration as number).toBeLessThan(300);
    } finally {
      rec.stop();
    }
  });

  it("declares only the capabilities whose callbacks exist, in every request's _meta", async () => {
    const none = scripted("modern", undefined);
    expect(structured(await none.callTool("seen", { tag: "x" })).clientCapabilities).toEqual({});
    const some = scripted("modern", {
      listRoots: () => ({ roots: [] }),
      elicitation: () => ({ action: "cancel" }),
    });
    expect(structured(await some.callTool("seen", { tag: "x" })).clientCapabilities).toEqual({
      elicitation: { form: {} },
      roots: {},
    });
    const all = scripted(
      "modern",
      { ...handler([]), elicitationModes: ["url", "form"] },
      { sampling: { context: true, tools: true } },
    );
    expect(structured(await all.callTool("seen", { tag: "x" })).clientCapabilities).toEqual({
      sampling: { context: {}, tools: {} },
      elicitation: { url: {}, form: {} },
      roots: {},
    });
  });
});

describe("input_required the client does not take", () => {
  it("neither inputRequests nor requestState: protocol", async () => {
    const c = scripted("modern", handler([]));
    await expect(
      c.callTool("mrtr", { tag: "n1", script: [{ resultType: "input_required" }] }),
    ).rejects.toMatchObject({
      kind: "protocol",
      reason: "invalid_input_required",
    });
    await expect(
      c.callTool("mrtr", {
        tag: "n2",
        script: [{ resultType: "input_required", inputRequests: [1], requestState: "s" }],
      }),
    ).rejects.toMatchObject({ kind: "protocol", reason: "invalid_input_required" });
    await expect(
      c.callTool("mrtr", { tag: "n3", script: [{ resultType: "input_required", requestState: 42 }] }),
    ).rejects.toMatchObject({ kind: "protocol", reason: "invalid_input_required" });
    expect((await c.callTool("mrtr", { tag: "n4", script: [] })).isError).toBe(false);
  });

  it("on a method that may not carry it (tools/list, completion/complete): protocol", async () => {
    const c = scripted("modern", handler([]), {}, { listInputRequired: true });
    await expect(c.listTools()).rejects.toMatchObject({
      kind: "protocol",
      reason: "unexpected_input_required",
    });
    await expect(c.complete({ prompt: "p" }, { name: "a", value: "" })).rejects.toMatchObject({
      kind: "protocol",
      reason: "unexpected_input_required",
    });
  });

  it("an input request that is not a request object: protocol", async () => {
    const c = scripted("modern", handler([]));
    await expect(
      c.callTool("mrtr", { tag: "bad", script: [inputRequired({ k: "nope" })] }),
    ).rejects.toMatchObject({
      kind: "protocol",
      reason: "invalid_input_request",
    });
    await expect(
      c.callTool("mrtr", { tag: "unk", script: [inputRequired({ k: { method: "tasks/get", params: {} } })] }),
    ).rejects.toMatchObject({ kind: "protocol", reason: "unknown_input_method" });
  });
});

describe("the caps, each mrtr_round_limit", () => {
  it("8 rounds at most", async () => {
    const c = scripted("modern", handler([]));
    const err = await c
      .callTool("mrtr", {
        tag: "cap",
        script: [inputRequired({ k: sampleReq() }, "again")],
        repeatLast: true,
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(McpClientError);
    expect(err).toMatchObject({ kind: "mrtr_round_limit", reason: "max_rounds" });
    expect(await seen(c, "cap")).toHaveLength(8);
  });

  it("16 input requests in a round at most (no callback runs over that)", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    const ok = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, { method: "roots/list" }]));
    const r = await c.callTool("mrtr", { tag: "sixteen", script: [inputRequired(ok)] });
    expect(Object.keys(structured(r).inputResponses)).toHaveLength(16);
    log.length = 0;
    // The cap is checked before the budget, so this is refused whatever the budget holds.
    const over = { ...ok, k16: { method: "roots/list" } };
    await expect(
      c.callTool("mrtr", { tag: "seventeen", script: [inputRequired(over)] }),
    ).rejects.toMatchObject({
      kind: "mrtr_round_limit",
      reason: "max_input_requests",
    });
    expect(log).toHaveLength(0);
  });

  it("64 KiB of requestState at most, counted in UTF-8 bytes", async () => {
    const c = scripted("modern", handler([]));
    const exact = "x".repeat(64 * 1024);
    const r = await c.callTool("mrtr", { tag: "st1", script: [inputRequired(undefined, exact)] });
    expect(structured(r).requestState).toBe(exact);
    const over = `${"x".repeat(64 * 1024 - 1)}é`;
    await expect(
      c.callTool("mrtr", { tag: "st2", script: [inputRequired(undefined, over)] }),
    ).rejects.toMatchObject({
      kind: "mrtr_round_limit",
      reason: "max_request_state",
    });
  });
});

describe("callbacks that fail: input_handler, and the client keeps working", () => {
  const ask = (c: ReturnType<typeof scripted>, tag: string, req: JsonObject = sampleReq()) =>
    c.callTool("mrtr", { tag, script: [inputRequired({ k: req }, "s")] });

  it("a throw", async () => {
    const c = scripted("modern", {
      sampling: () => {
        throw new Error("model \u001b[31mdown\u001b[0m");
      },
    });
    const err = await ask(c, "throw").catch((e) => e);
    expect(err).toMatchObject({ kind: "input_handler", reason: "handler_threw" });
    expect(err.data).toEqual({ key: "k", method: "sampling/createMessage" });
    expect(err.cause).toBeInstanceOf(Error);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("an async rejection and a returned error", async () => {
    const c = scripted("modern", {
      sampling: async () => Promise.reject(new Error("no")),
      elicitation: () => ({ error: { code: -1, message: "User rejected" } }),
    });
    await expect(ask(c, "rej")).rejects.toMatchObject({ kind: "input_handler", reason: "handler_threw" });
    const err = await ask(c, "refused", formReq(NAME_SCHEMA)).catch((e) => e);
    expect(err).toMatchObject({ kind: "input_handler", reason: "handler_refused" });
    expect(err.data).toMatchObject({ code: -1, message: "User rejected" });
  });

  it("a callback past its handlerTimeout: input_handler, with ctx.signal aborted", async () => {
    let signal: AbortSignal | undefined;
    const c = scripted(
      "modern",
      {
        sampling: (_p, ctx) => {
          signal = ctx.signal;
          return new Promise(() => {});
        },
      },
      { handlerTimeout: { sampling: 300 } },
    );
    // The handler never settles: only its handlerTimeout can end the call this way.
    await expect(ask(c, "hang")).rejects.toMatchObject({ kind: "input_handler", reason: "handler_timeout" });
    expect(signal?.aborted).toBe(true);
    expect((await c.callTool("echo", {})).isError).toBe(false);
  });

  it("the call's deadline covers the callbacks: timeout, with ctx.signal aborted", async () => {
    let signal: AbortSignal | undefined;
    const c = scripted("modern", {
      sampling: (_p, ctx) => {
        signal = ctx.signal;
        return new Promise(() => {});
      },
    });
    // Connected first: the 400 ms timeout also bounds the wait for ready (a slow server start).
    await c.ready({ timeout: 20_000 });
    await expect(
      c.callTool("mrtr", { tag: "deadline", script: [inputRequired({ k: sampleReq() })] }, { timeout: 400 }),
    ).rejects.toMatchObject({ kind: "timeout" });
    expect(signal?.aborted).toBe(true);
  });

  it("one deadline for the whole loop, across rounds", async () => {
    // Each round's callback is answered when the test says, on a fake clock (the pipes are real).
    let asked: () => void = () => {};
    let release: (() => void) | undefined;
    const c = scripted("modern", {
      sampling: () =>
        release === undefined
          ? answer
          : new Promise((resolve) => {
              release = () => resolve(answer);
              asked();
            }),
    });
    const script = [inputRequired({ a: sampleReq() }, "1"), inputRequired({ b: sampleReq() }, "2")];
    await c.ready({ timeout: 20_000 });
    const nextAsk = () => new Promise<void>((resolve) => (asked = resolve));
    release = () => {};
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let ask = nextAsk();
    const call = watch(
      c.callTool("mrtr", { tag: "loop-deadline", script }, { timeout: 500 }).catch((e) => e),
    );
    await ask;
    await vi.advanceTimersByTimeAsync(300); // round 1's callback takes 300 ms
    ask = nextAsk();
    release();
    await ask;
    await vi.advanceTimersByTimeAsync(199); // round 2's: 499 ms in all, still inside the deadline
    expect(call.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1); // 500 ms for the whole loop, not per round
    expect(call.settled).toBe(true);
    expect(await call.promise).toMatchObject({ kind: "timeout" });
    vi.useRealTimers();
    release = undefined;
    expect((await c.callTool("mrtr", { tag: "loop-ok", script }, { timeout: 3000 })).isError).toBe(false);
  });

  it("the caller's signal aborts the callback and the call", async () => {
    let signal: AbortSignal | undefined;
    // Aborted once the callback runs (not after a guessed delay: under load it may not have yet).
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const c = scripted("modern", {
      sampling: (_p, ctx) => {
        signal = ctx.signal;
        started();
        return new Promise(() => {});
      },
    });
    const ac = new AbortController();
    const call = c.callTool(
      "mrtr",
      { tag: "abort", script: [inputRequired({ k: sampleReq() })] },
      { signal: ac.signal },
    );
    await running;
    const reason = new Error("user pressed stop");
    ac.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(signal?.aborted).toBe(true);
  });
});

describe("the safety rows in modern", () => {
  const run = (c: ReturnType<typeof scripted>, tag: string, req: JsonObject) =>
    c.callTool("mrtr", { tag, script: [inputRequired({ k: req })] });

  it("an input request for a capability not declared is refused before any callback: protocol", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const h = handler(log);
    delete h.sampling;
    const c = scripted("modern", h);
    const err = await run(c, "undeclared", sampleReq()).catch((e) => e);
    expect(err).toMatchObject({ kind: "protocol", reason: "capability_not_declared" });
    expect(err.data).toMatchObject({ key: "k", method: "sampling/createMessage", code: -32601 });
    expect(log).toHaveLength(0);
  });

  it("sampling maxTokens: a positive integer, clamped to sampling.maxTokens", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log), { sampling: { maxTokens: 100 } });
    await run(c, "mt1", sampleReq({ maxTokens: 1_000_000 }));
    expect(log[0]!.params.maxTokens).toBe(100);
    for (const bad of [0, -5, 1.5, "10", null]) {
      await expect(run(c, `mt-${String(bad)}`, sampleReq({ maxTokens: bad }))).rejects.toMatchObject({
        kind: "protocol",
        reason: "invalid_max_tokens",
      });
    }
    expect(log).toHaveLength(1);
  });

  it("includeContext is coerced to none unless sampling.context", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    await run(c, "ic1", sampleReq({ includeContext: "allServers" }));
    expect(log[0]!.params.includeContext).toBe("none");
    const withContext = scripted("modern", handler(log), { sampling: { context: true } });
    await run(withContext, "ic2", sampleReq({ includeContext: "thisServer" }));
    expect(log[1]!.params.includeContext).toBe("thisServer");
  });

  it("tools in sampling are refused unless sampling.tools", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const tools = [{ name: "get_weather", inputSchema: { type: "object" } }];
    const c = scripted("modern", handler(log));
    await expect(run(c, "tl1", sampleReq({ tools }))).rejects.toMatchObject({
      kind: "protocol",
      reason: "sampling_tools_not_declared",
    });
    await expect(run(c, "tl2", sampleReq({ toolChoice: { mode: "auto" } }))).rejects.toMatchObject({
      reason: "sampling_tools_not_declared",
    });
    expect(log).toHaveLength(0);
    const allowed = scripted("modern", handler(log), { sampling: { tools: true } });
    await run(allowed, "tl3", sampleReq({ tools }));
    expect(log[0]!.params.tools).toEqual(tools);
  });

  it("an elicitation mode not offered: protocol, code -32602", async () => {
    const c = scripted("modern", handler([]));
    const err = await run(c, "mode", urlReq("https://example.com")).catch((e) => e);
    expect(err).toMatchObject({ kind: "protocol", reason: "elicitation_mode_not_offered" });
    expect(err.data.code).toBe(-32602);
  });

  it("URL elicitation: only absolute https URLs without user info; idn and originMismatch", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted(
      "modern",
      { ...handler(log), elicitationModes: ["url"] },
      { elicitation: { origin: "https://mcp.example.com" } },
    );
    for (const url of [
      "javascript:alert(1)",
      "http://example.com/",
      "file:///etc/passwd",
      "https://user:pw@example.com/",
      "/relative",
      "https://exa mple.com/",
      "data:text/html,<b>x</b>",
    ]) {
      await expect(run(c, `u-${url}`, urlReq(url))).rejects.toMatchObject({
        kind: "protocol",
        reason: "url_not_allowed",
      });
    }
    expect(log).toHaveLength(0);
    await run(c, "u-ok1", urlReq("https://mcp.example.com/connect"));
    await run(c, "u-ok2", urlReq("https://bücher.example/x"));
    expect(log[0]!.ctx).toMatchObject({
      url: "https://mcp.example.com/connect",
      host: "mcp.example.com",
      idn: false,
      originMismatch: false,
    });
    expect(log[1]!.ctx).toMatchObject({ host: "xn--bcher-kva.example", idn: true, originMismatch: true });
  });

  it("a form schema outside the flat primitive subset: protocol, code -32602", async () => {
    const c = scripted("modern", handler([]));
    for (const schema of [
      {
        type: "object",
        properties: { address: { type: "object", properties: { street: { type: "string" } } } },
      },
      { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
      { type: "object", properties: { a: { $ref: "#/$defs/x" } }, $defs: { x: { type: "string" } } },
      { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "number" }] } } },
      { type: "array", items: { type: "string" } },
      { type: "object", properties: { a: { type: "string" } }, required: ["b"] },
    ]) {
      const err = await run(c, `schema-${JSON.stringify(schema)}`, formReq(schema)).catch((e) => e);
      expect(err).toMatchObject({ kind: "protocol", reason: "invalid_requested_schema" });
      expect(err.data.code).toBe(-32602);
    }
  });

  it("secret-looking form fields are flagged in ctx.fields", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted(
      "modern",
      handler(log, {
        elicitation: (p, ctx) => {
          log.push({ kind: "e", params: p, ctx });
          return { action: "decline" };
        },
      }),
    );
    const schema = {
      type: "object",
      properties: {
        username: { type: "string" },
        password: { type: "string" },
        apiKey: { type: "string" },
        card: { type: "string", title: "Card number" },
        x: { type: "string", title: "Social security number" },
        city: { type: "string" },
        // server-everything's: a warning not to give a secret is not a request for one.
        integer: {
          type: "integer",
          title: "Integer",
          description:
            "Your favorite integer (do not give us your phone number, pin, or other sensitive info)",
        },
        code: { type: "string", description: "Your PIN (never share it with anyone else)" },
      },
    };
    await run(c, "sensitive", formReq(schema));
    expect(log[0]!.ctx.fields).toEqual({
      username: { sensitiveSuspected: false },
      password: { sensitiveSuspected: true },
      apiKey: { sensitiveSuspected: true },
      card: { sensitiveSuspected: true },
      x: { sensitiveSuspected: true },
      city: { sensitiveSuspected: false },
      integer: { sensitiveSuspected: false },
      code: { sensitiveSuspected: true },
    });
  });

  it("answers are checked: action, a form accept fits the schema (defaults applied), a URL accept has no content", async () => {
    const reply: { value: unknown } = { value: undefined };
    const c = scripted("modern", {
      elicitationModes: ["form", "url"],
      elicitation: () => reply.value as JsonObject,
      sampling: () => reply.value as JsonObject,
      listRoots: () => reply.value as JsonObject,
    });
    const schema = {
      type: "object",
      properties: {
        name: { type: "string", maxLength: 5 },
        n: { type: "integer", minimum: 1, default: 2 },
        when: { type: "string", format: "date" },
        pick: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 1 },
      },
      required: ["name"],
    };
    const cases: Array<[unknown, string, JsonObject]> = [
      [{ action: "maybe" }, "invalid_elicitation_action", formReq(schema)],
      [{ action: "accept", content: { name: 5 } }, "answer_does_not_fit_schema", formReq(schema)],
      [{ action: "accept", content: { name: "toolongname" } }, "answer_does_not_fit_schema", formReq(schema)],
      [{ action: "accept", content: { name: "a", extra: 1 } }, "answer_does_not_fit_schema", formReq(schema)],
      [{ action: "accept", content: {} }, "answer_does_not_fit_schema", formReq(schema)],
      [{ action: "accept", content: { name: "a", n: 1.5 } }, "answer_does_not_fit_schema", formReq(schema)],
      [
        { action: "accept", content: { name: "a", when: "2024-02-30" } },
        "answer_does_not_fit_schema",
        formReq(schema),
      ],
      [
        { action: "accept", content: { name: "a", pick: ["c"] } },
        "answer_does_not_fit_schema",
        formReq(schema),
      ],
      [
        { action: "accept", content: { name: "a", pick: ["a", "b"] } },
        "answer_does_not_fit_schema",
        formReq(schema),
      ],
      [{ action: "accept", content: { x: 1 } }, "url_accept_with_content", urlReq("https://example.com")],
      ["text", "invalid_answer", formReq(schema)],
      [{ role: "assistant", content: "hi", model: "m" }, "invalid_sampling_result", sampleReq()],
      [{ roots: "file:///" }, "invalid_roots_result", { method: "roots/list" }],
    ];
    for (const [value, reason, req] of cases) {
      reply.value = value;
      const err = await run(c, `ans-${reason}-${JSON.stringify(value)}`, req).catch((e) => e);
      expect(err, JSON.stringify(value)).toMatchObject({ kind: "input_handler", reason });
    }
    reply.value = { action: "accept", content: { name: "Ada", when: "2024-02-29", pick: ["b"] } };
    const ok = await run(c, "ans-ok", formReq(schema));
    expect(structured(ok).inputResponses.k).toEqual({
      action: "accept",
      content: { name: "Ada", when: "2024-02-29", pick: ["b"], n: 2 },
    });
    reply.value = { action: "decline", content: { name: "dropped" } };
    expect(structured(await run(c, "ans-decline", formReq(schema))).inputResponses.k).toEqual({
      action: "decline",
    });
  });

  it("roots: only local file:// URIs, dot segments resolved", async () => {
    const c = scripted("modern", {
      listRoots: () => ({
        roots: [
          { uri: "file:///a/b/../c/%2e%2e/d", name: "d" },
          { uri: "file://localhost/home/me" },
          { uri: "file://remote.example/share" },
          { uri: "http://example.com/" },
          { uri: "not a uri" },
          { name: "no uri" },
        ],
      }),
    });
    const r = await run(c, "roots", { method: "roots/list" });
    expect(structured(r).inputResponses.k).toEqual({
      roots: [{ uri: "file:///a/d", name: "d" }, { uri: "file:///home/me" }],
    });
    expect(c.logger.lines.some((l) => l.includes("4 root(s) left out"))).toBe(true);
  });

  it("the input request budget: over it the call fails with rate_limited before any callback", async () => {
    // The budget's clock is Date.now(): frozen (timers and pipes stay real), so nothing refills
    // until the test moves it.
    vi.useFakeTimers({ toFake: ["Date"] });
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log), { inputRateLimit: { perSecond: 1, burst: 3 } });
    const three = { a: { method: "roots/list" }, b: { method: "roots/list" }, c: { method: "roots/list" } };
    await run(c, "budget-ok", three.a);
    await expect(
      c.callTool("mrtr", { tag: "budget-over", script: [inputRequired(three)] }),
    ).rejects.toMatchObject({
      kind: "rate_limited",
      reason: "input_rate_limit",
    });
    expect(log).toHaveLength(1);
    vi.setSystemTime(Date.now() + 1000); // one token more: three again
    const refilled = await c.callTool("mrtr", { tag: "budget-refilled", script: [inputRequired(three)] });
    expect(refilled.isError).toBe(false);
    expect(log).toHaveLength(4);
  });

  it("assigns: the call's option, else the client's", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log), { assigns: { tenant: "t0" } });
    await run(c, "as1", { method: "roots/list" });
    await c.callTool(
      "mrtr",
      { tag: "as2", script: [inputRequired({ k: { method: "roots/list" } })] },
      { assigns: { tenant: "t9" } },
    );
    expect(log.map((l) => l.ctx.assigns)).toEqual([{ tenant: "t0" }, { tenant: "t9" }]);
  });
});

describe("server-keyed objects", () => {
  it("an input request keyed __proto__: protocol, and no callback runs", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    // JSON.parse makes "__proto__" an own key, as a server's JSON does.
    const inputRequests = JSON.parse(`{"__proto__": ${JSON.stringify(sampleReq())}}`) as JsonObject;
    await expect(
      c.callTool("mrtr", { tag: "proto", script: [inputRequired(inputRequests)] }),
    ).rejects.toMatchObject({ kind: "protocol", reason: "invalid_input_request_key" });
    expect(log).toEqual([]);
    // Beside an ordinary key, the same.
    const mixed = JSON.parse(
      `{"a": ${JSON.stringify(sampleReq())}, "__proto__": ${JSON.stringify(sampleReq())}}`,
    ) as JsonObject;
    await expect(c.callTool("mrtr", { tag: "mixed", script: [inputRequired(mixed)] })).rejects.toMatchObject({
      kind: "protocol",
      reason: "invalid_input_request_key",
    });
    expect(log).toEqual([]);
  });

  it("a form whose field is named __proto__ is refused as invalid, never answered", async () => {
    const log: Parameters<typeof handler>[0] = [];
    const c = scripted("modern", handler(log));
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as JsonObject;
    await expect(
      c.callTool("mrtr", { tag: "form", script: [inputRequired({ f: formReq(schema) })] }),
    ).rejects.toMatchObject({ kind: "protocol" });
    expect(log).toEqual([]);
  });
});
