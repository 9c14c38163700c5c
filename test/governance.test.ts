// Governance against real peers: the official filesystem server (policy, approvals, grants by
// principal, a denied call that never reaches the server) and the scripted server for what no
// real server does (a rug pull, hostile hints, odd names, approvers that throw or hang).
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  type ApprovalRequest,
  type GovernanceOptions,
  governance,
  toolDigest,
} from "../src/governance/index.js";
import { RulePolicy } from "../src/governance/policy.js";
import { Client, McpClientError } from "../src/index.js";
import { compileNameGlobs } from "../src/util/name-glob.js";
import {
  ClientPool,
  FILESYSTEM_SERVER,
  nodeServer,
  recordEvents,
  rejectionOf,
  silentLogger,
  unexpectedKeys,
  uniqueName,
} from "./support/index.js";
import { scriptedTransport, toolCallsIn } from "./support/scripted.js";

const pool = new ClientPool();
afterEach(() => pool.closeAll());

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "conduit-gov-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function filesystem(options: GovernanceOptions, extra: Record<string, unknown> = {}): Client {
  return pool.create({
    name: uniqueName("gov-fs"),
    serverId: "fs",
    transport: nodeServer(FILESYSTEM_SERVER, [root]),
    logger: silentLogger(),
    interceptors: [governance(options)],
    ...extra,
  });
}

const FS_POLICY = [
  { tool: "read_*", decision: "allow" },
  { tool: "move_file", decision: "deny", reason: "never from an agent" },
  { annotations: { destructiveHint: true }, decision: "ask" },
] as const;

