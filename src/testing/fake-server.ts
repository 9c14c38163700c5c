import type { InProcessPeer, InProcessServer, InProcessSession } from "../transport/in-process.js";
import { FakeSession } from "./fake-session.js";

export type FakeEra = "modern" | "legacy";

export interface FakeServerOptions {
  /** `serverInfo.name`. Default `"fake"`. */
  name?: string;
  /** `serverInfo.version`. Default `"1.0.0"`. */
  version?: string;
  /** The eras it serves. Default both: `["modern", "legacy"]`. */
  eras?: FakeEra[];
  /** The instructions it gives in the handshake. Default none. */
  instructions?: string;
}

/** What a handler is given besides its arguments. */
export interface FakeContext {
  /** The era of the connection the request came on. */
  era: FakeEra;
  /** Aborts when the client cancels the request (or the connection ends). */
  signal: AbortSignal;
  /** The request's `_meta`, as sent. */
  meta: Record<string, unknown> | undefined;
  /** The answers to the input requests scripted with `fail(..., { inputRequests })`, keyed as asked. */
  inputResponses: Record<string, unknown> | undefined;
  /** Sends `notifications/progress`, when the request asked for progress. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` unless the client asked for a more severe level. */
  log(level: string, data: unknown, logger?: string): void;
}

type Awaitable<T> = T | Promise<T>;
export type ToolHandler = (
  args: Record<string, unknown>,
  ctx: FakeContext,
) => Awaitable<Record<string, unknown> | string>;
export type ResourceHandler = (uri: string, ctx: FakeContext) => Awaitable<Record<string, unknown> | string>;
export type PromptHandler = (
  args: Record<string, string>,
  ctx: FakeContext,
) => Awaitable<Record<string, unknown> | string>;

export interface FakePromptArgument {
  name: string;
  description?: string;
  required?: boolean;
}

/**
 * A fault scripted with `fail(target, fault)`:
 * - `{ error: { code, message, data? } }`: a JSON-RPC error answer;
 * - `{ delay: ms }`: the normal answer, `ms` later (a cancel still aborts it);
 * - `{ hang: true }`: no answer until the client cancels;
 * - `{ isError: true, text? }`: a tool result that says the tool failed;
 * - `{ result }`: this result object as it is (a malformed or oversize one, say);
 * - `{ inputRequests, requestState? }`: ask the client for input first (modern: an
 *   `input_required` result; legacy: requests to the client), then run the handler with the answers;
 * - `{ listChanged: "tools" | "resources" | "prompts" }`: announce a list change, then answer;
 * - `{ close: true }`: hang up the connection (over stdio the process exits).
 */
export type FakeFault =
  | { error: { code: number; message: string; data?: unknown } }
  | { delay: number }
  | { hang: true }
  | { isError: true; text?: string }
  | { result: Record<string, unknown> }
  | {
      inputRequests: Record<string, { method: string; params?: Record<string, unknown> }>;
      requestState?: string;
    }
  | { listChanged: "tools" | "resources" | "prompts" }
  | { close: true };

/** One request the server received, for assertions. `cancelled` turns true when the client cancels it. */
export interface FakeCall {
  method: string;
  params: Record<string, unknown>;
  era: FakeEra;
  cancelled: boolean;
}

export interface FakeTool {
  definition: Record<string, unknown>;
  handler: ToolHandler;
}

export interface FakeResource {
  definition: Record<string, unknown>;
  handler: ResourceHandler;
}

export interface FakePrompt {
  definition: Record<string, unknown>;
  handler: PromptHandler;
}

interface ScriptedFault {
  fault: FakeFault;
  left: number;
}

/**
 * An MCP server for tests, in plain data and functions: tools, resources and prompts from
 * builders, every request recorded in `calls`, and faults scripted with `fail`. Serve it
 * in-process (`transport: { type: "in-process", server }`) or over stdio (`fakeServerCommand`).
 */
export class FakeServer implements InProcessServer {
  readonly info: { name: string; version: string };
  readonly eras: readonly FakeEra[];
  readonly instructions: string | undefined;
  /** Every request received, in order, over every connection. */
  readonly calls: FakeCall[] = [];
  /** Every notification received (cancellations, `initialized`, ...). */
  readonly notifications: Array<{ method: string; params: Record<string, unknown> }> = [];
  readonly tools = new Map<string, FakeTool>();
  readonly resources = new Map<string, FakeResource>();
  readonly prompts = new Map<string, FakePrompt>();
  readonly #faults = new Map<string, ScriptedFault>();
  readonly #sessions = new Set<FakeSession>();

  constructor(options: FakeServerOptions = {}) {
    const eras = options.eras ?? ["modern", "legacy"];
    if (!Array.isArray(eras) || eras.length === 0 || !eras.every((e) => e === "modern" || e === "legacy")) {
      throw new TypeError('conduit-mcp: FakeServer option "eras" must list "modern" and/or "legacy"');
    }
    this.info = { name: options.name ?? "fake", version: options.version ?? "1.0.0" };
    this.eras = [...eras];
    this.instructions = options.instructions;
  }

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

  /**
   * Scripts a fault for `target`: a tool name, a resource uri, a prompt name, or a method
   * (`"tools/list"`, `"server/discover"`). It applies to the next `times` requests (default: all,
   * until `heal`).
   */
  fail(target: string, fault: FakeFault, options: { times?: number } = {}): this {
    if (typeof target !== "string" || target.length === 0)
      throw new TypeError("conduit-mcp: fail() needs a target");
    if (typeof fault !== "object" || fault === null)
      throw new TypeError("conduit-mcp: fail() needs a fault object");
    const times = options.times ?? Number.POSITIVE_INFINITY;
    if (!(times >= 1)) throw new TypeError('conduit-mcp: fail() option "times" must be at least 1');
    this.#faults.set(target, { fault, left: times });
    return this;
  }

  /** Clears the faults of `target`, or every fault. */
  heal(target?: string): this {
    if (target === undefined) this.#faults.clear();
    else this.#faults.delete(target);
    return this;
  }

  /** Announces a list change to every connected client (legacy: at once; modern: on listen streams). */
  notifyListChanged(kind: "tools" | "resources" | "prompts"): void {
    this.#changed(kind);
  }

  /** The requests of one method (and, for tools/call, one tool). */
  callsOf(method: string, name?: string): FakeCall[] {
    return this.calls.filter((c) => c.method === method && (name === undefined || c.params.name === name));
  }

  serveInProcess(peer: InProcessPeer): InProcessSession {
    const session = new FakeSession(this, peer, () => this.#sessions.delete(session));
    this.#sessions.add(session);
    return session;
  }

  /** @internal The fault for `method` or `target`, counted as used. */
  takeFault(method: string, target: string | undefined): FakeFault | undefined {
    for (const key of target === undefined ? [method] : [method, target]) {
      const f = this.#faults.get(key);
      if (!f) continue;
      f.left -= 1;
      if (f.left <= 0) this.#faults.delete(key);
      return f.fault;
    }
    return undefined;
  }

  #changed(kind: "tools" | "resources" | "prompts"): void {
    for (const s of this.#sessions) s.listChanged(kind);
  }
}

function checkName(name: unknown, what: string): void {
  if (typeof name !== "string" || name.length === 0)
    throw new TypeError(`conduit-mcp: a ${what} needs a name`);
}
