// An agent loop over OpenAI Chat Completions with the tools of @modelcontextprotocol/server-filesystem.
// Run `npm run build && node examples/agent-openai.mjs`. With OPENAI_API_KEY set it asks the real
// API (model: OPENAI_MODEL, default gpt-4.1-mini); without it a scripted model plays the part: it
// picks a tool from the list it is given and makes up the arguments, as a model would.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "conduit-mcp";
import { openaiTools, toOpenAIToolMessage } from "conduit-mcp/openai";

// Outside this repository: command "npx", args ["-y", "@modelcontextprotocol/server-filesystem", dir].
const SERVER = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
);

const dir = mkdtempSync(join(tmpdir(), "agent-openai-"));
writeFileSync(join(dir, "todo.txt"), "1. water the plants\n2. call the plumber\n");

/** The scripted model: one tool call, then an answer from what the tool returned. */
function scriptedModel({ messages, tools }) {
  const answer = messages.find((m) => m.role === "tool");
  if (answer) {
    return { role: "assistant", content: `The file says: ${answer.content.split("\n").slice(1).join(" ")}` };
  }
  const tool = tools.find((t) => t.function.name === "read_text_file");
  // Strict mode: every property is required, optional ones are sent as null.
  const args = Object.fromEntries(Object.keys(tool.function.parameters.properties).map((k) => [k, null]));
  args.path = join(dir, "todo.txt");
  return {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: tool.function.name, arguments: JSON.stringify(args) },
      },
    ],
  };
}

async function realModel(request) {
  const { default: OpenAI } = await import("openai");
  const completion = await new OpenAI().chat.completions.create(request);
  return completion.choices[0].message;
}

const client = new Client({
  name: "agent-openai",
  serverId: "files",
  transport: { type: "stdio", command: process.execPath, args: [SERVER, dir], stderr: "discard" },
});
try {
  const live = Boolean(process.env.OPENAI_API_KEY);
  const model = live ? realModel : scriptedModel;
  const tools = await openaiTools(client, { strict: "auto" });
  console.log(
    `model: ${live ? "OpenAI API" : "scripted"}; ${tools.length} tools, ${tools.filter((t) => t.function.strict).length} strict`,
  );

  const messages = [
    { role: "system", content: "You are a helpful assistant. Use the tools to answer." },
    { role: "user", content: `What is in ${join(dir, "todo.txt")}?` },
  ];
  for (let turn = 0; turn < 5; turn++) {
    const reply = await model({ model: process.env.OPENAI_MODEL ?? "gpt-4.1-mini", messages, tools });
    messages.push(reply);
    if (!reply.tool_calls?.length) {
      console.log(`assistant: ${reply.content}`);
      break;
    }
    for (const call of reply.tool_calls) {
      console.log(`tool call: ${call.function.name} ${call.function.arguments}`);
      // Runs the call (arguments checked against the server's own schema first) and answers it.
      const message = await toOpenAIToolMessage(client, call);
      console.log(
        `tool result (${message.result.isError ? "error" : "ok"}): ${message.content.split("\n")[0]}`,
      );
      messages.push(message);
    }
  }
} finally {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
}
