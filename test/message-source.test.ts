import { isDeepStrictEqual } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { StdioTransport, type Tool, type Transport } from "../src/index.js";
import { type MessageSource, sameResult } from "../src/shared/message-source.js";
import { randomValue } from "./support/random-json.js";
import { closeAll, scriptedClient, scriptedTransport } from "./support/scripted.js";

afterEach(closeAll);

/** A source as a transport notes it: the text and the id its parse gives. */
function src(text: string): MessageSource {
  return { text, id: (JSON.parse(text) as { id: unknown }).id };
}

/** Whether two texts' results are the same JSON with the same key order (what reusing them assumes). */
function sameParsedResult(x: string, y: string): boolean {
  const a = (JSON.parse(x) as { result: unknown }).result;
  const b = (JSON.parse(y) as { result: unknown }).result;
  return JSON.stringify(a) === JSON.stringify(b) && isDeepStrictEqual(a, b);
}

/** sameResult of two texts, each noted as a transport notes it. */
const samePage = (x: string, y: string): boolean => sameResult(src(x), src(y));

const TOOLS = '{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"n":{"maxLength":5}}}}]}';

describe("sameResult", () => {
  it("the same page under another id, first or last in the message, is the same result", () => {
    expect(
      samePage(`{"jsonrpc":"2.0","id":7,"result":${TOOLS}}`, `{"jsonrpc":"2.0","id":8,"result":${TOOLS}}`),
    ).toBe(true);
    expect(
      samePage(`{"jsonrpc":"2.0","id":9,"result":${TOOLS}}`, `{"jsonrpc":"2.0","id":10,"result":${TOOLS}}`),
    ).toBe(true);
    expect(
      samePage(`{"result":${TOOLS},"jsonrpc":"2.0","id":99}`, `{"result":${TOOLS},"jsonrpc":"2.0","id":100}`),
    ).toBe(true);
    expect(
      samePage(
        `{"jsonrpc":"2.0","id":"r-1","result":${TOOLS}}`,
        `{"jsonrpc":"2.0","id":"r-2","result":${TOOLS}}`,
      ),
    ).toBe(true);
    const same = `{"jsonrpc":"2.0","id":3,"result":${TOOLS}}`;
    expect(sameResult(src(same), src(same))).toBe(true);
  });

  it("a number in the result that changed is a change, with or without a new id", () => {
    const other = TOOLS.replace('"maxLength":5', '"maxLength":6');
    expect(
      samePage(`{"jsonrpc":"2.0","id":7,"result":${TOOLS}}`, `{"jsonrpc":"2.0","id":7,"result":${other}}`),
    ).toBe(false);
    expect(
      samePage(`{"jsonrpc":"2.0","id":7,"result":${TOOLS}}`, `{"jsonrpc":"2.0","id":8,"result":${other}}`),
    ).toBe(false);
    expect(
      samePage(`{"result":${TOOLS},"jsonrpc":"2.0","id":7}`, `{"result":${other},"jsonrpc":"2.0","id":7}`),
    ).toBe(false);
    // A digit in a key or a string, near either end.
    expect(
      samePage(
        '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"a1":0}}',
        '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"a2":0}}',
      ),
    ).toBe(false);
    expect(
      samePage(
        '{"id":1,"result":{"tools":["x1"]},"jsonrpc":"2.0"}',
        '{"id":1,"result":{"tools":["x2"]},"jsonrpc":"2.0"}',
      ),
    ).toBe(false);
  });

  it("nested id keys are not the message's id: the same ids with a nested one changed is a change", () => {
    const page = (top: number, nested: number) =>
      `{"jsonrpc":"2.0","id":${top},"result":{"id":${nested},"tools":[{"name":"a","id":${nested}}]}}`;
    expect(sameResult(src(page(5, 5)), src(page(5, 6)))).toBe(false);
    // A nested id that follows the message's id changes with it: two places differ.
    expect(sameResult(src(page(5, 5)), src(page(6, 6)))).toBe(false);
    // Only the message's id changed: the same result.
    expect(sameResult(src(page(5, 5)), src(page(6, 5)))).toBe(true);
    // The nested id first in the text, the message's id last.
    const last = (top: number, nested: number) =>
      `{"result":{"id":${nested},"tools":[]},"jsonrpc":"2.0","id":${top}}`;
    expect(sameResult(src(last(1, 1)), src(last(1, 2)))).toBe(false);
    expect(sameResult(src(last(1, 1)), src(last(2, 1)))).toBe(true);
  });

  it("what it does not look for is not the same: an id in the middle, or ids that are equal", () => {
    const long = `"description":"${"x".repeat(400)}"`;
    const middle = (id: number) =>
      `{"jsonrpc":"2.0","result":{"tools":[],${long}},"id":${id},"extra":{${long}}}`;
    expect(sameResult(src(middle(1)), src(middle(2)))).toBe(false);
    // The same id and one digit apart: whatever the digit is, it is not the id.
    expect(
      sameResult(
        { text: '{"id":1,"result":{"tools":[1]}}', id: 1 },
        { text: '{"id":1,"result":{"tools":[2]}}', id: 1 },
      ),
    ).toBe(false);
    // An id that is no id (a transport that noted something else) is never taken as one.
    expect(
      sameResult({ text: '{"id":1,"result":{}}', id: null }, { text: '{"id":2,"result":{}}', id: 2 }),
    ).toBe(false);
    // Not digits: a sign, a decimal point, an exponent.
    expect(samePage('{"id":1,"result":{"tools":[1]}}', '{"id":2,"result":{"tools":[-1]}}')).toBe(false);
  });

  it("a duplicated id key one digit from another key: the ids differ and the results are still equal", () => {
    const x = `{"jsonrpc":"2.0","id":1,"result":${TOOLS},"id7":2}`;
    const y = `{"jsonrpc":"2.0","id":1,"result":${TOOLS},"id":2}`;
    expect(sameResult(src(x), src(y))).toBe(true);
    expect(sameParsedResult(x, y)).toBe(true);
  });

  it("whenever it says the same, the results parse the same (random pages, random digit edits)", () => {
    let said = 0;
    let edited = 0;
    for (let seed = 1; seed <= 3000; seed++) {
      const r = { tools: [randomValue(seed), { name: "t", n: seed % 97, k9: [seed % 7, 1.5e3] }] };
      const layout = seed % 3;
      const text = (id: number) =>
        layout === 0
          ? JSON.stringify({ jsonrpc: "2.0", id, result: r })
          : layout === 1
            ? JSON.stringify({ result: r, jsonrpc: "2.0", id })
            : JSON.stringify({ jsonrpc: "2.0", id, result: r }, null, 2);
      const x = text(seed);
      // Some pages keep the id: then one digit edited anywhere is never the same result.
      let y = text(seed % 5 === 1 ? seed : seed + 1 + (seed % 1000));
      // Most pages get one digit somewhere replaced, inserted or removed as well.
      if (seed % 4 !== 0) {
        const digits = [...y.matchAll(/[0-9]/g)].map((m) => m.index);
        const at = digits[(seed * 7919) % digits.length]!;
        const op = seed % 3;
        const d = String((seed * 31) % 10);
        y =
          op === 0
            ? y.slice(0, at) + d + y.slice(at + 1)
            : op === 1
              ? y.slice(0, at) + d + y.slice(at)
              : y.slice(0, at) + y.slice(at + 1);
        edited++;
      }
      let parsed: { id: unknown; result?: unknown };
      try {
        parsed = JSON.parse(y);
      } catch {
        continue;
      }
      if (typeof parsed !== "object" || parsed === null || parsed.result === undefined) continue;
      const same = sameResult(src(x), { text: y, id: parsed.id });
      if (same) {
        said++;
        expect(sameParsedResult(x, y), `seed ${seed}`).toBe(true);
      }
    }
    expect(said).toBeGreaterThan(700);
    expect(edited).toBeGreaterThan(2000);
  });
});

