// The tool-call pipeline (issue 25): a user interceptor on a Client and on a Hub (hub-wide and
// per server), against the official server fixture over stdio in both eras. An interceptor sees
// every call exactly once, can refuse (throw or answer an error result), can rewrite arguments
// (the server echoes what it was sent), sees the result; the first in a list is the outermost;
// governance() is one interceptor among them.
import { afterAll, describe, expect, it } from "vitest";
import { type GovernanceOptions, governance, refuse } from "../src/governance/index.js";
import {
  type CallTool,
  Hub,
  McpClientError,
  OptionError,
  type ToolCall,
  type ToolCallInterceptor,
  type ToolResult,
} from "../src/index.js";
import {
  ClientPool,
  officialServer,
  recordEvents,
  rejectionOf,
  silentLogger,
  uniqueName,
} from "./support/index.js";

const pool = new ClientPool();
afterAll(() => pool.closeAll());

const text = (r: ToolResult) => r.content.map((c) => ("text" in c ? c.text : "")).join("");

/** An interceptor that writes what it sees, in order, into `log` under `label`. */
function recorder(label: string, log: string[]): ToolCallInterceptor {
  return (next) => async (call) => {
    log.push(`${label}> ${call.serverId}/${call.name}`);
    const r = await next(call);
    log.push(`${label}< ${r.isError ? "error" : text(r)}`);
    return r;
  };
}

/** Rewrites echo's message, so the server's answer shows what it was sent. */
const shout: ToolCallInterceptor = (next) => (call) =>
  next(
    call.name === "echo"
      ? { ...call, arguments: { message: String(call.arguments.message).toUpperCase() } }
      : call,
  );

/** Refuses `add` with a typed error (never calling next), and `echo` of "secret" with an error result. */
function gate(reached: string[]): ToolCallInterceptor {
  return (next) => async (call) => {
    if (call.name === "add") throw refuse("no sums today");
    if (call.arguments.message === "secret") {
      return {
        content: [{ type: "text", text: "withheld" }],
        structured: null,
        isError: true,
        meta: null,
        extra: {},
      };
    }
    reached.push(call.name);
    return next(call);
  };
}

describe.each(["legacy", "modern"] as const)("interceptors on a Client (%s)", (era) => {
  const client = (interceptors: ToolCallInterceptor[], name = uniqueName(`icpt-${era}`)) =>
    pool.create({
      name,
      serverId: "off",
      transport: officialServer(era),
      logger: silentLogger(),
      interceptors,
    });

  it("the issue's audit interceptor sees every call once, with its result; the era is the one asked for", async () => {
    const seen: Array<[string, boolean]> = [];
    const audit: ToolCallInterceptor = (next) => async (call) => {
      const r = await next(call);
      seen.push([call.name, r.isError]);
      return r;
    };
    const c = client([audit]);
    expect(text(await c.callTool("echo", { message: "one" }))).toBe("one");
    expect((await c.callTool("add", { a: 2, b: 3 })).structured).toEqual({ sum: 5 });
    expect(c.status().era).toBe(era);
    expect(seen).toEqual([
      ["echo", false],
      ["add", false],
    ]);
  });

  it("the first interceptor is the outermost; a rewrite reaches the server", async () => {
    const log: string[] = [];
    const c = client([recorder("outer", log), shout, recorder("inner", log)]);
    const r = await c.callTool("echo", { message: "quiet" });
    expect(text(r)).toBe("QUIET");
    expect(log).toEqual(["outer> off/echo", "inner> off/echo", "inner< QUIET", "outer< QUIET"]);
  });

  it("can refuse with a typed error or an error result; the refused call goes no further", async () => {
    const reached: string[] = [];
    const c = client([gate(reached)]);
    const err = await rejectionOf(c.callTool("add", { a: 1, b: 1 }));
    expect(McpClientError.is(err, "denied")).toBe(true);
    const withheld = await c.callTool("echo", { message: "secret" });
    expect([withheld.isError, text(withheld)]).toEqual([true, "withheld"]);
    expect(text(await c.callTool("echo", { message: "fine" }))).toBe("fine");
    expect(reached).toEqual(["echo"]);
  });

  it("governance() is an interceptor: it denies by policy, and the trace still reports its decision", async () => {
    const name = uniqueName(`icpt-gov-${era}`);
    const rec = recordEvents({ client: name, names: ["tool_call:stop", "policy:decision"] });
    const log: string[] = [];
    const c = client(
      [
        recorder("audit", log),
        governance({
          policy: [
            { tool: "add", decision: "deny", reason: "no sums" },
            { tool: "*", decision: "allow" },
          ],
        }),
      ],
      name,
    );
    try {
      const err = await rejectionOf(c.callTool("add", { a: 1, b: 2 }));
      expect(McpClientError.is(err, "denied")).toBe(true);
      expect(text(await c.callTool("echo", { message: "ok" }))).toBe("ok");
      // The audit stands outside governance: it saw the denied call go in (and no result come out).
      expect(log).toEqual(["audit> off/add", "audit> off/echo", "audit< ok"]);
      expect(rec.of("policy:decision").map((e) => e.decision)).toEqual(["deny", "allow"]);
      const stops = rec.of("tool_call:stop").map((e) => [e.status, e.decision, e.attempts]);
      expect(stops).toEqual([
        ["error", "deny", 0],
        ["ok", "allow", 1],
      ]);
    } finally {
      rec.stop();
    }
  });
});