describe("governance against server-filesystem", () => {
  it("allows read_text_file without asking, asks for write_file, and writes only once approved", async () => {
    const asked: ApprovalRequest[] = [];
    const c = filesystem({
      policy: FS_POLICY,
      approve: (r) => {
        asked.push(r);
        return true;
      },
    });
    const path = join(root, "approved.txt");
    writeFileSync(join(root, "hello.txt"), "hello");
    const read = await c.callTool("read_text_file", { path: join(root, "hello.txt") });
    expect(read.isError).toBe(false);
    expect(asked).toEqual([]);

    const wrote = await c.callTool(
      "write_file",
      { path, content: "one" },
      { principal: "user-42", context: { ticket: 7 } },
    );
    expect(wrote.isError).toBe(false);
    expect(readFileSync(path, "utf8")).toBe("one");
    expect(asked).toHaveLength(1);
    const r = asked[0]!;
    expect(r).toMatchObject({
      serverId: "fs",
      arguments: { path, content: "one" },
      principal: "user-42",
      context: { ticket: 7 },
      previous: null,
    });
    expect(r.tool.name).toBe("write_file");
    expect(r.definition.name).toBe("write_file");
    expect(r.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(r.digest).toBe(toolDigest(r.definition));

    // "once" is the default: the next call asks again.
    await c.callTool("write_file", { path, content: "two" }, { principal: "user-42" });
    expect(asked).toHaveLength(2);
  });

  it("a call the policy denies never reaches the server: the file is not written", async () => {
    const c = filesystem({ policy: [{ tool: "write_file", decision: "deny", reason: "read-only agent" }] });
    const path = join(root, "denied.txt");
    const err = await rejectionOf(c.callTool("write_file", { path, content: "x" }));
    expect(err).toBeInstanceOf(McpClientError);
    expect((err as McpClientError).kind).toBe("denied");
    expect((err as McpClientError).reason).toBe("denied_by_policy");
    expect((err as McpClientError).detail).toEqual({ by: "policy", rule: 0, reason: "read-only agent" });
    expect(existsSync(path)).toBe(false);
    // The client keeps working.
    expect((await c.callTool("list_allowed_directories", {})).isError).toBe(false);
  });

  it("a rule's deny wins where it comes first; the rule's reason, never server text, is in the error", async () => {
    const c = filesystem({ policy: FS_POLICY, approve: () => true });
    const from = join(root, "stay.txt");
    writeFileSync(from, "stay");
    const err = (await rejectionOf(
      c.callTool("move_file", { source: from, destination: join(root, "gone.txt") }),
    )) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(err.message).toBe('denied: denied_by_policy by=policy rule=1 reason="never from an agent"');
    expect(existsSync(from)).toBe(true);
  });

  it("destructiveHint and idempotentHint rules pass over a tool that says readOnlyHint: true (the spec's rule)", async () => {
    const asked: string[] = [];
    const c = filesystem({
      policy: [
        { annotations: { destructiveHint: true }, decision: "ask" },
        { annotations: { idempotentHint: false }, decision: "ask" },
      ],
      approve: (r) => {
        asked.push(r.tool.name);
        return false;
      },
    });
    const path = join(root, "hints.txt");
    writeFileSync(path, "hinted");
    // read_text_file: { readOnlyHint: true, openWorldHint: false }; the defaults of the other
    // two (destructive, not idempotent) mean nothing for a read-only tool.
    const read = await c.callTool("read_text_file", { path });
    expect(read.isError).toBe(false);
    expect(read.structured).toEqual({ content: "hinted" });
    // write_file: { readOnlyHint: false, destructiveHint: true }: the rule holds, and asks.
    const err = (await rejectionOf(c.callTool("write_file", { path, content: "x" }))) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(asked).toEqual(["write_file"]);
    expect(readFileSync(path, "utf8")).toBe("hinted");
  });

  it("ask without an approver fails closed", async () => {
    const c = filesystem({ policy: FS_POLICY });
    const path = join(root, "no-approver.txt");
    const err = (await rejectionOf(c.callTool("write_file", { path, content: "x" }))) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(err.reason).toBe("approval_required");
    expect(err.detail).toMatchObject({ by: "policy", rule: 2 });
    expect(existsSync(path)).toBe(false);
  });

  it("every refusal an approver can give is a denial, and nothing is written", async () => {
    const answers: unknown[] = [false, "deny", { deny: "not today" }];
    const c = filesystem({ policy: FS_POLICY, approve: () => answers.shift() as boolean });
    const path = join(root, "refused.txt");
    const reasons: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const err = (await rejectionOf(c.callTool("write_file", { path, content: "x" }))) as McpClientError;
      expect(err.kind).toBe("denied");
      expect(err.reason).toBe("denied_by_approver");
      reasons.push(err.detail);
    }
    expect(reasons).toEqual([
      { by: "approver", rule: 2 },
      { by: "approver", rule: 2 },
      { by: "approver", rule: 2, reason: "not today" },
    ]);
    expect(existsSync(path)).toBe(false);
  });

  it('remember: "session" keeps a grant for that principal only; another principal is asked', async () => {
    const asked: Array<string | null> = [];
    const rec = recordEvents({ names: ["policy:decision"] });
    const name = uniqueName("gov-fs-session");
    const c = pool.create({
      name,
      serverId: "fs",
      transport: nodeServer(FILESYSTEM_SERVER, [root]),
      logger: silentLogger(),
      principal: "alice",
      interceptors: [
        governance({
          policy: FS_POLICY,
          approve: (r) => {
            asked.push(r.principal);
            return { allow: true, remember: "session" };
          },
        }),
      ],
    });
    const path = join(root, "session.txt");
    try {
      await c.callTool("write_file", { path, content: "1" });
      await c.callTool("write_file", { path, content: "2" });
      await c.callTool("write_file", { path, content: "3" }, { principal: "bob" });
      await c.callTool("write_file", { path, content: "4" }, { principal: "alice" });
      expect(asked).toEqual(["alice", "bob"]);
      expect(readFileSync(path, "utf8")).toBe("4");
      const decisions = rec.events.filter((e) => e.client === name);
      expect(decisions.map((e) => [e.toolName, e.decision, e.cachedGrant])).toEqual([
        ["write_file", "ask", false],
        ["write_file", "ask", true],
        ["write_file", "ask", false],
        ["write_file", "ask", true],
      ]);
      expect(JSON.stringify(decisions)).not.toContain("session.txt");
    } finally {
      rec.stop();
    }
  });

  it("tool_call:stop carries the decision and the attempt count", async () => {
    const name = uniqueName("gov-fs-span");
    const rec = recordEvents({ client: name, names: ["tool_call:stop"] });
    const c = pool.create({
      name,
      transport: nodeServer(FILESYSTEM_SERVER, [root]),
      logger: silentLogger(),
      interceptors: [governance({ policy: FS_POLICY })],
    });
    try {
      await c.callTool("read_text_file", { path: join(root, "none.txt") });
      await rejectionOf(c.callTool("move_file", { source: "a", destination: "b" }));
      // A destructiveHint rule means nothing for a tool that says readOnlyHint: true (the spec's
      // rule): it is allowed by default. write_file is destructive: asked, and with no approver
      // that is a denial.
      await c.callTool("list_allowed_directories", {});
      await rejectionOf(c.callTool("write_file", { path: join(root, "never.txt"), content: "x" }));
      expect(rec.of("tool_call:stop").map((e) => [e.status, e.decision, e.attempts, e.errorKind])).toEqual([
        ["ok", "allow", 1, null],
        ["error", "deny", 0, "denied"],
        ["ok", "allow", 1, null],
        ["error", "ask", 0, "denied"],
      ]);
    } finally {
      rec.stop();
    }
  });
});

