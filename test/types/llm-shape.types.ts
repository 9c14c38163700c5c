// Compiled by `tsc` in `npm test` (typecheck), never run: `callTool`'s return type follows
// `shape: "llm"` on a Client and a Hub (test/llm-shape.test.ts runs the behaviour).
import type { Client, Hub, LlmResult, ToolResult } from "../../src/index.js";

export async function shapedCalls(client: Client, hub: Hub): Promise<void> {
  const shaped: LlmResult = await client.callTool("t", {}, { shape: "llm" });
  const plain: ToolResult = await client.callTool("t", {});
  const routed: LlmResult = await hub.callTool("t", {}, { shape: "llm", task: "await", maxTextLength: 10 });
  // @ts-expect-error a shaped result is not a ToolResult
  const wrong: ToolResult = await client.callTool("t", {}, { shape: "llm" });
  // @ts-expect-error a task cannot be shaped
  await client.callTool("t", {}, { shape: "llm", task: "return" });
  // @ts-expect-error the shaping options need shape: "llm"
  await hub.callTool("t", {}, { maxTextLength: 10 });
  void [shaped, plain, routed, wrong];
}
