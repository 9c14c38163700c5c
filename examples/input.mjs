// Answering server input: run `npm run build && node examples/input.mjs [modern|legacy]`.
// The server is the repository's test fixture written with the official @modelcontextprotocol/server
// package; its tools ask for sampling, a form, a link and the roots.
import { fileURLToPath } from "node:url";
import { Client } from "../dist/index.js";

const era = process.argv[2] === "legacy" ? "legacy" : "modern";
const server = fileURLToPath(new URL("../test/fixtures/input-official-server.mjs", import.meta.url));

const client = new Client({
  name: "input-example",
  transport: { type: "stdio", command: process.execPath, args: [server, era] },
  handler: {
    // A real application asks the user first, then calls its model.
    sampling: (params, ctx) => ({
      role: "assistant",
      content: {
        type: "text",
        text: `(${ctx.serverId} asked for at most ${params.maxTokens} tokens) Paris.`,
      },
      model: "example-model",
      stopReason: "endTurn",
    }),
    elicitationModes: ["form", "url"],
    elicitation: (params, ctx) => {
      if (ctx.mode === "url") {
        console.log(
          `would show ${ctx.url} (host ${ctx.host}, idn ${ctx.idn}, other origin ${ctx.originMismatch})`,
        );
        return { action: "decline" };
      }
      console.log(`form "${params.message}", fields:`, ctx.fields);
      return { action: "accept", content: { name: "Ada" } };
    },
    listRoots: () => ({ roots: [{ uri: "file:///srv/data/../projects", name: "projects" }] }),
  },
});

try {
  for (const [tool, args] of [
    ["ask_sampling", { prompt: "What is the capital of France?" }],
    ["ask_form", {}],
    ["ask_url", { url: "https://xn--pypal-4ve.example/login" }],
    ["ask_roots", {}],
  ]) {
    const result = await client.callTool(tool, args);
    console.log(tool, "->", JSON.stringify(result.structured));
  }
} finally {
  await client.close();
}