/**
 * A transport of one's own: it carries another transport's messages and hands its sink the text
 * each was parsed from, or not (`passSource`). Nothing else connects the text to the listing.
 */
function relay(passSource: boolean): Transport {
  const inner = new StdioTransport(scriptedTransport({ pages: "two" }));
  return {
    kind: inner.kind,
    start: (sink) =>
      inner.start({
        ...sink,
        message: (m, related, source) => sink.message(m, related, passSource ? source : undefined),
      }),
    send: (m) => inner.send(m),
    close: () => inner.close(),
  };
}

describe("the source text through a custom transport's sink", () => {
  const sameObjects = (a: Tool[], b: Tool[]) => a.length > 0 && a.every((t, i) => t === b[i]);

  it("a transport that passes the text gets the listing reuse: the last listing's tools again", async () => {
    const c = scriptedClient({}, { transport: relay(true) });
    const first = await c.listAllTools();
    const second = await c.listAllTools({ refresh: true });
    expect(second).toEqual(first);
    expect(sameObjects(second, first)).toBe(true);
  });

  it("the same with OpenTelemetry on (its request path carries the text too)", async () => {
    const c = scriptedClient({}, { transport: relay(true), telemetry: { openTelemetry: true } });
    const first = await c.listAllTools();
    const second = await c.listAllTools({ refresh: true });
    expect(sameObjects(second, first)).toBe(true);
  });

  it("one that does not gets the full intake: equal tools, made again", async () => {
    const c = scriptedClient({}, { transport: relay(false) });
    const first = await c.listAllTools();
    const second = await c.listAllTools({ refresh: true });
    expect(second).toEqual(first);
    expect(second.some((t, i) => t === first[i])).toBe(false);
  });
});
