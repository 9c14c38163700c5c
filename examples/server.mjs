#!/usr/bin/env node
// A small MCP server for trying conduit-mcp: three tools, a resource and a prompt, written with the
// official @modelcontextprotocol/server package and served over stdio. `serveStdio` answers both
// protocol eras (a modern `server/discover` or a legacy `initialize`), so one file shows both.
//
//   node dist/cli/main.js tools -- node examples/server.mjs
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

const ABOUT = `# conduit-mcp example server

Tools: add, echo, roll_dice. Resource: example://about. Prompt: summarize.
`;

function build() {
  const server = new McpServer(
    { name: "conduit-example", version: "1.0.0" },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: "A demonstration server: arithmetic, echo and dice.",
    },
  );

  server.registerTool(
    "add",
    {
      title: "Add",
      description: "Adds two numbers and returns their sum.",
      inputSchema: z.object({
        a: z.number().describe("first addend"),
        b: z.number().describe("second addend"),
      }),
      outputSchema: z.object({ sum: z.number() }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({
      content: [{ type: "text", text: String(a + b) }],
      structuredContent: { sum: a + b },
    }),
  );

  server.registerTool(
    "echo",
    {
      title: "Echo",
      description: "Returns the message unchanged.",
      inputSchema: z.object({ message: z.string().describe("the text to send back") }),
      annotations: { readOnlyHint: true },
    },
    async ({ message }) => ({ content: [{ type: "text", text: message }] }),
  );

  server.registerTool(
    "roll_dice",
    {
      title: "Roll dice",
      description: "Rolls `count` dice with `sides` faces each (default: one six-sided die).",
      inputSchema: z.object({
        sides: z.number().int().min(2).max(1000).default(6).describe("faces per die"),
        count: z.number().int().min(1).max(100).default(1).describe("how many dice"),
      }),
      outputSchema: z.object({ rolls: z.array(z.number()), total: z.number() }),
    },
    async ({ sides, count }) => {
      const rolls = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * sides));
      const total = rolls.reduce((sum, roll) => sum + roll, 0);
      return {
        content: [{ type: "text", text: `rolled ${rolls.join(", ")} (total ${total})` }],
        structuredContent: { rolls, total },
      };
    },
  );

  server.registerResource(
    "about",
    "example://about",
    { title: "About this server", description: "What the example server offers.", mimeType: "text/markdown" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: ABOUT }] }),
  );

  server.registerPrompt(
    "summarize",
    {
      title: "Summarize",
      description: "Asks the model for a short summary of a text.",
      argsSchema: z.object({
        text: z.string().describe("the text to summarize"),
        style: z.string().optional().describe("for example: bullet points"),
      }),
    },
    ({ text, style }) => ({
      messages: [
        {
          role: "user",
          content: {
            type: "text",
            text: `Summarize the following text${style ? ` as ${style}` : ""}:\n\n${text}`,
          },
        },
      ],
    }),
  );

  return server;
}

serveStdio(build);
