/**
 * `search <query>`: the tools that best match a task, ranked (hub.searchTools / client.searchTools),
 * with their server and score; the note says what the whole tool list would cost a model.
 */
import type { CallableTool, Client, Hub } from "../../index.js";
import { EXIT } from "../common.js";
import { renderSearch, withoutServerId } from "../render.js";
import type { CommandModule, CommandOf } from "./command.js";

const LIMIT = 10;

export const search: CommandModule<CommandOf<"search">> = {
  async client(client, { command, request }) {
    const found = await request((o) => client.searchTools(command.query, { limit: LIMIT, ...o }));
    return answer(found, await manifest(client));
  },
  async hub(hub, { command, span }) {
    const found = await hub.searchTools(command.query, { limit: LIMIT, timeout: span.left() });
    return answer(found, await manifest(hub));
  },
};

interface Manifest {
  /** Every tool's definition, as OpenAI Responses tools. */
  full: number;
  /** What a model starts with under tool search: the tools not deferred (the search tool). */
  deferred: number;
}

function answer(found: Array<{ tool: CallableTool; score: number }>, tokens: Manifest | null) {
  const rows = found.map((f) => ({
    name: f.tool.name,
    serverId: f.tool.serverId,
    score: f.score,
    tool: f.tool.tool,
  }));
  return {
    json: {
      results: rows.map((r) => ({ ...r, score: Number(r.score.toFixed(4)), tool: withoutServerId(r.tool) })),
      manifestTokens: tokens,
    },
    human: renderSearch(rows),
    ...(tokens === null
      ? {}
      : {
          note:
            `the whole tool list costs about ${tokens.full} tokens, ${tokens.deferred} with tool search ` +
            "(OpenAI o200k_base)",
        }),
    exitCode: EXIT.ok,
  };
}

/** The manifest's tokens in full and deferred, or null without js-tiktoken (an optional peer). */
async function manifest(source: Client | Hub): Promise<Manifest | null> {
  try {
    const { openaiResponsesTools } = await import("../../adapters/openai.js");
    const { toolManifestTokens } = await import("../../adapters/tool-search.js");
    const full = await toolManifestTokens(await openaiResponsesTools(source, { qualify: true }));
    const deferred = await openaiResponsesTools(source, { qualify: true, defer: true });
    const loaded = deferred.filter((t) => !("defer_loading" in t));
    return { full, deferred: await toolManifestTokens(loaded) };
  } catch {
    return null;
  }
}
