// Hooks on a governed client, against the scripted server (its `echo` answers with the params it
// received, and it logs every request to a file, so a test sees what reached the server).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type GovernanceOptions, governance, type PolicyCall, refuse } from "../src/governance/index.js";
import type { McpClientError } from "../src/index.js";
import { ClientPool, recordEvents, rejectionOf, silentLogger, uniqueName } from "./support/index.js";
import { scriptedTransport, toolCallsIn } from "./support/scripted.js";

const pool = new ClientPool();
afterEach(() => pool.closeAll());

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "conduit-gov-hooks-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOOLS = [
  {
    name: "echo",
    description: "Echoes its params",
    inputSchema: {
      type: "object",
      properties: { message: { type: "string" }, path: { type: "string" } },
      required: ["message"],
      additionalProperties: false,
    },
  },
];

let files = 0;
function scripted(options: GovernanceOptions, tools: Array<Record<string, unknown>> = TOOLS) {
  const stateFile = join(dir, `state-${++files}.log`);
  const name = uniqueName("gov-hooks");
  const client = pool.create({
    name,
    transport: scriptedTransport({ tools, stateFile }),
    logger: silentLogger(),
    interceptors: [governance(options)],
  });
  const calls = () => toolCallsIn(stateFile).length;
  return { client, calls, name };
}

const sentArguments = (r: { structured: unknown }) => (r.structured as { arguments: unknown }).arguments;

describe("beforeCall hooks", () => {
  it("run in order; a rewrite is what is sent, and what the policy decides on", async () => {
    const seenByPolicy: PolicyCall[] = [];
    const { client } = scripted({
      beforeCall: [
        (c) => ({ ...c, arguments: { ...c.arguments, message: `${String(c.arguments.message)}-1` } }),
        (c) => ({ ...c, arguments: { ...c.arguments, message: `${String(c.arguments.message)}-2` } }),
      ],
      policy: (c) => {
        seenByPolicy.push(c);
        return c.arguments.message === "hi-1-2" ? "allow" : "deny";
      },
    });
    const r = await client.callTool("echo", { message: "hi" });
    expect(sentArguments(r)).toEqual({ message: "hi-1-2" });
    expect(seenByPolicy.map((c) => c.arguments)).toEqual([{ message: "hi-1-2" }]);
  });

  it("a rewrite the input schema refuses fails closed with kind hook; nothing is sent", async () => {
    const { client, calls } = scripted({
      beforeCall: [(c) => ({ ...c, arguments: { message: 42 } })],
    });
    const err = (await rejectionOf(client.callTool("echo", { message: "hi" }))) as McpClientError;
    expect(err.kind).toBe("hook");
    expect([err.reason, err.detail]).toEqual(["invalid_arguments", { phase: "before", hook: 0 }]);
    expect(calls()).toBe(0);
  });

  it("a hook that edits the arguments in place is checked the same way; the caller's object is untouched", async () => {
    const { client, calls } = scripted({
      beforeCall: [
        (c) => {
          c.arguments.message = 42;
          return c;
        },
      ],
    });
    const args = { message: "hi" };
    const err = (await rejectionOf(client.callTool("echo", args))) as McpClientError;
    expect([err.reason, err.detail]).toEqual(["invalid_arguments", { phase: "before", hook: 0 }]);
    expect(args).toEqual({ message: "hi" });
    expect(calls()).toBe(0);
  });

  it("a schema naming draft-07 still checks a rewrite; a hostile schema cannot vouch for one", async () => {
    const rewrite = (message: unknown) => [(c: PolicyCall) => ({ ...c, arguments: { message } })];
    const draft7 = [
      {
        name: "echo",
        inputSchema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { message: { type: "string" } },
        },
      },
    ];
    const ok = scripted({ beforeCall: rewrite("fine") }, draft7);
    expect(sentArguments(await ok.client.callTool("echo", { message: "x" }))).toEqual({ message: "fine" });
    const bad = scripted({ beforeCall: rewrite(7) }, draft7);
    expect(
      ((await rejectionOf(bad.client.callTool("echo", { message: "x" }))) as McpClientError).toJSON(),
    ).toMatchObject({ reason: "invalid_arguments", detail: { phase: "before", hook: 0 } });
    const hostile = [
      {
        name: "echo",
        // A look-ahead: RE2 cannot run it, so the schema is refused.
        inputSchema: { type: "object", properties: { message: { type: "string", pattern: "^(?=a)(a+)+$" } } },
      },
    ];
    const evil = scripted({ beforeCall: rewrite("aaaa") }, hostile);
    expect(
      ((await rejectionOf(evil.client.callTool("echo", { message: "x" }))) as McpClientError).toJSON(),
    ).toMatchObject({ reason: "schema_unusable", detail: { phase: "before", hook: 0 } });
    expect(bad.calls() + evil.calls()).toBe(0);
  });

  it("a hook that refuses is a denial with its reason; nothing is sent", async () => {
    const { client, calls } = scripted({
      beforeCall: [
        (c) => {
          if (String(c.arguments.path ?? "").includes("..")) throw refuse("path escapes the workspace");
          return c;
        },
      ],
    });
    const err = (await rejectionOf(
      client.callTool("echo", { message: "x", path: "../../etc" }),
    )) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(err.reason).toBe("denied_by_hook");
    expect(err.detail).toEqual({ by: "hook", reason: "path escapes the workspace" });
    expect(calls()).toBe(0);
    // An unchanged call passes, unvalidated (the server is the judge of its own schema).
    expect((await client.callTool("echo", { message: "ok" })).isError).toBe(false);
    expect(calls()).toBe(1);
  });

  it("a hook that throws, rejects, returns something malformed or hangs fails closed (kind hook)", async () => {
    const behaviours: Array<(c: PolicyCall) => unknown> = [
      () => {
        throw new Error("boom");
      },
      () => Promise.reject(new Error("boom")),
      () => undefined,
      (c) => ({ ...c, arguments: "not an object" }),
      (c) => ({ ...c, tool: { ...c.tool, name: "other" } }),
      (c) => ({ ...c, principal: "root" }),
      () => new Promise(() => {}),
    ];
    const rec = recordEvents({ names: ["hook:exception", "hook:stop"] });
    const { client, calls, name } = scripted({
      hookTimeout: 100,
      beforeCall: [(c) => behaviours.shift()!(c) as PolicyCall],
    });
    try {
      const problems: unknown[] = [];
      for (let i = 0; i < 7; i++) {
        const err = (await rejectionOf(client.callTool("echo", { message: "x" }))) as McpClientError;
        expect(err.kind).toBe("hook");
        problems.push(err.reason);
      }
      expect(problems).toEqual([
        "threw",
        "threw",
        "malformed",
        "malformed",
        "malformed",
        "malformed",
        "timeout",
      ]);
      expect(calls()).toBe(0);
      const mine = rec.events.filter((e) => e.client === name);
      expect(mine.filter((e) => e.event === "hook:exception").map((e) => e.problem)).toEqual(problems);
      expect(JSON.stringify(mine)).not.toContain('"x"');
    } finally {
      rec.stop();
    }
  });

  it("a hook running past the call's own deadline is that call's timeout", async () => {
    const { client, calls } = scripted({
      hookTimeout: 60_000,
      beforeCall: [() => new Promise(() => {})],
    });
    const err = (await rejectionOf(
      client.callTool("echo", { message: "x" }, { timeout: 300 }),
    )) as McpClientError;
    expect(err.kind).toBe("timeout");
    expect(calls()).toBe(0);
  });
});

