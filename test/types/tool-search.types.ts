// Compiled by `tsc` (typecheck), never run: the tool-search adapters' output must be assignable to
// the real SDKs' parameter types, and the SDKs' own search-call items accepted as input.
import type Anthropic from "@anthropic-ai/sdk";
import { generateText } from "ai";
import type OpenAI from "openai";
import { aiSdkToolSearch } from "../../src/adapters/ai-sdk.js";
import { anthropicTools, toAnthropicToolSearchResult } from "../../src/adapters/anthropic.js";
import { answerToolSearch, openaiResponsesTools } from "../../src/adapters/openai.js";
import { portableToolSearch, toolManifestTokens } from "../../src/adapters/tool-search.js";
import type { Hub } from "../../src/index.js";

export async function anthropicDeferred(hub: Hub, sdk: Anthropic) {
  const tools: Anthropic.Messages.ToolUnion[] = await anthropicTools(hub, {
    defer: true,
    alwaysLoaded: ["mcp__fs__read_file"],
    search: "client",
  });
  const server: Anthropic.Messages.ToolUnion[] = await anthropicTools(hub, {
    defer: (n) => n.startsWith("mcp__"),
  });
  const message = await sdk.messages.create({ model: "m", max_tokens: 10, messages: [], tools });
  const content: Anthropic.Messages.ToolResultBlockParam[] = [];
  for (const block of message.content) {
    if (block.type === "tool_use") content.push(await toAnthropicToolSearchResult(hub, block));
  }
  return [server, content];
}

export async function openaiDeferred(hub: Hub, openai: OpenAI) {
  const tools: OpenAI.Responses.Tool[] = await openaiResponsesTools(hub, { defer: true });
  const response = await openai.responses.create({ model: "m", input: "x", tools });
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  for (const item of response.output) {
    if (item.type !== "tool_search_call") continue;
    const output: OpenAI.Responses.ResponseToolSearchOutputItemParam = await answerToolSearch(hub, item);
    input.push(output);
  }
  return input;
}

export async function portable(hub: Hub, openai: OpenAI) {
  const { search_tools, call_tool } = portableToolSearch(hub);
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [search_tools, call_tool].map((t) => ({
    type: "function",
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
  const n: number = await toolManifestTokens(tools, { provider: "openai" });
  return [n, await openai.chat.completions.create({ model: "m", messages: [], tools })];
}

export async function aiSdk(hub: Hub, model: Parameters<typeof generateText>[0]["model"]) {
  const { tools, activeTools, prepareStep } = await aiSdkToolSearch(hub);
  return generateText({ model, tools, activeTools, prepareStep, prompt: "x" });
}
