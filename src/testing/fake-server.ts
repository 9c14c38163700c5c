import type { InProcessPeer, InProcessServer, InProcessSession } from "../transport/in-process.js";
import { FakeServerState } from "./fake-server-state.js";
import { FakeSession } from "./fake-session.js";
import type { FakePromptArgument, PromptHandler, ResourceHandler, ToolHandler } from "./fake-types.js";

/**
 * An MCP server for tests, in plain data and functions: tools, resources and prompts from
 * builders, every request recorded in `calls`, and faults scripted with `fail`. Serve it
 * in-process (`transport: { type: "in-process", server }`) or over stdio (`fakeServerCommand`).
 */
export class FakeServer extends FakeServerState implements InProcessServer {
  readonly #sessions = new Set<FakeSession>();

  /** Adds (or replaces) a tool; connected clients hear that the list changed. */
  tool(
    name: string,
    inputSchema: Record<string, unknown>,
    handler: ToolHandler,
    extra: {
      description?: string;
      annotations?: Record<string, unknown>;
      outputSchema?: Record<string, unknown>;
    } = {},
  ): this {
    checkName(name, "tool");
    this.tools.set(name, { definition: { name, ...extra, inputSchema }, handler });
    this.#changed("tools");
    return this;
  }

  /** Adds (or replaces) a resource; `handler` returns `{ text }`, `{ blob }`, a full result or a string. */
  resource(
    uri: string,
    handler: ResourceHandler,
    extra: { name?: string; mimeType?: string; description?: string } = {},
  ): this {
    checkName(uri, "resource uri");
    this.resources.set(uri, { definition: { uri, name: extra.name ?? uri, ...extra }, handler });
    this.#changed("resources");
    return this;
  }

  /** Adds (or replaces) a prompt; `handler` returns the text of one user message or a full result. */
  prompt(
    name: string,
    args: FakePromptArgument[],
    handler: PromptHandler,
    extra: { description?: string } = {},
  ): this {
    checkName(name, "prompt");
    this.prompts.set(name, { definition: { name, ...extra, arguments: args }, handler });
    this.#changed("prompts");
    return this;
  }

  /** Removes a tool, resource or prompt by name (or uri); connected clients hear the change. */
  remove(name: string): this {
    if (this.tools.delete(name)) this.#changed("tools");
    if (this.resources.delete(name)) this.#changed("resources");
    if (this.prompts.delete(name)) this.#changed("prompts");
    return this;
  }

  /** Announces a list change to every connected client (legacy: at once; modern: on listen streams). */
  notifyListChanged(kind: "tools" | "resources" | "prompts"): void {
    this.#changed(kind);
  }

  serveInProcess(peer: InProcessPeer): InProcessSession {
    const session = new FakeSession(this, peer, () => this.#sessions.delete(session));
    this.#sessions.add(session);
    return session;
  }

  #changed(kind: "tools" | "resources" | "prompts"): void {
    for (const s of this.#sessions) s.listChanged(kind);
  }
}

function checkName(name: unknown, what: string): void {
  if (typeof name !== "string" || name.length === 0)
    throw new TypeError(`conduit-mcp: a ${what} needs a name`);
}
