// Compiled by `tsc` in `npm test` (typecheck), never run: the adapters' output must be assignable
// to the real SDKs' parameter types, and the SDKs' own tool-call shapes accepted as input.
import type Anthropic from "@anthropic-ai/sdk";
import { generateText, type ToolSet } from "ai";
import type OpenAI from "openai";
import { aiSdkTools } from "../../src/adapters/ai-sdk.js";
import { anthropicTools, toAnthropicToolResult } from "../../src/adapters/anthropic.js";
import {
  openaiResponsesTools,
  openaiTools,
  toOpenAIFunctionCallOutput,
  toOpenAIToolMessage,
} from "../../src/adapters/openai.js";
import type { Client, Tool } from "../../src/index.js";

export async function openaiChat(client: Client, openai: OpenAI) {
  const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = await openaiTools(client, { strict: "auto" });
  const completion = await openai.chat.completions.create({ model: "m", messages: [], tools });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [];
  for (const call of completion.choices[0]?.message.tool_calls ?? []) {
    if (call.type !== "function") continue;
    const message: OpenAI.Chat.Completions.ChatCompletionToolMessageParam = await toOpenAIToolMessage(
      client,
      call,
    );
    messages.push(message);
  }
  return messages;
}

export async function openaiResponses(client: Client, openai: OpenAI) {
  const tools: OpenAI.Responses.Tool[] = await openaiResponsesTools(client);
  const response = await openai.responses.create({ model: "m", input: "x", tools });
  const input: OpenAI.Responses.ResponseInputItem[] = [];
  for (const item of response.output) {
    if (item.type !== "function_call") continue;
    const output: OpenAI.Responses.ResponseInputItem.FunctionCallOutput = await toOpenAIFunctionCallOutput(
      client,
      item,
    );
    input.push(output);
  }
  return input;
}

export async function anthropic(client: Client, sdk: Anthropic) {
  const tools: Anthropic.Messages.ToolUnion[] = await anthropicTools(client, { qualify: true });
  const message = await sdk.messages.create({ model: "m", max_tokens: 10, messages: [], tools });
  const content: Anthropic.Messages.ToolResultBlockParam[] = [];
  for (const block of message.content) {
    if (block.type !== "tool_use") continue;
    content.push(await toAnthropicToolResult(client, block));
  }
  const next: Anthropic.Messages.MessageParam = { role: "user", content };
  return next;
}

export async function aiSdk(
  client: Client,
  list: Tool[],
  model: Parameters<typeof generateText>[0]["model"],
) {
  const tools: ToolSet = await aiSdkTools(client);
  const listed: ToolSet = await aiSdkTools(list);
  return generateText({ model, tools: { ...tools, ...listed }, prompt: "x" });
}
