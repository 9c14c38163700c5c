/**
 * The page's JSON API over the hub. Reads list what the servers offer; `call` runs a tool through
 * the hub (its governance included, so an `ask` waits for the page's approval), with progress on
 * the event stream and `cancel` aborting it on the wire. No endpoint takes a command or a server:
 * the servers are the ones given at start.
 */
import { anthropicTools } from "../adapters/anthropic.js";
import { toolManifestTokens } from "../adapters/manifest-tokens.js";
import { openaiTools } from "../adapters/openai.js";
import type { Hub } from "../hub/hub.js";
import type { HubTool } from "../hub/types.js";
import { getListedPrompt, readListedResource } from "./catalog.js";
import type { Desk } from "./desk.js";
import { clean, type Feed } from "./feed.js";
import type { TaskBoard } from "./tasks.js";

export interface ApiContext {
  hub: Hub;
  desk: Desk;
  feed: Feed;
  /** The calls running, by the page's id, to cancel. */
  calls: Map<string, AbortController>;
  /** The tasks the page started. */
  tasks: TaskBoard;
}

export type ApiAnswer = { status: number; body: unknown };

const ok = (body: unknown): ApiAnswer => ({ status: 200, body });
const bad = (message: string, status = 400): ApiAnswer => ({ status, body: { error: { message } } });

/** GET endpoints. */
export async function apiGet(ctx: ApiContext, path: string, query: URLSearchParams): Promise<ApiAnswer> {
  switch (path) {
    case "/api/servers":
      return ok(servers(ctx.hub));
    case "/api/tools":
      return ok(await tools(ctx.hub));
    case "/api/resources":
      return ok(await settled(ctx.hub.listResources({ timeout: 10_000 })));
    case "/api/templates":
      return ok(await settled(ctx.hub.listResourceTemplates({ timeout: 10_000 })));
    case "/api/prompts":
      return ok(await settled(ctx.hub.listPrompts({ timeout: 10_000 })));
    case "/api/pending":
      return ok(ctx.desk.list());
    case "/api/tasks":
      return ok(ctx.tasks.list());
    case "/api/search": {
      const q = query.get("q") ?? "";
      if (q.length > 500) return bad("query too long");
      const found = await ctx.hub.searchTools(q, { limit: 20 });
      return ok(found.map((r) => ({ name: r.tool.name, serverId: r.tool.serverId, score: r.score })));
    }
    default:
      return bad("not found", 404);
  }
}

/** POST endpoints; `body` is the parsed JSON. */
export async function apiPost(ctx: ApiContext, path: string, body: unknown): Promise<ApiAnswer> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return bad("the body must be a JSON object");
  const b = body as Record<string, unknown>;
  switch (path) {
    case "/api/call":
      return call(ctx, b);
    case "/api/cancel": {
      const controller = typeof b.id === "string" ? ctx.calls.get(b.id) : undefined;
      controller?.abort(new Error("cancelled on the page"));
      return ok({ cancelled: controller !== undefined });
    }
    case "/api/resource":
      return readListedResource(ctx.hub, b);
    case "/api/prompt":
      return getListedPrompt(ctx.hub, b);
    case "/api/task":
      return ctx.tasks.start(b);
    case "/api/task/cancel":
      return ctx.tasks.cancel(b);
    case "/api/answer":
      return typeof b.id === "string" && ctx.desk.answer(b.id, b.answer)
        ? ok({ answered: true })
        : bad("no such pending request, or a malformed answer");
    default:
      return bad("not found", 404);
  }
}

const CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;

