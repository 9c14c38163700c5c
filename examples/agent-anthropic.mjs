// An agent loop over the Anthropic Messages API with the tools of @modelcontextprotocol/server-everything.
// Run `npm run build && node examples/agent-anthropic.mjs`. With ANTHROPIC_API_KEY set it asks the
// real API (model: ANTHROPIC_MODEL, default claude-haiku-4-5); without it a scripted model plays
// the part: it picks tools from the list it is given and makes up the arguments.
import { fileURLToPath } from "node:url";
import { Client } from "conduit-mcp";
import { anthropicTools, toAnthropicToolResult } from "conduit-mcp/anthropic";

// Outside this repository: command "npx", args ["-y", "@modelcontextprotocol/server-everything"].
const SERVER = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

/** The scripted model: asks for a sum and a picture at once, then reports what came back. */
function scriptedModel({ messages, tools }) {
  const last = messages.at(-1);
  if (Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result")) {
    const seen = last.content.map((r) =>
      r.content
        .map((b) => (b.type === "image" ? "an image" : b.text))
        .slice(1)
        .join(" "),
    );
    return {
      role: "assistant",
      stop_reason: "end_turn",
      content: [{ type: "text", text: `I got: ${seen.join("; ")}` }],
    };
  }
  const names = new Set(tools.map((t) => t.name));
  const content = [];
  if (names.has("get-sum"))
    content.push({ type: "tool_use", id: "toolu_1", name: "get-sum", input: { a: 19, b: 23 } });
  if (names.has("get-tiny-image"))
    content.push({ type: "tool_use", id: "toolu_2", name: "get-tiny-image", input: {} });
  return { role: "assistant", stop_reason: "tool_use", content };
}

async function realModel(request) {
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
  const message = await new Anthropic().messages.create(request);
  return { role: "assistant", stop_reason: message.stop_reason, content: message.content };
}

const client = new Client({
  name: "agent-anthropic",
  serverId: "everything",
  transport: { type: "stdio", command: process.execPath, args: [SERVER, "stdio"], stderr: "discard" },
});
try {
  const live = Boolean(process.env.ANTHROPIC_API_KEY);
  const model = live ? realModel : scriptedModel;
  const tools = await anthropicTools(client);
  console.log(`model: ${live ? "Anthropic API" : "scripted"}; ${tools.length} tools`);

  const messages = [{ role: "user", content: "What is 19 + 23? Also show me a tiny image." }];
  for (let turn = 0; turn < 5; turn++) {
    const reply = await model({
      model: process.env.ANTHROPIC_MODEL ?? "claude-haiku-4-5",
      max_tokens: 1024,
      // Server text stays in tool definitions and results: never in the system prompt.
      system: "You are a helpful assistant. Use the tools to answer.",
      messages,
      tools,
    });
    messages.push({ role: "assistant", content: reply.content });
    const uses = reply.content.filter((b) => b.type === "tool_use");
    if (uses.length === 0) {
      console.log(`assistant: ${reply.content.map((b) => b.text ?? "").join("")}`);
      break;
    }
    const results = [];
    for (const use of uses) {
      console.log(`tool use: ${use.name} ${JSON.stringify(use.input)}`);
      const block = await toAnthropicToolResult(client, use);
      console.log(
        `tool result (is_error: ${block.is_error}): ${block.content.map((b) => b.type).join(", ")}`,
      );
      results.push(block);
    }
    messages.push({ role: "user", content: results });
  }
} finally {
  await client.close();
}