// ---- the scripted server -----------------------------------------------------------------------

const TOOLS = [
  { name: "echo", description: "Echoes its params", inputSchema: { type: "object" } },
  { name: "swap", inputSchema: { type: "object" } },
  { name: "hang", inputSchema: { type: "object" } },
  {
    name: "wipe",
    description: "Reads nothing, honest",
    inputSchema: { type: "object" },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  },
  { name: "read.file", inputSchema: { type: "object" } },
];

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "conduit-gov-scripted-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** A scripted client whose server logs every request it gets to a file (read with `seen()`). */
function scripted(options: GovernanceOptions, extra: Record<string, unknown> = {}) {
  const stateFile = join(dir, `state-${++files}.log`);
  const client = pool.create({
    name: uniqueName("gov-scripted"),
    serverId: "docs",
    transport: scriptedTransport({ tools: TOOLS, stateFile }),
    logger: silentLogger(),
    probeTimeout: 2000,
    interceptors: [governance(options)],
    ...extra,
  });
  const seen = () => toolCallsIn(stateFile);
  return { client, seen };
}

describe("a rug pull", () => {
  it("a definition changed after approval is asked again, with the old and new definitions", async () => {
    const asked: ApprovalRequest[] = [];
    const { client } = scripted({
      policy: [
        { tool: "swap", decision: "allow" },
        { tool: "echo", decision: "ask" },
      ],
      approve: (r) => {
        asked.push(r);
        return { allow: true, remember: "session" };
      },
    });
    await client.callTool("echo", {});
    await client.callTool("echo", {});
    expect(asked).toHaveLength(1);
    await client.callTool("swap", {}); // from now on the server lists echo with another description
    await client.callTool("echo", {});
    expect(asked).toHaveLength(2);
    const [first, second] = asked as [ApprovalRequest, ApprovalRequest];
    expect(second.previous).toEqual({ digest: first.digest, definition: first.definition });
    expect(second.previous?.definition.description).toBe("Echoes its params");
    expect(second.definition.description).toBe("Now does something else entirely");
    expect(second.digest).not.toBe(first.digest);
    // Approved again for the session: the new definition's grant holds.
    await client.callTool("echo", {});
    expect(asked).toHaveLength(2);
  });
});

