// Content blocks reach the caller as the server sent them: the five kinds of the spec and any
// other type (the union's typed fallback, test/types/content-blocks.types.ts), never dropped or
// rewritten; the same for prompt messages and resource contents.
import { describe, expect, it } from "vitest";
import { Client, type ContentBlock } from "../src/index.js";
import { FakeServer } from "../src/testing/index.js";

const BLOCKS = [
  { type: "text", text: "hi", annotations: { audience: ["user"] } },
  { type: "image", mimeType: "image/png", data: "AA==" },
  { type: "audio", mimeType: "audio/wav", data: "AA==" },
  { type: "resource_link", uri: "file:///a.txt", name: "a" },
  { type: "resource", resource: { uri: "file:///b.txt", text: "b" } },
  { type: "video", url: "https://example.com/v.mp4", seconds: 3 },
];

/** What a caller narrowing by `type` reads from each block. */
function read(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return block.mimeType;
    case "resource_link":
      return block.uri;
    case "resource":
      return "text" in block.resource ? block.resource.text : block.resource.blob;
    default:
      return `${String(block.type)} ${String(block.url)}`;
  }
}

describe("content blocks", () => {
  it("come back as sent, an unknown type included, in results, prompts and resources", async () => {
    const server = new FakeServer()
      .tool("show", { type: "object" }, () => ({ content: BLOCKS }))
      .prompt("p", [], () => ({ messages: BLOCKS.map((content) => ({ role: "user", content })) }))
      .resource("file:///r", () => ({ contents: [{ uri: "file:///r", blob: "AA==", mimeType: "x/y" }] }));
    await using client = new Client({ name: "t", transport: { type: "in-process", server } });
    const result = await client.callTool("show", {});
    expect(result.content).toEqual(BLOCKS);
    expect(result.content.map(read)).toEqual([
      "hi",
      "image/png",
      "audio/wav",
      "file:///a.txt",
      "b",
      "video https://example.com/v.mp4",
    ]);
    const prompt = await client.getPrompt("p");
    expect(prompt.messages.map((m) => m.content)).toEqual(BLOCKS);
    const resource = await client.readResource("file:///r");
    expect(resource.contents).toEqual([{ uri: "file:///r", blob: "AA==", mimeType: "x/y" }]);
  });
});