describe("afterCall hooks", () => {
  it("may replace the result", async () => {
    const { client } = scripted({
      afterCall: [
        (_c, r) => ({ ...r, content: [{ type: "text", text: "redacted" }], structured: null }),
        (c, r) => ({ ...r, extra: { ...r.extra, tool: c.tool.name } }),
      ],
    });
    const r = await client.callTool("echo", { message: "secret text" });
    expect(r.content).toEqual([{ type: "text", text: "redacted" }]);
    expect(r.structured).toBeNull();
    expect(r.extra).toEqual({ tool: "echo" });
  });

  it("one that throws or returns no result withholds the result (kind hook); the call did run", async () => {
    const behaviours: Array<() => unknown> = [
      () => {
        throw new Error("boom");
      },
      () => ({ content: "nope" }),
    ];
    const { client, calls } = scripted({ afterCall: [() => behaviours.shift()!() as never] });
    for (const problem of ["threw", "malformed"]) {
      const err = (await rejectionOf(client.callTool("echo", { message: "x" }))) as McpClientError;
      expect(err.kind).toBe("hook");
      expect([err.reason, err.detail]).toEqual([problem, { phase: "after", hook: 0 }]);
    }
    expect(calls()).toBe(2);
  });

  it('task: "return" is refused when afterCall hooks would not see the result', async () => {
    const { client, calls } = scripted({ afterCall: [(_c, r) => r] });
    await expect(client.callTool("echo", { message: "x" }, { task: "return" })).rejects.toThrow(TypeError);
    expect(calls()).toBe(0);
  });
});

