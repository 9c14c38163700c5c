// Compiled by `tsc` in `npm test` (typecheck), never run: content blocks, prompt messages and
// resource contents narrow by the spec's discriminants under --strict, and a block of a type this
// version does not know stays reachable (typed) instead of vanishing from the union.
import type {
  Client,
  ContentBlock,
  GetPromptResult,
  Hub,
  ReadResourceResult,
  ResourceContents,
  ToolResult,
  UnknownContentBlock,
} from "../../src/index.js";

export function describe(block: ContentBlock): string {
  if (block.type === "text") return block.text.toUpperCase();
  if (block.type === "image" || block.type === "audio") return `${block.mimeType} ${block.data.length}`;
  if (block.type === "resource_link") return `${block.name} ${block.uri} ${block.size ?? "?"}`;
  if (block.type === "resource") return contents(block.resource);
  // Every known kind is ruled out: what is left is the fallback, its fields unknown until checked.
  const other: UnknownContentBlock = block;
  const type: string = other.type;
  return `${type} ${typeof other.payload}`;
}

function contents(item: ResourceContents): string {
  return "text" in item ? item.text : item.blob;
}

export function wrongNarrowing(block: ContentBlock, item: ResourceContents): void {
  // @ts-expect-error a block not narrowed to "text" has no `text` for sure
  block.text.toUpperCase();
  if (block.type === "image") {
    // @ts-expect-error an image block has no `text`
    block.text.toUpperCase();
  }
  if (block.type === "text") {
    // @ts-expect-error a text block has no `mimeType`
    block.mimeType.toUpperCase();
  }
  if (block.type === "resource") {
    // @ts-expect-error the embedded resource is text or blob: not narrowed yet
    block.resource.text.toUpperCase();
  }
  // @ts-expect-error resource contents without `"text" in item` may be a blob
  item.text.toUpperCase();
}

export async function fromTheClient(client: Client, hub: Hub): Promise<string[]> {
  const result: ToolResult = await client.callTool("t", {});
  const prompt: GetPromptResult = await client.getPrompt("p");
  const read: ReadResourceResult = await hub.readResource("s", "file:///a");
  const hubPrompt: GetPromptResult = await hub.getPrompt("s", "p");
  return [
    ...result.content.map(describe),
    ...prompt.messages.map((m) => `${m.role}: ${describe(m.content)}`),
    ...hubPrompt.messages.map((m) => describe(m.content)),
    ...read.contents.map(contents),
  ];
}

// A result built by hand (a governance afterCall hook, a test double) type-checks with known blocks.
export const built: ToolResult = {
  content: [
    { type: "text", text: "hi" },
    { type: "image", data: "AA==", mimeType: "image/png" },
    { type: "resource", resource: { uri: "file:///a", text: "a" } },
  ],
  structured: null,
  isError: false,
  meta: null,
  extra: {},
};
// @ts-expect-error a text block needs its text
export const incomplete: ContentBlock = { type: "text" };
// A block is still a plain JSON object to code that takes one.
export const asRecord: Array<Record<string, unknown>> = built.content;