async function call(ctx: ApiContext, b: Record<string, unknown>): Promise<ApiAnswer> {
  const { id, name, arguments: args } = b;
  if (typeof id !== "string" || !CALL_ID.test(id) || ctx.calls.has(id))
    return bad("id: a new call id is needed");
  if (typeof name !== "string") return bad("name must be a string");
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) {
    return bad("arguments must be an object");
  }
  const controller = new AbortController();
  ctx.calls.set(id, controller);
  try {
    const result = await ctx.hub.callTool(name, args as Record<string, unknown> | undefined, {
      signal: controller.signal,
      // A long tool that reports progress keeps running; one that goes quiet still times out.
      resetTimeoutOnProgress: true,
      onProgress: (p) =>
        ctx.feed.send("progress", {
          id,
          progress: p.progress,
          total: p.total ?? null,
          message: clean(p.message ?? "", 500),
        }),
    });
    return ok({
      result: { content: result.content, structured: result.structured, isError: result.isError },
    });
  } catch (err) {
    const e = err as { kind?: unknown; message?: unknown };
    const cancelled = controller.signal.aborted;
    return ok({
      error: {
        kind: cancelled ? "cancelled" : typeof e.kind === "string" ? e.kind : "error",
        message: clean(String(e.message ?? err), 1000),
      },
    });
  } finally {
    ctx.calls.delete(id);
  }
}

function servers(hub: Hub) {
  const status = hub.status().servers;
  return hub.serverIds().map((id) => {
    const s = status[id];
    let described: Record<string, unknown> = { serverInfo: null, capabilities: null, instructions: null };
    try {
      const d = hub.client(id).serverInfo();
      described = { serverInfo: d.serverInfo, capabilities: d.capabilities, instructions: d.instructions };
    } catch {
      // Not connected yet (or any more): the state says why.
    }
    return {
      id,
      state: s?.state ?? null,
      era: s?.era ?? null,
      version: s?.version ?? null,
      reason: s?.reason ?? null,
      fallbackReason: s?.fallbackReason ?? null,
      ...described,
    };
  });
}

async function settled<T>(p: Promise<T>): Promise<T | { error: { message: string } }> {
  try {
    return await p;
  } catch (err) {
    return { error: { message: clean(String((err as Error).message ?? err), 500) as string } };
  }
}

/** Each tool, with what OpenAI's strict conversion made of it and what it costs each model API. */
async function tools(hub: Hub) {
  const list: HubTool[] = await hub.listTools({ timeout: 10_000 });
  const openai = await openaiTools(list, { strict: "auto" });
  const anthropic = await anthropicTools(list);
  const aligned = openai.length === list.length && anthropic.length === list.length;
  const { count: tokens, method: tokenCount } = await tokenCounter();
  const rows = [];
  for (const [i, t] of list.entries()) {
    const oa = aligned ? openai[i] : undefined;
    const an = aligned ? anthropic[i] : undefined;
    rows.push({
      name: t.name,
      serverId: t.serverId,
      tool: t.tool.name,
      title: t.tool.title ?? null,
      description: t.tool.description ?? null,
      inputSchema: t.tool.inputSchema,
      outputSchema: t.tool.outputSchema ?? null,
      annotations: t.tool.annotations ?? null,
      taskSupport: t.tool.execution?.taskSupport ?? null,
      openaiStrict: oa ? oa.function.strict === true : null,
      tokens: {
        openai: oa ? await tokens([oa], "openai") : null,
        anthropic: an ? await tokens([an], "anthropic") : null,
      },
    });
  }
  return {
    tools: rows,
    tokenCount,
    manifests: {
      openai: { tools: openai, tokens: await tokens(openai, "openai") },
      anthropic: { tools: anthropic, tokens: await tokens(anthropic, "anthropic") },
    },
  };
}

/**
 * Counts tokens with js-tiktoken (an optional peer) when it is there; without it, a rough
 * estimate (a token per four characters of the JSON the API receives), marked so the page says
 * so: a user of `npx conduit-mcp inspect` still sees what a tool list costs.
 */
async function tokenCounter(): Promise<{
  count: (tools: unknown[], provider: "openai" | "anthropic") => Promise<number>;
  method: "tiktoken" | "estimate";
}> {
  try {
    await toolManifestTokens([]);
    return { count: (t, provider) => toolManifestTokens(t, { provider }), method: "tiktoken" };
  } catch {
    return { count: async (t) => Math.ceil(JSON.stringify(t).length / 4), method: "estimate" };
  }
}
