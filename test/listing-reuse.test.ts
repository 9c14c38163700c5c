import { afterEach, describe, expect, it } from "vitest";
import type { Tool } from "../src/index.js";
import { json, result, type ScriptedHttpServer, sse, startScripted } from "./support/http-scripted.js";
import { onRpc, scriptedSuite } from "./support/http-suite.js";
import { closeAll, recordEvents, recordingLogger, scriptedClient } from "./support/scripted.js";

afterEach(closeAll);
let server: ScriptedHttpServer | undefined;
const { clients } = scriptedSuite("listing-reuse", () => server);

// A listing whose pages are the same text as the last listing's (the JSON-RPC id aside) keeps the
// last listing's intake; anything else gets the full intake and the compare.

const tool = (name: string, extra = "") => `{"name":"${name}","inputSchema":{"type":"object"${extra}}}`;

describe.each(["modern", "legacy"] as const)("a tool listing that did not change (%s)", (era) => {
  const options = era === "legacy" ? { protocol: "legacy" as const } : {};

  it("gives the same tools in a new array, announces no change, and a changed page gets the full intake", async () => {
    const rec = recordEvents("tool:definition_changed");
    const c = scriptedClient({ pages: "two" }, options);
    const first = await c.listAllTools();
    const second = await c.listAllTools({ refresh: true });
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    // The last listing's objects: nothing was admitted, copied or compared again.
    for (const [i, t] of second.entries()) expect(t).toBe(first[i]);
    // The caller's array is the caller's: reordering it changes no later listing.
    second.reverse();
    const third = await c.listAllTools({ refresh: true });
    expect(third.map((t) => t.name)).toEqual(first.map((t) => t.name));
    expect(rec.of("tool:definition_changed")).toEqual([]);

    await c.callTool("swap", {});
    const fourth = await c.listAllTools({ refresh: true });
    rec.stop();
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["echo"]);
    const echo = fourth.find((t) => t.name === "echo") as Tool;
    expect(echo.description).toBe("Now does something else entirely");
    expect(echo).not.toBe(first.find((t) => t.name === "echo"));
    // The page that did not change keeps its tools.
    expect(fourth.find((t) => t.name === "late")).toBe(first.find((t) => t.name === "late"));
  });

  it("reports the tools intake leaves out on every listing, and still refuses calls to them", async () => {
    const rec = recordEvents("tool:rejected");
    const logger = recordingLogger();
    const c = scriptedClient(
      {
        tools: [
          { name: "echo", inputSchema: { type: "object" } },
          { name: "bad name", inputSchema: { type: "object" } },
          { name: "twice", inputSchema: { type: "object" } },
          { name: "twice", inputSchema: { type: "object" } },
        ],
      },
      { ...options, logger },
    );
    const first = await c.listAllTools();
    const second = await c.listAllTools({ refresh: true });
    rec.stop();
    expect(second).toEqual(first);
    expect(second.map((t) => t.name)).toEqual(["echo"]);
    const reasons = rec.of("tool:rejected").map((e) => [e.toolName, e.reason]);
    const once = [
      ["bad name", "invalid_name"],
      ["twice", "duplicate_name"],
      ["twice", "duplicate_name"],
    ];
    expect(reasons).toEqual([...once, ...once]);
    expect(logger.lines.filter((l) => l.includes("was left out"))).toHaveLength(6);
    await expect(c.callTool("twice", {})).rejects.toMatchObject({
      kind: "not_found",
      reason: "tool_rejected",
    });
  });
});

