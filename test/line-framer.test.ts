/**
 * The stdio line framer on its own: whatever the chunking of the byte stream, the lines come out
 * whole, decoded once and in order; a line over the cap is reported once, after the lines before
 * it, and nothing follows.
 */
import { describe, expect, it } from "vitest";
import { LineFramer } from "../src/transport/line-framer.js";

function framer(maxBytes: number, stopOn?: string) {
  const lines: string[] = [];
  let overflows = 0;
  const f: LineFramer = new LineFramer(maxBytes, {
    line(line) {
      lines.push(line);
      if (line === stopOn) f.stop();
    },
    overflow() {
      overflows += 1;
    },
  });
  return { f, lines, overflows: () => overflows };
}

/** `bytes` cut at every offset in `cuts`. */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    out.push(bytes.subarray(from, at));
    from = at;
  }
  return out;
}

const TEXT = ["first", "", "é€😀 multi-byte", "x".repeat(300), "last 😀"];
const BYTES = Buffer.from(`${TEXT.join("\n")}\n`);

describe("LineFramer", () => {
  it("gives the same lines however the stream is cut, multi-byte characters included", () => {
    for (let a = 0; a <= BYTES.length; a += 3) {
      for (const b of [a + 1, a + 7, a + 40]) {
        if (b > BYTES.length) continue;
        const { f, lines } = framer(1024);
        for (const chunk of cut(BYTES, [a, b])) f.push(chunk);
        expect(lines).toEqual(TEXT);
      }
    }
    const { f, lines } = framer(1024);
    for (const byte of BYTES) f.push(Buffer.from([byte]));
    expect(lines).toEqual(TEXT);
  });

  it("holds an unfinished line until its newline comes", () => {
    const { f, lines } = framer(1024);
    f.push(Buffer.from("one\ntw"));
    expect(lines).toEqual(["one"]);
    f.push(Buffer.from("o"));
    expect(lines).toEqual(["one"]);
    f.push(Buffer.from("\nthree\n"));
    expect(lines).toEqual(["one", "two", "three"]);
  });

  it("a line of exactly maxBytes passes; one byte more is reported once, after the lines before it", () => {
    const ok = framer(10);
    ok.f.push(Buffer.from(`${"a".repeat(10)}\n${"b".repeat(10)}\n`));
    expect(ok.lines).toEqual(["a".repeat(10), "b".repeat(10)]);
    expect(ok.overflows()).toBe(0);

    const over = framer(10);
    over.f.push(Buffer.from(`short\n${"c".repeat(11)}\nafter\n`));
    expect(over.lines).toEqual(["short"]);
    expect(over.overflows()).toBe(1);
    over.f.push(Buffer.from("more\n"));
    expect(over.lines).toEqual(["short"]);
    expect(over.overflows()).toBe(1);
  });

  it("an unfinished line over maxBytes is reported without waiting for its newline", () => {
    const { f, lines, overflows } = framer(10);
    f.push(Buffer.from("12345"));
    f.push(Buffer.from("678901"));
    expect(overflows()).toBe(1);
    f.push(Buffer.from("\nnext\n"));
    expect(lines).toEqual([]);
  });

  it("a line begun in one chunk and ended in another counts all its bytes against the cap", () => {
    const { f, lines, overflows } = framer(10);
    f.push(Buffer.from("ok\n123456"));
    f.push(Buffer.from("78901\nlater\n"));
    expect(lines).toEqual(["ok"]);
    expect(overflows()).toBe(1);
  });

  it("nothing is delivered after stop(), even from the same chunk", () => {
    const { f, lines } = framer(1024, "two");
    f.push(Buffer.from("one\ntwo\nthree\nfour"));
    f.push(Buffer.from("\nfive\n"));
    expect(lines).toEqual(["one", "two"]);
  });
});