describe.each(["legacy", "modern"] as const)("interceptors on a Hub (%s)", (era) => {
  it("hub-wide outermost, then governance, then the server's own; each call passes each once", async () => {
    const log: string[] = [];
    const reached: string[] = [];
    const hub = new Hub({
      name: uniqueName(`icpt-hub-${era}`),
      logger: silentLogger(),
      clientOptions: { logger: silentLogger() },
      interceptors: [recorder("hub", log)],
      governance: { policy: [{ tool: "fail", decision: "deny" }] },
      servers: {
        a: { transport: officialServer(era), interceptors: [recorder("a", log), shout] },
        b: { transport: officialServer(era), interceptors: [gate(reached)] },
      },
    });
    try {
      expect(text(await hub.callTool("mcp__a__echo", { message: "hi" }))).toBe("HI");
      expect(text(await hub.callTool("mcp__b__echo", { message: "hi" }))).toBe("hi");
      const refused = await rejectionOf(hub.callTool("mcp__b__add", { a: 1, b: 1 }));
      expect(McpClientError.is(refused, "denied")).toBe(true);
      // Governance stands before the server's interceptors: a denied call never reaches them.
      const denied = await rejectionOf(hub.callTool("mcp__a__fail", {}));
      expect((denied as McpClientError).reason).toBe("denied_by_policy");
      expect(hub.client("a").status().era).toBe(era);
      expect(log).toEqual([
        "hub> a/echo",
        "a> a/echo",
        "a< HI",
        "hub< HI",
        "hub> b/echo",
        "hub< hi",
        "hub> b/add",
        "hub> a/fail",
      ]);
      expect(reached).toEqual(["echo"]);
    } finally {
      await hub.close();
    }
  });

  it("a server's own governance replaces the hub's for that server", async () => {
    const hub = new Hub({
      name: uniqueName(`icpt-hubgov-${era}`),
      logger: silentLogger(),
      clientOptions: { logger: silentLogger() },
      governance: { policy: [{ tool: "echo", decision: "deny" }] },
      servers: {
        strict: { transport: officialServer(era) },
        own: { transport: officialServer(era), governance: { policy: [{ tool: "add", decision: "deny" }] } },
      },
    });
    try {
      expect(
        McpClientError.is(await rejectionOf(hub.callTool("mcp__strict__echo", { message: "x" })), "denied"),
      ).toBe(true);
      expect(text(await hub.callTool("mcp__own__echo", { message: "x" }))).toBe("x");
      expect(
        McpClientError.is(await rejectionOf(hub.callTool("mcp__own__add", { a: 1, b: 2 })), "denied"),
      ).toBe(true);
    } finally {
      await hub.close();
    }
  });
});

