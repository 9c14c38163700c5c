/**
 * What `serve` fronts, one face for both: a `Hub` (qualified tool and prompt names, resource URIs
 * prefixed per server) or one `Client` (every name and URI unchanged). Every call goes through
 * the hub's or the client's public API, so their interceptors, governance and limits apply.
 */
import { Client } from "../client/client.js";
import type { Task } from "../client/tasks.js";
import type { CallToolOptions, JsonObject, RequestOptions, Tool, ToolResult } from "../client/types.js";
import { Hub } from "../hub/hub.js";
import { McpClientError } from "../shared/errors.js";
import { qualifyToolName } from "../util/qualify.js";
import { mapUri, unmapUri } from "./uris.js";

/** One tool as served: its public name, and where it goes. */
export interface ServedTool {
  name: string;
  serverId: string;
  /** The tool's definition on its server (its own name). */
  tool: Tool;
}

export type ListKind = "tools" | "resources" | "prompts";

export class Upstream {
  readonly #hub: Hub | null;
  readonly #client: Client | null;
  readonly #prompts = new Map<string, { serverId: string; name: string }>();

  constructor(target: Hub | Client) {
    if (target instanceof Hub) {
      this.#hub = target;
      this.#client = null;
    } else if (target instanceof Client) {
      this.#hub = null;
      this.#client = target;
    } else {
      throw new TypeError("conduit-mcp: serve() needs a Hub or a Client");
    }
  }

  get isHub(): boolean {
    return this.#hub !== null;
  }

  /** The servers behind it and their clients. */
  clients(): Array<[string, Client]> {
    if (this.#client) return [[this.#client.serverId, this.#client]];
    const hub = this.#hub!;
    return hub.serverIds().map((id) => [id, hub.client(id)]);
  }

  /** The hub's change events for tools (a server added, removed, failed or back); a client has none. */
  onServersChanged(listener: (serverId: string, reason: string) => void): () => void {
    return this.#hub ? this.#hub.onToolsChanged((c) => listener(c.serverId, c.reason)) : () => {};
  }

  async tools(signal?: AbortSignal): Promise<ServedTool[]> {
    if (this.#hub) {
      const listed = await this.#hub.listTools(signal ? { signal } : {});
      return listed.map((t) => ({ name: t.name, serverId: t.serverId, tool: t.tool }));
    }
    const c = this.#client!;
    const listed = await c.listAllTools(signal ? { signal } : {});
    return listed.map((tool) => ({ name: tool.name, serverId: c.serverId, tool }));
  }

  call(name: string, args: Record<string, unknown>, options: CallToolOptions): Promise<ToolResult> {
    if (this.#hub) return this.#hub.callTool(name, args, { ...options, task: "await" });
    return this.#client!.callTool(name, args, { ...options, task: "await" });
  }

  /**
   * A call the host asked to run as a task: the upstream's task when it made one (a tool it runs
   * at once answers with its result), through the same public API and its layers.
   */
  callForTask(
    name: string,
    args: Record<string, unknown>,
    options: CallToolOptions,
  ): Promise<ToolResult | Task> {
    if (this.#hub) return this.#hub.callTool(name, args, { ...options, task: "return" });
    return this.#client!.callTool(name, args, { ...options, task: "return" });
  }

  /** The client of a server behind it (the one that made a task, to ask about it). */
  client(serverId: string): Client | undefined {
    if (this.#client) return this.#client.serverId === serverId ? this.#client : undefined;
    return this.#hub!.serverIds().includes(serverId) ? this.#hub!.client(serverId) : undefined;
  }

  async resources(options: RequestOptions): Promise<JsonObject[]> {
    if (this.#hub) {
      const all = await this.#hub.listResources(pick(options));
      return all.map(({ serverId, ...r }) => ({ ...r, uri: mapUri(serverId, r.uri) }) as JsonObject);
    }
    const all = await this.#client!.listAllResources(pick(options));
    return all.map(({ serverId: _s, ...r }) => r as JsonObject);
  }

  async templates(options: RequestOptions): Promise<JsonObject[]> {
    if (this.#hub) {
      const all = await this.#hub.listResourceTemplates(pick(options));
      return all.map(
        ({ serverId, ...t }) => ({ ...t, uriTemplate: mapUri(serverId, t.uriTemplate) }) as JsonObject,
      );
    }
    const all = await this.#client!.listAllResourceTemplates(pick(options));
    return all.map(({ serverId: _s, ...t }) => t as JsonObject);
  }

  async read(uri: string, options: RequestOptions): Promise<JsonObject> {
    const [client, own] = this.#byUri(uri);
    const result = (await client.readResource(own, options)) as unknown as JsonObject;
    if (!this.#hub) return result;
    const serverId = client.serverId;
    const contents = (result.contents as JsonObject[]).map((c) =>
      typeof c.uri === "string" ? { ...c, uri: mapUri(serverId, c.uri) } : c,
    );
    return { ...result, contents };
  }

  async prompts(options: RequestOptions): Promise<JsonObject[]> {
    if (this.#hub) {
      const all = await this.#hub.listPrompts(pick(options));
      this.#prompts.clear();
      return all.map(({ serverId, ...p }) => {
        const name = qualifyToolName(serverId, p.name);
        this.#prompts.set(name, { serverId, name: p.name });
        return { ...p, name } as JsonObject;
      });
    }
    const all = await this.#client!.listAllPrompts(pick(options));
    return all.map(({ serverId: _s, ...p }) => p as JsonObject);
  }

  async getPrompt(name: string, args: Record<string, unknown>, options: RequestOptions): Promise<JsonObject> {
    const [client, own] = await this.#byPrompt(name, options);
    return (await client.getPrompt(own, args, options)) as unknown as JsonObject;
  }

  async complete(
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    options: RequestOptions & { context?: { arguments?: Record<string, string> } },
  ): Promise<JsonObject> {
    if (ref.type === "ref/prompt" && typeof ref.name === "string") {
      const [client, own] = await this.#byPrompt(ref.name, options);
      return client.complete({ type: "ref/prompt", name: own }, argument, options);
    }
    if (ref.type === "ref/resource" && typeof ref.uri === "string") {
      const [client, own] = this.#byUri(ref.uri);
      return client.complete({ type: "ref/resource", uri: own }, argument, options);
    }
    throw new TypeError("conduit-mcp: a completion ref must name a prompt or a resource");
  }

  #byUri(uri: string): [Client, string] {
    if (!this.#hub) return [this.#client!, uri];
    const found = unmapUri(uri, this.#hub.serverIds());
    if (!found) throw new McpClientError("not_found", "unknown_resource");
    return [this.#hub.client(found.serverId), found.uri];
  }

  async #byPrompt(name: string, options: RequestOptions): Promise<[Client, string]> {
    if (!this.#hub) return [this.#client!, name];
    if (!this.#prompts.has(name)) await this.prompts(options);
    const found = this.#prompts.get(name);
    if (!found) throw new McpClientError("not_found", "unknown_prompt");
    return [this.#hub.client(found.serverId), found.name];
  }
}

const pick = (o: RequestOptions) => ({
  ...(o.timeout !== undefined ? { timeout: o.timeout } : {}),
  ...(o.signal ? { signal: o.signal } : {}),
});
