import { Readable } from "node:stream";
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { readEvents } from "../src/transport/http/body.js";

/** The events' data read from these chunks of bytes. */
async function dataOf(chunks: Buffer[]): Promise<string[]> {
  const seen: string[] = [];
  await readEvents(Readable.from(chunks), 1 << 20, createParser, { onEvent: (e) => seen.push(e.data) });
  return seen;
}

describe("readEvents decoding", () => {
  it("a character split across chunks, at every split point, is read whole", async () => {
    const bytes = Buffer.from('data: {"text":"é😀ü"}\n\n', "utf8");
    for (let at = 1; at < bytes.length; at++) {
      expect(await dataOf([bytes.subarray(0, at), bytes.subarray(at)])).toEqual(['{"text":"é😀ü"}']);
    }
  });

  it("drops a leading byte order mark, even alone in the first chunk, and keeps a later one", async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const body = Buffer.from("data: \ufeffx\n\n", "utf8");
    expect(await dataOf([Buffer.concat([bom, body])])).toEqual(["\ufeffx"]);
    expect(await dataOf([bom.subarray(0, 2), bom.subarray(2), body])).toEqual(["\ufeffx"]);
  });

  it("bytes that are not UTF-8 become U+FFFD, and the stream goes on", async () => {
    const bad = Buffer.concat([Buffer.from("data: a"), Buffer.from([0xff]), Buffer.from("b\n\ndata: c\n\n")]);
    expect(await dataOf([bad])).toEqual(["a\ufffdb", "c"]);
  });
});
