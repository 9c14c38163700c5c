import type { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { newOfficialServer, registerContent, registerEcho } from "../fixtures/lib/official-tools.mjs";

/** What the in-process official server saw: cancelled handlers and each request's `_meta`. */
export interface OfficialSeen {
  cancelled: number;
  metas: Array<Record<string, unknown> | undefined>;
}

/**
 * An official McpServer for in-process tests: the fixtures' echo (each request's `_meta` kept in
 * `seen`), resource, template and prompt (test/fixtures/lib/official-tools.mjs), and two tools of
 * its own: boom (throws) and slow (progress and a log entry per step; waits for cancellation at
 * `hangAt`).
 */
export function officialServer(seen: OfficialSeen = { cancelled: 0, metas: [] }): McpServer {
  const server = newOfficialServer("official-in-process");
  registerEcho(server, (meta) => seen.metas.push(meta));
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
  registerContent(server);
  return server;
}