describe("a tool listing page's text against the last one's", () => {
  /** A client whose tools/list pages are `lines` from its second listing on ("$ID": the request id). */
  async function rawListing(lines: string[]) {
    const c = scriptedClient();
    await c.callTool("listraw", { lines });
    return c;
  }

  it("the id last in the message: the same page, whatever the id", async () => {
    const rec = recordEvents("tool:definition_changed");
    const c = await rawListing([
      `{"result":{"tools":[${tool("a")}],"nextCursor":"1"},"jsonrpc":"2.0","id":"$ID"}`,
      `{"result":{"tools":[${tool("b")}]},"jsonrpc":"2.0","id":"$ID"}`,
    ]);
    const first = await c.listAllTools({ refresh: true });
    const second = await c.listAllTools({ refresh: true });
    rec.stop();
    expect(first.map((t) => t.name)).toEqual(["a", "b"]);
    for (const [i, t] of second.entries()) expect(t).toBe(first[i]);
    expect(rec.of("tool:definition_changed")).toEqual([]);
  });

  it("a changed page is admitted again, the others keep theirs; repeated names are counted over every page", async () => {
    const rec = recordEvents("tool:definition_changed", "tool:rejected");
    const page1 = `{"jsonrpc":"2.0","id":"$ID","result":{"tools":[${tool("b", ',"title":"B"')},${tool("c")}]}}`;
    const page0 = (tools: string) =>
      `{"jsonrpc":"2.0","id":"$ID","result":{"tools":[${tools}],"nextCursor":"1"}}`;
    const c = await rawListing([page0(tool("a")), page1]);
    const first = await c.listAllTools({ refresh: true });
    expect(first.map((t) => t.name)).toEqual(["a", "b", "c"]);

    // Page 0 now also lists a "b": both b are left out; c is kept from the last intake.
    await c.callTool("listraw", { lines: [page0(`${tool("a")},${tool("b")}`), page1] });
    const second = await c.listAllTools({ refresh: true });
    expect(second.map((t) => t.name)).toEqual(["a", "c"]);
    expect(second[0]).toEqual(first[0]);
    expect(second[1]).toBe(first[2]);
    expect(rec.of("tool:rejected").map((e) => [e.toolName, e.reason])).toEqual([
      ["b", "duplicate_name"],
      ["b", "duplicate_name"],
    ]);
    await expect(c.callTool("b", {})).rejects.toMatchObject({ kind: "not_found", reason: "tool_rejected" });

    // Back as it was: page 1's b, unchanged but a duplicate last time, is admitted (and compared).
    await c.callTool("listraw", { lines: [page0(tool("a")), page1] });
    const third = await c.listAllTools({ refresh: true });
    expect(third).toEqual(first);
    expect(third[2]).toBe(first[2]);
    expect(rec.of("tool:definition_changed")).toEqual([]);

    // Page 1's c changes: only c is a change; page 0 keeps its tools.
    await c.callTool("listraw", {
      lines: [page0(tool("a")), page1.replace(tool("c"), tool("c", ',"title":"C"'))],
    });
    const fourth = await c.listAllTools({ refresh: true });
    rec.stop();
    expect(fourth[0]).toBe(third[0]);
    expect(fourth[2]?.inputSchema.title).toBe("C");
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["c"]);
    // The call to b listed again first (a rejected tool's list is refreshed once): two more.
    expect(rec.of("tool:rejected")).toHaveLength(4);
  });

  it("a value inside a tool that follows the request id is a change on every listing", async () => {
    const rec = recordEvents("tool:definition_changed");
    const c = await rawListing([
      `{"jsonrpc":"2.0","id":"$ID","result":{"tools":[${tool("a", ',"properties":{"x":{"default":"$ID"}}')},${tool("b")}]}}`,
    ]);
    const first = await c.listAllTools({ refresh: true });
    const second = await c.listAllTools({ refresh: true });
    const third = await c.listAllTools({ refresh: true });
    rec.stop();
    const defaults = [first, second, third].map(
      (l) => ((l[0] as Tool).inputSchema.properties as { x: { default: number } }).x.default,
    );
    expect(new Set(defaults).size).toBe(3);
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["a", "a"]);
    expect(second[1]).toEqual(first[1]);
  });

  it("nested id keys that follow the request id are changes; an id in the middle still lists right", async () => {
    const rec = recordEvents("tool:definition_changed");
    const nested = await rawListing([
      `{"jsonrpc":"2.0","id":"$ID","result":{"id":"$ID","tools":[{"id":"$ID","name":"a","inputSchema":{"type":"object"}}]}}`,
    ]);
    const n1 = await nested.listAllTools({ refresh: true });
    const n2 = await nested.listAllTools({ refresh: true });
    expect((n1[0] as unknown as { id: number }).id).not.toBe((n2[0] as unknown as { id: number }).id);
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["a"]);

    const long = "x".repeat(600);
    const middle = await rawListing([
      `{"jsonrpc":"2.0","result":{"tools":[${tool("m")}],"pad":"${long}"},"id":"$ID","pad":"${long}"}`,
    ]);
    const m1 = await middle.listAllTools({ refresh: true });
    const m2 = await middle.listAllTools({ refresh: true });
    rec.stop();
    expect(m2).toEqual(m1);
    expect(m1.map((t) => t.name)).toEqual(["m"]);
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["a"]);
  });
});

describe.each(["modern", "legacy"] as const)("over HTTP (%s)", (era) => {
  it("pages in JSON bodies and in event streams are recognised; a changed one is admitted again", async () => {
    let description = "first";
    server = await startScripted({ era });
    server.on(
      onRpc("tools/list", (req, res) => {
        const id = req.body!.id;
        const cursor = (req.body!.params as { cursor?: string } | undefined)?.cursor;
        if (cursor === undefined) {
          json(
            res,
            200,
            result(id, {
              tools: [{ name: "a", description, inputSchema: { type: "object" } }],
              nextCursor: "2",
            }),
          );
        } else {
          sse(res, [
            {
              event: "message",
              data: result(id, { tools: [{ name: "b", inputSchema: { type: "object" } }] }),
            },
          ]);
        }
      }),
    );
    const rec = recordEvents("tool:definition_changed");
    const c = clients.create(server.url);
    const first = await c.listAllTools();
    const second = await c.listAllTools({ refresh: true });
    expect(first.map((t) => t.name)).toEqual(["a", "b"]);
    for (const [i, t] of second.entries()) expect(t).toBe(first[i]);
    description = "second";
    const third = await c.listAllTools({ refresh: true });
    rec.stop();
    expect(third[0]?.description).toBe("second");
    expect(third[1]).toEqual(first[1]);
    expect(rec.of("tool:definition_changed").map((e) => e.toolName)).toEqual(["a"]);
  });
});
