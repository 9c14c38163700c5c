// The official client (@modelcontextprotocol/client) as the host in front of `serve`: over HTTP
// in either era, with an optional bearer token, elicitation, sampling and roots answers; and the
// hub-behind-serve set-up the serve tests share.
import { fileURLToPath } from "node:url";
import { Client as SdkClient, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import { Client, Hub, type HubOptions, type Task } from "../../src/index.js";
import {
  type ServeHandle,
  type ServeOptions,
  type ServeTaskOptions,
  serve,
  serveInputHandler,
} from "../../src/serve/index.js";
import { silentLogger } from "./logger.js";
import { nodeServer } from "./servers.js";

/** The scripted upstream with task tools (test/fixtures/task-server.mjs). */
export const TASK_SERVER = fileURLToPath(new URL("../fixtures/task-server.mjs", import.meta.url));

/**
 * The task fixture as one legacy upstream client, served over HTTP with `tasks` options; both are
 * closed through `open` (the test file's list of closers).
 */
export async function servedTaskUpstream(
  tasks: ServeTaskOptions,
  open: Array<() => Promise<unknown>>,
): Promise<{ upstream: Client; served: ServeHandle }> {
  const upstream = new Client({
    name: "tasks",
    transport: nodeServer(TASK_SERVER, ['{"pollIntervalMs":30}']),
    protocol: "legacy",
    logger: silentLogger(),
  });
  open.push(() => upstream.close());
  await upstream.ready({ timeout: 20_000 });
  const served = await serve(upstream, {
    transport: { type: "http", port: 0 },
    logger: silentLogger(),
    tasks,
  });
  open.push(() => served.close());
  return { upstream, served };
}

export type HostEra = "modern" | "legacy";

export interface HostOptions {
  token?: string;
  /** Answers elicitations (declares the capability). */
  elicit?: (params: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Declares URL-mode elicitation too (`elicit` answers it). */
  elicitUrl?: boolean;
  /** Answers roots/list (declares `roots` with `listChanged`). */
  roots?: () => Array<{ uri: string; name?: string }>;
  /** Hears each notifications/message. */
  onLog?: (params: Record<string, unknown>) => void;
  /** Answers sampling requests (declares the capability). */
  sample?: (params: Record<string, unknown>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Hears each tools list_changed (after the SDK's own debounce). */
  onToolsChanged?: () => void;
  /** Hears each prompts list_changed. */
  onPromptsChanged?: () => void;
  /** Hears each resources list_changed. */
  onResourcesChanged?: () => void;
}

export async function httpHost(url: string, era: HostEra, o: HostOptions = {}): Promise<SdkClient> {
  const client = new SdkClient(
    { name: `host-${era}`, version: "1.0.0" },
    {
      capabilities: {
        ...(o.elicit ? { elicitation: { form: {}, ...(o.elicitUrl ? { url: {} } : {}) } } : {}),
        ...(o.roots ? { roots: { listChanged: true } } : {}),
        ...(o.sample ? { sampling: {} } : {}),
      },
      ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
      listChanged: {
        ...(o.onToolsChanged
          ? { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => o.onToolsChanged?.() } }
          : {}),
        ...(o.onPromptsChanged
          ? { prompts: { autoRefresh: false, debounceMs: 0, onChanged: () => o.onPromptsChanged?.() } }
          : {}),
        ...(o.onResourcesChanged
          ? { resources: { autoRefresh: false, debounceMs: 0, onChanged: () => o.onResourcesChanged?.() } }
          : {}),
      },
    },
  );
  if (o.elicit) {
    const answer = o.elicit;
    client.setRequestHandler(
      "elicitation/create",
      async (req) => answer(req.params as Record<string, unknown>) as never,
    );
  }
  if (o.sample) {
    const answer = o.sample;
    client.setRequestHandler(
      "sampling/createMessage",
      async (req) => answer(req.params as Record<string, unknown>) as never,
    );
  }
  if (o.roots) {
    const roots = o.roots;
    client.setRequestHandler("roots/list", async () => ({ roots: roots() }));
  }
  if (o.onLog) {
    const hear = o.onLog;
    client.setNotificationHandler("notifications/message", (n) => hear(n.params as Record<string, unknown>));
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(o.token ? { requestInit: { headers: { authorization: `Bearer ${o.token}` } } } : {}),
  });
  await client.connect(transport);
  return client;
}

export const textOf = (r: { content?: unknown }) =>
  ((r.content as Array<{ text?: string }>) ?? []).map((c) => c.text ?? "").join("");

/** Closes a host as a well-behaved one does: it ends its session (DELETE) first. */
export async function closeHost(client: SdkClient): Promise<void> {
  const t = client.transport as StreamableHTTPClientTransport | undefined;
  await t?.terminateSession().catch(() => {});
  await client.close();
}

/** A hub of `servers` served over HTTP on a free loopback port; `close()` ends both. */
export interface ServedHub {
  hub: Hub;
  served: ServeHandle;
  close(): Promise<void>;
}

/**
 * The set-up the serve tests share: a hub (silent, its clients forwarding upstream input to the
 * host unless `input: false`), ready, served over HTTP.
 */
export async function serveHub(
  hubOptions: Omit<HubOptions, "logger"> & { input?: boolean },
  serveOptions: Omit<ServeOptions, "transport" | "logger"> = {},
): Promise<ServedHub> {
  const logger = silentLogger();
  const { input = true, clientOptions, ...rest } = hubOptions;
  const hub = new Hub({
    ...rest,
    logger,
    clientOptions: { logger, ...(input ? { handler: serveInputHandler() } : {}), ...clientOptions },
  });
  try {
    await hub.ready({ timeout: 20_000 });
    const served = await serve(hub, { ...serveOptions, transport: { type: "http", port: 0 }, logger });
    return {
      hub,
      served,
      close: async () => {
        await served.close();
        await hub.close();
      },
    };
  } catch (err) {
    await hub.close();
    throw err;
  }
}

/**
 * A 2026 host (conduit-mcp's client) runs `tool` (a `steps` task of one 150 ms step) and awaits its
 * task: serve's status notifications wake the wait well before the 5 s poll interval serve passes
 * on from the upstream. Closes the host.
 */
export async function expectWokenByStatus(host: Client, tool: string): Promise<void> {
  try {
    const task = (await host.callTool(tool, { n: 1, every: 150 }, { task: "return" })) as Task;
    // serve passes the upstream's poll interval on: 5 s.
    expect(task.pollIntervalMs).toBe(5_000);
    const started = Date.now();
    const result = await host.awaitTask(task, { timeout: 10_000 });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(Date.now() - started).toBeLessThan(2_500);
  } finally {
    await host.close();
  }
}

let rawId = 0;

/**
 * One 2026-07-28 request as a host would send it, by hand (headers and the `_meta` envelope the
 * spec asks for, with `caps` as the client capabilities): the raw response, for the cases an SDK
 * client cannot make (another caller's token, a listen, a request cut off).
 */
export function rawModernPost(
  at: string,
  method: string,
  params: Record<string, unknown>,
  o: { caps: Record<string, unknown>; token?: string; name?: string; signal?: AbortSignal },
): Promise<Response> {
  return fetch(at, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(o.name ? { "mcp-name": o.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++rawId,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": o.caps,
          "io.modelcontextprotocol/clientInfo": { name: "host", version: "1" },
        },
      },
    }),
    ...(o.signal ? { signal: o.signal } : {}),
  });
}