describe("answers are read from their own data only", () => {
  /** A Proxy that lies: `allow: true` through its get trap only, and a throwing descriptor trap. */
  const throwingDescriptors = <T extends object>(target: T) =>
    new Proxy(target, {
      getOwnPropertyDescriptor() {
        throw new Error("trap");
      },
    });
  const getOnly = (values: Record<string, unknown>) =>
    new Proxy({}, { get: (_t, key) => (typeof key === "string" ? values[key] : undefined) });
  /** A get trap that throws for every key but `then` (so it resolves as a value, not a thenable). */
  const throwingGets = () =>
    new Proxy(
      {},
      {
        get: (_t, key) => {
          if (key === "then") return undefined;
          throw new Error("trap");
        },
      },
    );

  async function refusedMalformed(
    client: { callTool(n: string, a: Record<string, unknown>): Promise<unknown> },
    phase: string,
    what: string,
  ) {
    const err = (await rejectionOf(client.callTool("echo", { message: "x" }))) as McpClientError;
    expect(err.kind, what).toBe("hook");
    expect(err.reason, what).toBe("malformed");
    expect(err.detail, what).toMatchObject({ phase });
  }

  it("an approval that is inherited, behind a getter, or unreadable approves nothing; nothing is sent", async () => {
    const answers: Array<[string, () => unknown]> = [
      ["inherited allow", () => Object.create({ allow: true })],
      [
        "getter allow",
        () => ({
          get allow() {
            return true;
          },
        }),
      ],
      [
        "throwing getter",
        () => ({
          get allow() {
            throw new Error("getter");
          },
        }),
      ],
      ["get-trap allow", () => getOnly({ allow: true, remember: "session" })],
      ["throwing get trap", throwingGets],
      ["throwing descriptor trap", () => throwingDescriptors({ allow: true })],
      ["inherited deny", () => Object.create({ deny: "no" })],
    ];
    const queue = answers.map(([, answer]) => answer);
    const { client, calls } = scripted({
      policy: [{ tool: "echo", decision: "ask" }],
      approve: () => queue.shift()!() as never,
    });
    for (const [what] of answers) await refusedMalformed(client, "approve", what);
    expect(calls()).toBe(0);
    // An own data property still approves.
    const ok = scripted({ policy: [{ tool: "echo", decision: "ask" }], approve: () => ({ allow: true }) });
    expect((await ok.client.callTool("echo", { message: "x" })).isError).toBe(false);
    expect(ok.calls()).toBe(1);
  });

  it("a policy function's verdict is read the same way", async () => {
    const verdicts: Array<() => unknown> = [
      () => Object.create({ decision: "allow" }),
      () => getOnly({ decision: "allow" }),
      () => throwingDescriptors({ decision: "allow" }),
    ];
    const { client, calls } = scripted({ policy: () => verdicts.shift()!() as never });
    for (const what of ["inherited", "get trap", "throwing trap"])
      await refusedMalformed(client, "policy", what);
    expect(calls()).toBe(0);
  });

  it("a before-hook's call is read from its own data: inherited fields or getters are malformed; nothing is sent", async () => {
    const hooks: Array<(c: PolicyCall) => unknown> = [
      (c) => Object.create(c),
      (c) => {
        const { arguments: args, ...rest } = c;
        return {
          ...rest,
          get arguments() {
            return args;
          },
        };
      },
      (c) => ({
        ...c,
        get arguments(): never {
          throw new Error("getter");
        },
      }),
      (c) => throwingDescriptors({ ...c }),
    ];
    const { client, calls } = scripted({ beforeCall: [(c) => hooks.shift()!(c) as PolicyCall] });
    for (const what of ["inherited", "getter", "throwing getter", "throwing trap"]) {
      await refusedMalformed(client, "before", what);
    }
    expect(calls()).toBe(0);
  });

  it("a before-hook's arguments are copied once: what the schema checked is what is sent", async () => {
    let reads = 0;
    const { client } = scripted({
      beforeCall: [
        (c) => ({
          ...c,
          arguments: {
            message: "x",
            get path() {
              return reads++ === 0 ? "checked" : "../../swapped";
            },
          },
        }),
      ],
    });
    const r = await client.callTool("echo", { message: "x" });
    expect(sentArguments(r)).toEqual({ message: "x", path: "checked" });
    expect(reads).toBe(1);
  });

  it("an after-hook's result is read from its own data; the call did run", async () => {
    const hooks: Array<(r: unknown) => unknown> = [
      (r) => Object.create(r as object),
      (r) => ({
        ...(r as object),
        get isError(): never {
          throw new Error("getter");
        },
      }),
      (r) => throwingDescriptors({ ...(r as object) }),
    ];
    const { client, calls } = scripted({ afterCall: [(_c, r) => hooks.shift()!(r) as never] });
    for (const what of ["inherited", "throwing getter", "throwing trap"])
      await refusedMalformed(client, "after", what);
    expect(calls()).toBe(3);
  });
});