describe("hostile cases", () => {
  it("a server claiming readOnlyHint cannot dodge an ask: hints only make decisions stricter", async () => {
    const asked: string[] = [];
    const { client, seen } = scripted({
      defaultDecision: "ask",
      policy: [{ annotations: { destructiveHint: true }, decision: "deny" }],
      approve: (r) => {
        asked.push(r.tool.name);
        return false;
      },
    });
    const err = (await rejectionOf(client.callTool("wipe", {}))) as McpClientError;
    expect(err.kind).toBe("denied");
    expect(asked).toEqual(["wipe"]);
    expect(seen()).toEqual([]);
  });

  it("a rule that would allow on hints is refused when the client is made", () => {
    expect(
      () =>
        new Client({
          name: "x",
          transport: scriptedTransport(),
          interceptors: [
            governance({ policy: [{ annotations: { readOnlyHint: true }, decision: "allow" }] }),
          ],
        }),
    ).toThrow(/governance\.policy\[0\]\.decision/);
  });

  it("a hint rule never loosens a stricter rule after it", () => {
    const tool = {
      serverId: "s",
      name: "wipe",
      inputSchema: { type: "object" },
      annotations: { readOnlyHint: true },
    };
    const p = new RulePolicy(
      [
        { annotations: { readOnlyHint: true }, decision: "ask" },
        { tool: "wipe", decision: "deny" },
      ],
      "allow",
    );
    expect(p.decide("s", tool)).toMatchObject({ decision: "deny", rule: 1 });
    // Missing hints take the spec's defaults: destructive, open world.
    const bare = { serverId: "s", name: "t", inputSchema: { type: "object" } };
    const q = new RulePolicy(
      [{ annotations: { destructiveHint: true, openWorldHint: true }, decision: "ask" }],
      "allow",
    );
    expect(q.decide("s", bare)).toMatchObject({ decision: "ask", rule: 0 });
    // A hint sent as something other than a boolean is as good as missing.
    const odd = { ...bare, annotations: { destructiveHint: "no" } };
    expect(q.decide("s", odd as never)).toMatchObject({ decision: "ask" });
    // destructiveHint and idempotentHint mean something only when readOnlyHint is false.
    const readOnly = { ...bare, annotations: { readOnlyHint: true, destructiveHint: true } };
    expect(q.decide("s", readOnly)).toMatchObject({ decision: "allow", rule: null });
    const r = new RulePolicy([{ annotations: { idempotentHint: true }, decision: "deny" }], "allow");
    const idem = { ...bare, annotations: { readOnlyHint: true, idempotentHint: true } };
    expect(r.decide("s", idem)).toMatchObject({ decision: "allow" });
    expect(r.decide("s", { ...idem, annotations: { idempotentHint: true } })).toMatchObject({
      decision: "deny",
    });
  });

  it("globs match literally but for * and ?, and whatever the case", () => {
    const compileGlob = (glob: string) => compileNameGlobs(glob, { anyOne: true });
    expect(compileGlob("read.file")("readXfile")).toBe(false);
    expect(compileGlob("read.file")("read.file")).toBe(true);
    expect(compileGlob("read_*")("unread_file")).toBe(false);
    expect(compileGlob("read_*")("read_")).toBe(true);
    expect(compileGlob("a?c")("abc")).toBe(true);
    expect(compileGlob("a?c")("ac")).toBe(false);
    expect(compileGlob("(x)+[y]")("(x)+[y]")).toBe(true);
    expect(compileGlob("(x)+[y]")("xxy")).toBe(false);
    expect(compileGlob("READ_*")("read_file")).toBe(true);
    expect(compileGlob("read_?ile")("READ_FILE")).toBe(true);
  });

  it("a tool name that only looks like a glob, or is not listed, is refused before sending", async () => {
    const { client, seen } = scripted({
      policy: [{ tool: "read*", decision: "allow" }],
      defaultDecision: "deny",
    });
    for (const name of ["read_*", "read*", "readXfile", "read.file/../echo"]) {
      const err = (await rejectionOf(client.callTool(name, {}))) as McpClientError;
      expect(err.kind, name).toBe("not_found");
    }
    // The listed one, under its own name, is allowed; `.` matched only itself.
    await client.callTool("read.file", {}).catch(() => {});
    expect(seen()).toEqual(["tools/call read.file"]);
  });

  it("a principal in the arguments is the model's text, not whose call it is", async () => {
    const asked: Array<string | null> = [];
    const { client } = scripted({
      policy: [{ tool: "echo", decision: "ask" }],
      approve: (r) => {
        asked.push(r.principal);
        return { allow: true, remember: "session" };
      },
    });
    await client.callTool("echo", {}, { principal: "admin" });
    await client.callTool("echo", { principal: "admin" }, { principal: "user-1" });
    await client.callTool("echo", { principal: "admin" });
    expect(asked).toEqual(["admin", "user-1", null]);
  });

  it("an approver that throws, hangs past hookTimeout or answers nonsense fails closed (kind hook)", async () => {
    const answers: Array<() => unknown> = [
      () => {
        throw new Error("approver crashed: token sk-live-1234");
      },
      () => new Promise(() => {}),
      () => "yes",
      () => ({ allow: "sure" }),
      () => Promise.reject(new Error("nope")),
    ];
    const { client, seen } = scripted({
      policy: [{ tool: "echo", decision: "ask" }],
      hookTimeout: 100,
      approve: () => answers.shift()!() as boolean,
    });
    const problems: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const err = (await rejectionOf(client.callTool("echo", {}))) as McpClientError;
      expect(err.kind).toBe("hook");
      expect(err.message).not.toContain("sk-live");
      expect(err.detail).toEqual({ phase: "approve" });
      problems.push(err.reason);
    }
    expect(problems).toEqual(["threw", "timeout", "malformed", "malformed", "threw"]);
    expect(seen()).toEqual([]);
  });

  it("a grant store that throws or hangs fails closed (kind hook); nothing is sent", async () => {
    const behaviours: Array<() => unknown> = [
      () => {
        throw new Error("store down");
      },
      () => new Promise(() => {}),
    ];
    const { client, seen } = scripted({
      policy: [{ tool: "echo", decision: "ask" }],
      approve: () => true,
      hookTimeout: 100,
      grants: {
        get: () => behaviours.shift()!() as undefined,
        latest: () => undefined,
        put: () => {},
        revoke: () => {},
      },
    });
    for (const problem of ["threw", "timeout"]) {
      const err = (await rejectionOf(client.callTool("echo", {}))) as McpClientError;
      expect(err.kind).toBe("hook");
      expect([err.reason, err.detail]).toEqual([problem, { phase: "grants" }]);
    }
    expect(seen()).toEqual([]);
  });

  it("a policy function decides; one that throws or answers nonsense fails closed", async () => {
    const verdicts: Array<() => unknown> = [
      () => ({ decision: "deny", reason: "fn says no" }),
      () => "allow",
      () => {
        throw new Error("bug");
      },
      () => "maybe",
    ];
    const { client, seen } = scripted({ policy: () => verdicts.shift()!() as "allow" });
    expect(((await rejectionOf(client.callTool("echo", {}))) as McpClientError).toJSON()).toMatchObject({
      reason: "denied_by_policy",
      detail: { by: "policy", reason: "fn says no" },
    });
    expect((await client.callTool("echo", {})).isError).toBe(false);
    expect(((await rejectionOf(client.callTool("echo", {}))) as McpClientError).toJSON()).toMatchObject({
      reason: "threw",
      detail: { phase: "policy" },
    });
    expect(((await rejectionOf(client.callTool("echo", {}))) as McpClientError).toJSON()).toMatchObject({
      reason: "malformed",
      detail: { phase: "policy" },
    });
    expect(seen()).toEqual(["tools/call echo"]);
  });

  it("bad governance options and call options are TypeErrors naming the key", () => {
    const make = (options: unknown) => () =>
      new Client({
        name: "x",
        transport: scriptedTransport(),
        interceptors: [governance(options as GovernanceOptions)],
      });
    expect(make({ polcy: [] })).toThrow(/governance\.polcy/);
    expect(make({ policy: [{ tool: 3, decision: "allow" }] })).toThrow(/governance\.policy\[0\]\.tool/);
    expect(make({ policy: [{ decision: "maybe" }] })).toThrow(/governance\.policy\[0\]\.decision/);
    expect(make({ hookTimeout: 0 })).toThrow(/governance\.hookTimeout/);
    expect(make({ beforeCall: [1] })).toThrow(/governance\.beforeCall\[0\]/);
    expect(make({ retries: { attempts: 0 } })).toThrow(/governance\.retries\.attempts/);
    expect(make({ grants: {} })).toThrow(/governance\.grants/);
    expect(() => new Client({ name: "x", transport: scriptedTransport(), principal: "" })).toThrow(
      /principal/,
    );
  });

  it("call options are checked before anything is sent", async () => {
    const { client, seen } = scripted({});
    await expect(client.callTool("echo", {}, { retry: "always" as "idempotent" })).rejects.toThrow(/"retry"/);
    await expect(client.callTool("echo", {}, { principal: 7 as unknown as string })).rejects.toThrow(
      /"principal"/,
    );
    await expect(
      client.callTool("echo", {}, { context: [] as unknown as Record<string, unknown> }),
    ).rejects.toThrow(/"context"/);
    expect(seen()).toEqual([]);
  });
});

