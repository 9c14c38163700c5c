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

  it("a burst far larger than the pipe (written as bytes while the pipe is backed up) arrives whole and in order", async () => {
    const { t, sink, send } = peer(join(dir, "backed-up"));
    await t.start(sink);
    // 8 MiB and more in one tick: the pipe takes 64 KiB, the rest waits; non-ASCII lines among them.
    const sent = Array.from({ length: 120 }, (_, i) =>
      i % 3 === 0 ? `${"字".repeat(20 * 1024)}${i}` : `${"x".repeat(60 * 1024)}${i}`,
    );
    const answers = await Promise.all(sent.map((text) => send(text)));
    expect(answers.map((a) => a.seen)).toEqual(sent.map((_, i) => i + 1));
    expect(answers.map((a) => [a.length, a.last])).toEqual(sent.map((s) => [s.length, s.at(-1)]));
    await t.close();
  });

  it("a server that does not read: what waits is counted in bytes (CJK text is three a character), up to maxWriteQueueBytes", async () => {
    const limit = 1024 * 1024;
    // Sends `first` once, then `then` until the first refusal, to a fresh server that never reads
    // (it says so first, so that the pipe is the same each time); how many of `then` were taken.
    const acceptedAfter = async (first: string, then: string) => {
      const peer = `process.stdin.pause(); setInterval(() => {}, 60_000);
process.stdout.write(JSON.stringify({ jsonrpc: "2.0", method: "deaf" }) + "\\n");`;
      const t = new StdioTransport({
        type: "stdio",
        command: process.execPath,
        args: ["-e", peer],
        maxWriteQueueBytes: limit,
        stdinGrace: 100,
        termGrace: 100,
      });
      let deaf!: () => void;
      const ready = new Promise<void>((r) => {
        deaf = r;
      });
      await t.start({ message: () => deaf(), fail() {}, closed() {} });
      await ready;
      const line = (text: string) =>
        ({ jsonrpc: "2.0", id: 0, method: "tools/call", params: { text } }) as JsonRpcMessage;
      t.send(line(first));
      await new Promise((r) => setImmediate(r));
      let accepted = 0;
      let refusal: unknown;
      for (let i = 0; i < 200 && refusal === undefined; i++) {
        try {
          t.send(line(then));
          accepted += 1;
        } catch (err) {
          refusal = err;
        }
        // Some sends in later ticks: the first line of each burst is written as a string.
        if (i % 4 === 3) await new Promise((r) => setImmediate(r));
      }
      await t.close();
      expect(refusal).toMatchObject({ kind: "overloaded", reason: "write_queue_full" });
      return accepted;
    };
    // Texts of the same UTF-8 length as ASCII (one byte a UTF-16 unit) and as CJK (three): the
    // pipe takes the same bytes of each (a few hundred KiB), what waits must count the same.
    const ascii = (kib: number) => "x".repeat(kib * 1024);
    const cjk = (kib: number) => "字".repeat((kib * 1024) / 3);
    // Lines that wait in the pipe's queue.
    const a = await acceptedAfter(ascii(3), ascii(99));
    const c = await acceptedAfter(ascii(3), cjk(99));
    expect(a).toBeGreaterThanOrEqual(9);
    expect(Math.abs(c - a)).toBeLessThanOrEqual(1);
    // A line the pipe took only part of, still waiting, with small lines after it.
    const bigA = await acceptedAfter(ascii(600), ascii(12));
    const bigC = await acceptedAfter(cjk(600), ascii(12));
    expect(bigA).toBeGreaterThanOrEqual(10);
    expect(Math.abs(bigC - bigA)).toBeLessThanOrEqual(1);
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
