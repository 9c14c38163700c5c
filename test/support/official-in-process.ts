import { completable, McpServer, ResourceTemplate } from "@modelcontextprotocol/server";
import { z } from "zod";

/** What the in-process official server saw: cancelled handlers and each request's `_meta`. */
export interface OfficialSeen {
  cancelled: number;
  metas: Array<Record<string, unknown> | undefined>;
}

/**
 * An official McpServer for in-process tests: echo, boom (throws), slow (progress and a log
 * entry per step; honours cancellation), meta (returns the request's `_meta`), the resource
 * file:///readme.md, the template note://{id} and the prompt greeting (completable).
 */
export function officialServer(seen: OfficialSeen = { cancelled: 0, metas: [] }): McpServer {
  const server = new McpServer(
    { name: "official-in-process", version: "1.0.0" },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} },
      instructions: "Use echo to repeat things.",
    },
  );
  server.registerTool(
    "echo",
    { description: "Repeats the message", inputSchema: z.object({ message: z.string() }) },
    async ({ message }, ctx) => {
      seen.metas.push(ctx.mcpReq._meta as Record<string, unknown> | undefined);
      return { content: [{ type: "text", text: message }] };
    },
  );
  server.registerTool("boom", { description: "Throws", inputSchema: z.object({}) }, async () => {
    throw new Error("the tool blew up");
  });
  server.registerTool(
    "slow",
    {
      description: "Progress per step; waits for cancellation at `hangAt`",
      inputSchema: z.object({ steps: z.number(), hangAt: z.number().optional() }),
    },
    async ({ steps, hangAt }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        if (i === hangAt) {
          await new Promise<void>((_, reject) => {
            const signal = ctx.mcpReq.signal;
            const onAbort = () => {
              seen.cancelled += 1;
              reject(new Error("cancelled"));
            };
            if (signal.aborted) return onAbort();
            signal.addEventListener("abort", onAbort, { once: true });
          });
        }
        if (token !== undefined) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
          });
        }
        await ctx.mcpReq.log("info", { step: i });
      }
      return { content: [{ type: "text", text: `done after ${steps}` }] };
    },
  );
  server.registerResource(
    "readme",
    "file:///readme.md",
    { title: "Read me", mimeType: "text/markdown" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: "# Hello" }] }),
  );
  server.registerResource(
    "note",
    new ResourceTemplate("note://{id}", { list: undefined }),
    { title: "A note" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${id}` }] }),
  );
  server.registerPrompt(
    "greeting",
    {
      description: "Greets someone",
      argsSchema: z.object({
        name: completable(z.string(), (v) => ["Ada", "Alan", "Grace"].filter((n) => n.startsWith(v))),
      }),
    },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}!` } }] }),
  );
  return server;
}