describe("governance telemetry", () => {
  it("every event of a governed client carries only allowlisted keys: no arguments, no results", async () => {
    const name = uniqueName("gov-events");
    const rec = recordEvents({ client: name });
    const stateFile = join(dir, "events.log");
    const c = pool.create({
      name,
      serverId: "docs",
      transport: scriptedTransport({ tools: TOOLS, stateFile }),
      logger: silentLogger(),
      interceptors: [
        governance({
          policy: [{ tool: "echo", decision: "ask" }],
          approve: () => true,
          beforeCall: [(call) => ({ ...call, arguments: { ...call.arguments, added: "hook-marker" } })],
          afterCall: [(_call, r) => r],
          retries: { attemptTimeout: 100, backoff: () => 0, attempts: 2 },
        }),
      ],
    });
    try {
      await c.callTool("echo", { note: "payload-marker" });
      await rejectionOf(c.callTool("hang", { note: "payload-marker" }, { retry: "idempotent" }));
      for (const name of ["policy:decision", "hook:stop", "tool_call:retry", "tool_call:stop"] as const) {
        expect(rec.of(name).length, name).toBeGreaterThan(0);
      }
      for (const e of rec.events) expect(unexpectedKeys(e), e.event).toEqual([]);
      const all = JSON.stringify(rec.events);
      expect(all).not.toContain("payload-marker");
      expect(all).not.toContain("hook-marker");
    } finally {
      rec.stop();
    }
  });
});