describe("the interceptors option", () => {
  it("is an array of functions, else an OptionError naming it (client, hub, server)", () => {
    const bad = [{}, [1], ["x"], (() => {}) as unknown];
    for (const interceptors of bad) {
      expect(
        () =>
          new Hub({
            servers: { s: { transport: officialServer("dual") } },
            interceptors: interceptors as ToolCallInterceptor[],
          }),
      ).toThrow(OptionError);
      expect(
        () =>
          new Hub({
            servers: {
              s: { transport: officialServer("dual"), interceptors: interceptors as ToolCallInterceptor[] },
            },
          }),
      ).toThrow(/servers\.s\.interceptors/);
      expect(() =>
        pool.create({
          name: uniqueName("icpt-bad"),
          transport: officialServer("dual"),
          interceptors: interceptors as ToolCallInterceptor[],
        }),
      ).toThrow(/option "interceptors/);
    }
  });

  it("a task: 'return' call passes governance's policy; with afterCall hooks it is refused, once, as a rejection", async () => {
    const decided: string[] = [];
    /** A client whose governance allows every call and notes the tool it judged. */
    const judgedBy = (name: string, extra: Partial<GovernanceOptions>) =>
      pool.create({
        name: uniqueName(name),
        transport: officialServer("modern"),
        logger: silentLogger(),
        interceptors: [
          governance({
            policy: (call) => {
              decided.push(call.tool.name);
              return "allow";
            },
            ...extra,
          }),
        ],
      });
    const c = judgedBy("icpt-task", { afterCall: [(_call, r) => r] });
    const p = c.callTool("echo", { message: "x" }, { task: "return" });
    const err = await rejectionOf(p);
    expect(err).toBeInstanceOf(TypeError);
    expect(String(err)).toMatch(/afterCall/);
    expect(decided).toEqual([]);
    // Without afterCall hooks the policy judges it, and a tool the server runs at once answers a result.
    const judged = judgedBy("icpt-task2", {});
    const r = await judged.callTool("echo", { message: "y" }, { task: "return" });
    expect("content" in r && text(r)).toBe("y");
    expect(decided).toEqual(["echo"]);
  });

  it("an interceptor that throws at once still ends the call as a traced rejection", async () => {
    const name = uniqueName("icpt-sync");
    const rec = recordEvents({ client: name, names: ["tool_call:stop"] });
    const atOnce: ToolCallInterceptor = () => () => {
      throw refuse("at once");
    };
    const c = pool.create({
      name,
      transport: officialServer("dual"),
      logger: silentLogger(),
      interceptors: [atOnce],
    });
    try {
      const p = c.callTool("echo", { message: "x" });
      expect(McpClientError.is(await rejectionOf(p), "denied")).toBe(true);
      expect(rec.of("tool_call:stop").map((e) => [e.status, e.errorKind])).toEqual([["error", "denied"]]);
    } finally {
      rec.stop();
    }
  });

  it("an interceptor's types: the issue's example compiles as written", () => {
    const log = (_name: string, _isError: boolean) => {};
    const audit: ToolCallInterceptor = (next) => async (call) => {
      const r = await next(call);
      log(call.name, r.isError);
      return r;
    };
    const core: CallTool = async (call: ToolCall) => ({
      content: [{ type: "text", text: call.name }],
      structured: null,
      isError: false,
      meta: null,
      extra: {},
    });
    return audit(core)({ name: "t", arguments: {}, serverId: "s" }).then((r) => expect(text(r)).toBe("t"));
  });
});
