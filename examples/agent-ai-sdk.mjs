// An agent loop with the Vercel AI SDK's generateText and the tools of two servers from npm
// (server-filesystem and server-everything) behind one Hub, each tool's execute routed back
// through the hub by its qualified name.
// Run `npm run build && node examples/agent-ai-sdk.mjs`. With OPENAI_API_KEY set it uses OpenAI
// through the `@ai-sdk/openai` provider (a dev dependency here; model AI_SDK_MODEL, default
// gpt-4.1-mini); otherwise a scripted model (the AI SDK's own MockLanguageModelV4) picks a tool
// and its arguments.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateText, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Hub } from "conduit-mcp";
import { aiSdkTools } from "conduit-mcp/ai-sdk";

const FILESYSTEM = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", import.meta.url),
);
const EVERYTHING = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

const dir = mkdtempSync(join(tmpdir(), "agent-ai-sdk-"));
writeFileSync(join(dir, "numbers.txt"), "19 and 23\n");

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Step 1: read the file. Step 2: add the two numbers in it. Step 3: answer. */
function scriptedModel() {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt, tools }) => {
      const results = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
      const text = (r) => r.output.value.map((p) => p.text ?? "").join(" ");
      const call = (toolName, input) => ({
        content: [
          { type: "tool-call", toolCallId: `call_${results.length}`, toolName, input: JSON.stringify(input) },
        ],
        finishReason: { unified: "tool-calls", raw: undefined },
        usage,
        warnings: [],
      });
      const names = tools.map((t) => t.name);
      if (results.length === 0) {
        return call(
          names.find((n) => n.endsWith("read_text_file")),
          { path: join(dir, "numbers.txt") },
        );
      }
      if (results.length === 1) {
        const [a, b] = text(results[0]).match(/\d+/g).slice(-2).map(Number);
        return call(
          names.find((n) => n.endsWith("get-sum")),
          { a, b },
        );
      }
      return {
        content: [{ type: "text", text: `The sum is ${text(results[1]).match(/\d+(?=\D*$)/)?.[0]}.` }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
}

async function realModel() {
  const { openai } = await import("@ai-sdk/openai");
  return openai(process.env.AI_SDK_MODEL ?? "gpt-4.1-mini");
}

const hub = new Hub({
  name: "agent-ai-sdk",
  servers: {
    files: {
      transport: { type: "stdio", command: process.execPath, args: [FILESYSTEM, dir], stderr: "discard" },
    },
    everything: {
      transport: { type: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "discard" },
    },
  },
});
try {
  const model = process.env.OPENAI_API_KEY ? await realModel() : scriptedModel();
  await hub.ready({ timeout: 20_000 });
  // Two servers in one tool set: the hub's qualified names keep them apart (mcp__<server>__<tool>).
  const tools = await aiSdkTools(hub);
  console.log(
    `model: ${model instanceof MockLanguageModelV4 ? "scripted" : model.modelId}; ${Object.keys(tools).length} tools`,
  );

  const result = await generateText({
    model,
    tools,
    stopWhen: isStepCount(5),
    prompt: `Add the two numbers in ${join(dir, "numbers.txt")}.`,
  });
  for (const step of result.steps) {
    for (const call of step.toolCalls)
      console.log(`tool call: ${call.toolName} ${JSON.stringify(call.input)}`);
    for (const r of step.toolResults) {
      console.log(
        `tool result (${r.output.isError ? "error" : "ok"}) from ${r.output.provenance.qualifiedName}`,
      );
    }
  }
  console.log(`assistant: ${result.text}`);
} finally {
  await hub.close();
  rmSync(dir, { recursive: true, force: true });
}
