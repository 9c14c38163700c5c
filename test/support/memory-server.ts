/**
 * A scripted legacy MCP server inside the test process, as a `Transport`: cheap enough to put 20
 * of them behind one hub, and able to misbehave on cue (a listing that never answers, a crash).
 * It speaks JSON-RPC by hand, like test/fixtures/scripted-server.mjs, not through our code.
 */
import type { JsonRpcMessage, Transport, TransportSink } from "../../src/index.js";

export interface MemoryTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface MemoryServerOptions {
  tools?: MemoryTool[];
  /** Declare `tools.listChanged` (default true); false: a server that never says its tools changed. */
  announces?: boolean;
  /** Never answer `tools/list`. */
  hangList?: boolean;
  /** Answer nothing at all (the handshake neither). */
  silent?: boolean;
  instructions?: string;
  /** Also serve these resources and prompts. */
  resources?: Array<{ uri: string; name: string; text?: string }>;
  prompts?: Array<{ name: string; description?: string }>;
}

export class MemoryServer implements Transport {
  readonly kind = "in_process";
  readonly options: MemoryServerOptions;
  tools: MemoryTool[];
  /** Every request's method, in order (tools/call as `tools/call <name>`). */
  readonly requests: string[] = [];
  /** Starts refused (the server is "down") while true. */
  refuseStarts = false;
  /** How many times the client closed this transport. */
  closes = 0;
  #sink: TransportSink | undefined;

  constructor(options: MemoryServerOptions = {}) {
    this.options = options;
    this.tools = options.tools ?? [{ name: "echo", description: "Echoes", inputSchema: { type: "object" } }];
  }

  count(method: string): number {
    return this.requests.filter((m) => m === method).length;
  }

  /** How many times the client started this transport (refused starts included). */
  starts = 0;

  async start(sink: TransportSink): Promise<void> {
    this.starts += 1;
    if (this.refuseStarts) {
      const { McpClientError } = await import("../../src/index.js");
      throw new McpClientError("transport", "in_process_start_failed");
    }
    this.#sink = sink;
  }

  async close(): Promise<void> {
    this.closes += 1;
    const sink = this.#sink;
    this.#sink = undefined;
    sink?.closed();
  }

  /** Ends the connection as a crash would. */
  crash(): void {
    const sink = this.#sink;
    this.#sink = undefined;
    void import("../../src/index.js").then(({ McpClientError }) =>
      sink?.closed(new McpClientError("transport", "server_exited")),
    );
  }

  /** Tells the client that the tools changed. */
  listChanged(): void {
    this.#send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  }

  send(message: JsonRpcMessage): void {
    const m = message as { id?: number | string; method?: string; params?: Record<string, unknown> };
    if (m.method === undefined || m.id === undefined) return; // responses and notifications
    const name = m.method === "tools/call" ? ` ${String(m.params?.name)}` : "";
    this.requests.push(`${m.method}${name}`);
    if (this.options.silent) return;
    const id = m.id;
    const ok = (result: Record<string, unknown>) => this.#send({ jsonrpc: "2.0", id, result });
    const err = (code: number, message: string) =>
      this.#send({ jsonrpc: "2.0", id, error: { code, message } });
    switch (m.method) {
      case "initialize":
        return ok({
          protocolVersion: "2025-11-25",
          capabilities: {
            tools: this.options.announces === false ? {} : { listChanged: true },
            ...(this.options.resources ? { resources: {} } : {}),
            ...(this.options.prompts ? { prompts: {} } : {}),
          },
          serverInfo: { name: "memory", version: "1.0.0" },
          ...(this.options.instructions ? { instructions: this.options.instructions } : {}),
        });
      case "ping":
        return ok({});
      case "tools/list":
        if (this.options.hangList) return;
        return ok({ tools: this.tools.map((t) => ({ inputSchema: { type: "object" }, ...t })) });
      case "tools/call": {
        const tool = String(m.params?.name);
        if (!this.tools.some((t) => t.name === tool)) return err(-32602, `Unknown tool: ${tool}`);
        if (tool === "hang") return; // never answers
        return ok({
          content: [{ type: "text", text: `${tool}:${JSON.stringify(m.params?.arguments ?? {})}` }],
        });
      }
      case "resources/list":
        return ok({ resources: (this.options.resources ?? []).map(({ uri, name }) => ({ uri, name })) });
      case "resources/read": {
        const r = this.options.resources?.find((x) => x.uri === m.params?.uri);
        return r ? ok({ contents: [{ uri: r.uri, text: r.text ?? "" }] }) : err(-32002, "Resource not found");
      }
      case "prompts/list":
        return ok({ prompts: this.options.prompts ?? [] });
      case "prompts/get":
        return ok({
          messages: [{ role: "user", content: { type: "text", text: `prompt ${String(m.params?.name)}` } }],
        });
      default:
        return err(-32601, "Method not found");
    }
  }

  #send(message: Record<string, unknown>): void {
    const sink = this.#sink;
    if (!sink) return;
    queueMicrotask(() => sink.message(message as unknown as JsonRpcMessage));
  }
}
