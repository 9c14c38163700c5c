/**
 * How the stdio transport writes: the lines of a burst go out in several writes (the first at
 * once, then growing pieces, the rest at the end of the tick), so these check what must hold
 * whatever the pieces are: every line reaches the server whole, once and in order, across
 * bursts, with large and non-ASCII lines, and what was sent before `close()` is written before
 * stdin ends.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type JsonRpcMessage, StdioTransport, type TransportSink } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "conduit-stdio-writes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A peer that answers each request line with how many lines it had read by then and the length
 * and last character of the message's text; on the end of stdin it writes that count to `file`.
 */
const PEER = `
const file = process.argv[1];
let rest = "", seen = 0;
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  const lines = (rest + chunk).split("\\n");
  rest = lines.pop();
  let out = "";
  for (const line of lines) {
    seen += 1;
    const m = JSON.parse(line);
    const text = m.params.text;
    out += JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { seen, length: text.length, last: text.at(-1) } }) + "\\n";
  }
  process.stdout.write(out);
});
process.stdin.on("end", () => {
  require("node:fs").writeFileSync(file, String(seen) + (rest === "" ? "" : " partial"));
  process.exit(0);
});
`;

interface Answer {
  seen: number;
  length: number;
  last: string;
}

function peer(file: string) {
  const answers = new Map<number, Answer>();
  const waiting = new Map<number, () => void>();
  const sink: TransportSink = {
    message(m) {
      const id = (m as { id: number }).id;
      answers.set(id, (m as unknown as { result: Answer }).result);
      waiting.get(id)?.();
    },
    fail() {},
    closed() {},
  };
  const t = new StdioTransport({ type: "stdio", command: process.execPath, args: ["-e", PEER, file] });
  let nextId = 0;
  const send = (text: string): Promise<Answer> => {
    const id = ++nextId;
    const answered = new Promise<Answer>((resolve) => waiting.set(id, () => resolve(answers.get(id)!)));
    t.send({ jsonrpc: "2.0", id, method: "tools/call", params: { text } } as JsonRpcMessage);
    return answered;
  };
  return { t, sink, send };
}

/** Texts of mixed sizes: short ones, one over the 16 KiB piece size, and non-ASCII ones. */
const texts = (count: number): string[] =>
  Array.from({ length: count }, (_, i) =>
    i === 37 ? "y".repeat(40 * 1024) : i % 7 === 3 ? `é€😀 ${i} ${"ü".repeat(i * 13)}` : `hello ${i}`,
  );

describe("stdio writes", () => {
  it("a burst of 200 requests sent in one tick reaches the server whole, once and in order", async () => {
    const file = join(dir, "burst");
    const { t, sink, send } = peer(file);
    await t.start(sink);
    const sent = texts(200);
    const answers = await Promise.all(sent.map((text) => send(text)));
    expect(answers.map((a) => a.seen)).toEqual(sent.map((_, i) => i + 1));
    expect(answers.map((a) => [a.length, a.last])).toEqual(sent.map((s) => [s.length, s.at(-1)]));
    // A later burst, made while answers of the first are being handled, goes on in order.
    const more = await Promise.all(texts(50).map((text) => send(text)));
    expect(more.map((a) => a.seen)).toEqual(Array.from({ length: 50 }, (_, i) => 201 + i));
    await t.close();
    expect(readFileSync(file, "utf8")).toBe("250");
  });

  it("requests sent one after another, each awaited, arrive in order", async () => {
    const { t, sink, send } = peer(join(dir, "sequential"));
    await t.start(sink);
    for (let i = 1; i <= 20; i++) expect((await send(`call ${i}`)).seen).toBe(i);
    await t.close();
  });

  it("what was sent just before close() is written before stdin ends", async () => {
    const file = join(dir, "close");
    const { t, sink, send } = peer(file);
    await t.start(sink);
    for (const text of texts(100)) void send(text);
    await t.close();
    expect(readFileSync(file, "utf8")).toBe("100");
  });
});
