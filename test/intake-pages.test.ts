import { describe, expect, it } from "vitest";
import { admitToolPages, admitTools } from "../src/client/intake.js";

// admitToolPages with the earlier intake of the pages that are the same gives exactly what a full
// intake of the whole listing gives: the same tools and rejections, in the same order.

const deep = (n: number): unknown => (n === 0 ? {} : { a: deep(n - 1) });

/** The items a page can hold: good tools, repeated names, bad names, bad shapes, deep schemas. */
function item(k: number): unknown {
  switch (k % 7) {
    case 0:
      return { name: `t${k % 11}`, inputSchema: { type: "object" } };
    case 1:
      return { name: `t${k % 5}`, description: `d${k}`, inputSchema: { type: "object", required: ["x"] } };
    case 2:
      return { name: "bad name", inputSchema: { type: "object" } };
    case 3:
      return { name: `s${k % 3}`, inputSchema: { type: "object", properties: [] } };
    case 4:
      return { name: `deep${k % 2}`, inputSchema: { type: "object", properties: { x: deep(10) } } };
    case 5:
      return { name: `h${k % 4}`, inputSchema: { type: "object", "x-header": k % 2 === 0 } };
    default:
      return k % 2 === 0 ? "not a tool" : { name: `u${k}`, inputSchema: { type: "object" }, _meta: { k } };
  }
}

const rules = (schema: unknown) => ((schema as { "x-header"?: boolean })["x-header"] ? "bad header" : null);

describe("admitToolPages", () => {
  it("with the earlier intake of unchanged pages, gives what a full intake gives", () => {
    for (let seed = 1; seed <= 300; seed++) {
      const pages = Array.from({ length: 1 + (seed % 4) }, (_, p) =>
        Array.from({ length: (seed + p) % 6 }, (_, i) => item(seed * 13 + p * 7 + i)),
      );
      const earlier = admitToolPages(pages, [], "srv", rules, 8);
      expect({ tools: earlier.tools, rejected: earlier.rejected }).toEqual(
        admitTools(pages.flat(), "srv", rules, 8),
      );
      expect(earlier.made).toEqual(earlier.tools);
      // One page changes (or none): items added, removed or replaced, which changes repeats too.
      const changed = seed % (pages.length + 1);
      const next = pages.map((page, p) =>
        p === changed ? [...page.slice(1), item(seed * 3), item(seed * 5 + 1)] : page,
      );
      const known = next.map((_, p) => (p === changed ? undefined : earlier.pages[p]));
      const now = admitToolPages(next, known, "srv", rules, 8);
      const full = admitTools(next.flat(), "srv", rules, 8);
      expect(now.tools, `seed ${seed}`).toEqual(full.tools);
      expect(now.rejected, `seed ${seed}`).toEqual(full.rejected);
      // A tool of an unchanged page that was admitted before is the same object; the rest are made now.
      const before = new Set(earlier.tools);
      for (const t of now.tools) expect(before.has(t) || now.made.includes(t)).toBe(true);
      expect(now.made.every((t) => !before.has(t))).toBe(true);
    }
  });

  it("a page's own verdicts come from its earlier intake; a repeat is counted again", () => {
    const a = { name: "a", inputSchema: { type: "object" } };
    const first = admitToolPages([[a], [{ name: "b", inputSchema: { type: "object" } }]], [], "srv");
    const second = admitToolPages(
      [[a], [{ name: "a", inputSchema: { type: "object" } }]],
      [first.pages[0], undefined],
      "srv",
    );
    expect(second.tools).toEqual([]);
    expect(second.rejected.map((r) => r.reason)).toEqual(["duplicate_name", "duplicate_name"]);
    const third = admitToolPages([[a], []], [second.pages[0], undefined], "srv");
    expect(third.tools).toEqual([{ ...a, serverId: "srv" }]);
    expect(third.made).toEqual(third.tools);
  });
});
