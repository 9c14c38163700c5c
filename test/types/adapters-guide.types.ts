// The TypeScript examples of docs/adapters.md, compiled by `tsc` (never run: they need an API key
// or print). Keep them in step with the guide.
import OpenAI from "openai";
import { openaiTools, toOpenAIToolMessage } from "../../src/adapters/openai.js";
import { Client, subscribe } from "../../src/index.js";

export async function loopExample() {
  const client = new Client({
    name: "agent",
    serverId: "files",
    transport: {
      type: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
    },
  });
  const openai = new OpenAI();
  const tools = await openaiTools(client, { strict: "auto" });
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: "user", content: "What is in /srv/todo.txt?" },
  ];
  for (let turn = 0; turn < 5; turn++) {
    const reply = (await openai.chat.completions.create({ model: "gpt-4.1-mini", messages, tools }))
      .choices[0]!.message;
    messages.push(reply);
    if (!reply.tool_calls?.length) break;
    for (const call of reply.tool_calls) {
      if (call.type === "function") messages.push(await toOpenAIToolMessage(client, call));
    }
  }
  await client.close();
}

export async function fallbackExample() {
  subscribe("adapter:strict_fallback", (e) => console.log(e.toolName, e.reason, e.detail));
  const tools = await openaiTools([
    {
      serverId: "s",
      name: "pick",
      inputSchema: { type: "object", properties: { v: { oneOf: [{ type: "string" }, { type: "number" }] } } },
    },
  ]);
  // pick unsupported_keyword oneOf at /properties/v
  console.log(tools[0]!.function.strict); // false
}
