// Compiled by `tsc` in `npm test` (typecheck), never run: `callTool`'s return type follows
// `shape: "llm"` on a Hub; a Client shapes through `callForModel` (test/llm-shape.test.ts runs
// the behaviour).
import { type Client, callForModel, type Hub, type LlmResult, type ToolResult } from "../../src/index.js";

export async function shapedCalls(client: Client, hub: Hub): Promise<void> {
  const shaped: LlmResult = await callForModel(client, "t", {}, { maxTextLength: 10 });
  const plain: ToolResult = await client.callTool("t", {});
  const routed: LlmResult = await hub.callTool("t", {}, { shape: "llm", task: "await", maxTextLength: 10 });
  const fromHub: LlmResult = await callForModel(hub, "t", {});
  // @ts-expect-error a shaped result is not a ToolResult
  const wrong: ToolResult = await callForModel(client, "t", {});
  // @ts-expect-error a task cannot be shaped
  await callForModel(client, "t", {}, { task: "return" });
  // @ts-expect-error the client shapes nothing itself any more
  await client.callTool("t", {}, { shape: "llm" });
  // @ts-expect-error the shaping options need shape: "llm"
  await hub.callTool("t", {}, { maxTextLength: 10 });
  void [shaped, plain, routed, fromHub, wrong];
}
