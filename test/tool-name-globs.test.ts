// Deny rules cannot be dodged by spelling: the client's and the hub's allow/deny filters and the
// governance policy's rules all match tool names as one function folds them (NFKC, invisible
// characters removed, case folded). The scripted server logs every call it receives, so "nothing
// was sent" is the server's word.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { compileToolFilter } from "../src/client/tool-filter.js";
import { governance } from "../src/governance/index.js";
import { RulePolicy } from "../src/governance/policy.js";
import { Hub, type McpClientError } from "../src/index.js";
import { compileNameGlobs, foldName } from "../src/util/name-glob.js";
import { ClientPool, rejectionOf, silentLogger, uniqueName } from "./support/index.js";
import { scriptedTransport, toolCallsIn } from "./support/scripted.js";

/** `delete_files` as a hostile server might spell it to pass a `delete_*` deny rule. */
const SPELLINGS = {
  mixedCase: "Delete_Files",
  upper: "DELETE_files",
  zeroWidth: "delete\u200b_files",
  fullwidth: "\uff44\uff45\uff4c\uff45\uff54\uff45_files",
  tagged: "delete_\u{E0066}files\u{E0041}",
  rightToLeftOverride: "\u202edelete_files",
  softHyphen: "dele\u00adte_files",
};

/** The names a server can list (the client admits only `[A-Za-z0-9_.-]` at intake). */
const LISTED = ["Delete_Files", "DELETE_files", "read_file"];
const TOOLS = LISTED.map((name) => ({ name, inputSchema: { type: "object" } }));

const pool = new ClientPool();
afterEach(() => pool.closeAll());

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "conduit-name-globs-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
/** The scripted server listing `TOOLS`, and what it received as tools/call. */
function server() {
  const stateFile = join(dir, `state-${++files}.log`);
  const calls = () => toolCallsIn(stateFile);
  return { transport: scriptedTransport({ tools: TOOLS, stateFile }), calls };
}

describe("one folding of names", () => {
  it("every spelling of delete_files folds to it, and matches delete_* and ?-globs", () => {
    const deny = compileNameGlobs(["delete_*"]);
    const exact = compileNameGlobs(["Delete_Files"]);
    const anyOne = compileNameGlobs(["delete_?iles"], { anyOne: true });
    for (const [how, name] of Object.entries(SPELLINGS)) {
      expect(foldName(name), how).toBe("delete_files");
      expect(deny(name), how).toBe(true);
      expect(exact(name), how).toBe(true);
      expect(anyOne(name), how).toBe(true);
    }
    // The pattern is folded the same way as the name.
    expect(compileNameGlobs(["\uff24ELETE_*"])("delete_files")).toBe(true);
    expect(compileNameGlobs(["del\u200bete_*"])("delete_files")).toBe(true);
  });

  it("only the ASCII * and ? are wildcards: folded text never becomes one", () => {
    // U+FF0A (fullwidth asterisk) folds to "*", a literal one.
    expect(compileNameGlobs(["delete\uff0a"])("delete_files")).toBe(false);
    expect(compileNameGlobs(["delete\uff0a"])("delete*")).toBe(true);
    expect(compileNameGlobs(["delete\uff1f"], { anyOne: true })("deletex")).toBe(false);
    // Without anyOne (the client's and the hub's filters), ? is literal.
    expect(compileNameGlobs(["a?c"])("abc")).toBe(false);
    expect(compileNameGlobs(["a?c"])("A?C")).toBe(true);
    // Anchored, and what is not folded away still counts.
    expect(compileNameGlobs(["delete_*"])("undelete_files")).toBe(false);
    expect(compileNameGlobs(["delete_files"])("delete-files")).toBe(false);
  });

  it("the client's and the hub's filters and the policy's rules all catch every spelling", () => {
    const filter = compileToolFilter({ deny: ["delete_*"] });
    const allow = compileToolFilter({ allow: ["read_*"] });
    const policy = new RulePolicy([{ tool: "delete_*", decision: "deny" }], "allow");
    for (const [how, name] of Object.entries(SPELLINGS)) {
      expect(filter.test([name], {}), how).toBe(false);
      expect(allow.test([name], {}), how).toBe(false);
      const tool = { serverId: "s", name, inputSchema: { type: "object" } };
      expect(policy.decide("s", tool).decision, how).toBe("deny");
    }
    expect(allow.test(["READ_File"], {})).toBe(true);
  });
});

describe("against a server that lists Delete_Files and DELETE_files", () => {
  it("a governed client's deny rule refuses every spelling; the server receives nothing", async () => {
    const s = server();
    const c = pool.create({
      name: uniqueName("globs-gov"),
      transport: s.transport,
      logger: silentLogger(),
      interceptors: [governance({ policy: [{ tool: "delete_*", decision: "deny", reason: "no deleting" }] })],
    });
    for (const name of ["Delete_Files", "DELETE_files"]) {
      const err = (await rejectionOf(c.callTool(name, {}))) as McpClientError;
      expect(err.kind, name).toBe("denied");
    }
    for (const name of Object.values(SPELLINGS)) {
      const err = (await rejectionOf(c.callTool(name, {}))) as McpClientError;
      expect(["denied", "not_found"], name).toContain(err.kind);
    }
    expect(s.calls()).toEqual([]);
    // The rule is not a blanket refusal: another tool is sent.
    await c.callTool("read_file", {}).catch(() => {});
    expect(s.calls()).toEqual(["tools/call read_file"]);
  });

  it("a client's listing filter leaves every spelling out", async () => {
    const s = server();
    const c = pool.create({ name: uniqueName("globs-list"), transport: s.transport, logger: silentLogger() });
    const denied = await c.listAllTools({ deny: ["delete_*"] });
    expect(denied.map((t) => t.name)).toEqual(["read_file"]);
    const allowed = await c.listAllTools({ allow: ["DELETE_FILES"] });
    expect(allowed.map((t) => t.name)).toEqual(["Delete_Files", "DELETE_files"]);
  });

  it("a hub's deny filter and its governance refuse every spelling; the server receives nothing", async () => {
    const filtered = server();
    const governed = server();
    const hub = new Hub({
      logger: silentLogger(),
      clientOptions: { logger: silentLogger() },
      servers: {
        filtered: { transport: filtered.transport, deny: ["delete_*"] },
        governed: {
          transport: governed.transport,
          governance: { policy: [{ tool: "delete_*", decision: "deny" }] },
        },
      },
    });
    try {
      await hub.ready({ timeout: 20_000 });
      const names = (await hub.listTools()).map((t) => t.name);
      // A tool the policy always denies is hidden from the list too (governance visibility),
      // in every spelling; calling it by name is still refused by the policy.
      expect(names.filter((n) => n.startsWith("mcp__filtered__"))).toEqual(["mcp__filtered__read_file"]);
      expect(names.filter((n) => n.startsWith("mcp__governed__"))).toEqual(["mcp__governed__read_file"]);
      for (const name of ["Delete_Files", "DELETE_files"]) {
        const hidden = (await rejectionOf(hub.callTool(`mcp__filtered__${name}`, {}))) as McpClientError;
        expect(hidden.kind, name).toBe("not_found");
        const denied = (await rejectionOf(hub.callTool(`mcp__governed__${name}`, {}))) as McpClientError;
        expect(denied.kind, name).toBe("denied");
      }
      expect(filtered.calls()).toEqual([]);
      expect(governed.calls()).toEqual([]);
    } finally {
      await hub.close();
    }
  });
});
