import { basename } from "node:path";
import { Client, type JsonObject, McpClientError, sanitizeText, VERSION } from "../index.js";
import { type Invocation, parseCommandLine, USAGE, UsageError, wantsJson } from "./args.js";
import { cliHandler, streamTerminal, type Terminal } from "./input.js";
import {
  jsonDocument,
  renderInfo,
  renderPromptResult,
  renderPrompts,
  renderReadResult,
  renderResources,
  renderToolResult,
  renderTools,
  toolResultJson,
  withoutResultType,
  withoutServerId,
} from "./render.js";

export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  client: 3,
  interrupted: 130,
  /** A bug in this program, not a problem with the server or the command line. */
  internal: 70,
} as const;

/** Where output goes; the tests and main.ts each provide one. */
export interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const PROGRAM = "conduit-mcp";

/**
 * Runs one command line to completion and returns the exit status. Never throws. `terminal` is
 * where server input is asked; by default the process's stdin and stderr when stdin is a
 * terminal, else none (every elicitation is declined).
 */
export async function runCli(
  argv: readonly string[],
  out: Output,
  signal?: AbortSignal,
  terminal?: Terminal | null,
): Promise<number> {
  const json = wantsJson(argv);
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) return internalError(err, out, json);
    return usageError(err, out, json);
  }
  switch (parsed.kind) {
    case "help":
      out.stdout(USAGE);
      return EXIT.ok;
    case "version":
      out.stdout(parsed.json ? jsonDocument({ name: PROGRAM, version: VERSION }) : `${PROGRAM} ${VERSION}\n`);
      return EXIT.ok;
    case "run":
      return runInvocation(parsed.invocation, out, signal, terminal);
  }
}

function usageError(err: UsageError, out: Output, json: boolean): number {
  out.stderr(`${PROGRAM}: ${err.message}\nRun '${PROGRAM} --help' for usage.\n`);
  if (json) out.stdout(jsonDocument({ error: { kind: "usage", reason: err.reason, message: err.message } }));
  return EXIT.usage;
}

function internalError(err: unknown, out: Output, json: boolean): number {
  const message = sanitizeText(`internal error: ${err instanceof Error ? err.message : String(err)}`, {
    maxLength: 500,
  });
  out.stderr(`${PROGRAM}: ${message}\n`);
  if (json) out.stdout(jsonDocument({ error: { kind: "internal", reason: null, message } }));
  return EXIT.internal;
}

/** A library TypeError's message without its own "conduit-mcp: " prefix, which we add anyway. */
function libraryMessage(err: TypeError): string {
  return err.message.replace(/^conduit-mcp: /, "");
}

/** What a command produced: the JSON document, the human text, and the exit status. */
interface Outcome {
  json: unknown;
  human: string;
  exitCode: number;
  /** A note for stderr (human mode only). */
  note?: string;
}

export async function runInvocation(
  inv: Invocation,
  out: Output,
  signal?: AbortSignal,
  terminal?: Terminal | null,
): Promise<number> {
  const deadline = Date.now() + inv.timeout;
  const remaining = () => Math.max(1, deadline - Date.now());
  const ownTerminal =
    terminal === undefined && process.stdin.isTTY ? streamTerminal(process.stdin, process.stderr) : undefined;
  const term = terminal === undefined ? (ownTerminal ?? null) : terminal;

  let client: Client;
  try {
    client = new Client({
      name: PROGRAM,
      serverId: serverLabel(inv),
      transport: { type: "stdio", command: inv.target.command, args: inv.target.args },
      protocol: inv.protocol,
      requestTimeout: inv.timeout,
      // One command, one server: a server that dies is an answer, not something to wait out.
      maxReconnects: 0,
      // Forms and links are asked on the terminal (declined without one); --root gives roots.
      handler: cliHandler({
        roots: inv.roots,
        terminal: term,
        note: (text) => out.stderr(`${PROGRAM}: ${text}\n`),
      }),
      // A person answering a form takes longer than a server answering a request.
      handlerTimeout: { elicitation: inv.timeout },
      // stdout carries the answer (one JSON document with --json); warnings belong on stderr.
      logger: {
        warn: (message) => out.stderr(`${PROGRAM}: warning: ${message}\n`),
        error: (message) => out.stderr(`${PROGRAM}: error: ${message}\n`),
      },
    });
  } catch (err) {
    // The library validates the server command line before any I/O (e.g. whitespace in the name).
    if (err instanceof TypeError) {
      const detail = libraryMessage(err);
      return usageError(new UsageError("bad_server", `bad server command line: ${detail}`), out, inv.json);
    }
    return internalError(err, out, inv.json);
  }

  // Interrupting closes the client, which fails whatever is waiting with `closed`.
  const onAbort = () => void client.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  try {
    await client.ready({ timeout: remaining() });
    const outcome = await execute(client, inv, () => ({ timeout: remaining(), signal }));
    if (inv.json) out.stdout(jsonDocument(outcome.json));
    else {
      out.stdout(outcome.human);
      if (outcome.note) out.stderr(`${PROGRAM}: ${outcome.note}\n`);
    }
    return outcome.exitCode;
  } catch (err) {
    if (signal?.aborted) {
      out.stderr(`${PROGRAM}: interrupted\n`);
      if (inv.json)
        out.stdout(jsonDocument({ error: { kind: "interrupted", reason: null, message: "interrupted" } }));
      return EXIT.interrupted;
    }
    if (err instanceof McpClientError) return clientError(err, out, inv.json);
    if (err instanceof TypeError) {
      return usageError(new UsageError("bad_arguments", libraryMessage(err)), out, inv.json);
    }
    return internalError(err, out, inv.json);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    ownTerminal?.close();
    await client.close();
  }
}

async function execute(
  client: Client,
  inv: Invocation,
  requestOptions: () => { timeout: number; signal: AbortSignal | undefined },
): Promise<Outcome> {
  const command = inv.command;
  switch (command.name) {
    case "info": {
      const description = client.serverInfo();
      return { json: description, human: renderInfo(description), exitCode: EXIT.ok };
    }
    case "tools": {
      const tools = await client.listAllTools(requestOptions());
      return { json: { tools: tools.map(withoutServerId) }, human: renderTools(tools), exitCode: EXIT.ok };
    }
    case "call": {
      const result = await client.callTool(command.tool, command.arguments, requestOptions());
      return {
        json: toolResultJson(result),
        human: renderToolResult(result),
        exitCode: result.isError ? EXIT.toolError : EXIT.ok,
        ...(result.isError ? { note: "the tool reported an error (isError)" } : {}),
      };
    }
    case "resources": {
      const [resources, templates] = await Promise.all([
        client.listAllResources(requestOptions()),
        listTemplates(client, requestOptions()),
      ]);
      return {
        json: {
          resources: resources.map(withoutServerId),
          resourceTemplates: templates.map(withoutServerId),
        },
        human: renderResources(resources, templates),
        exitCode: EXIT.ok,
      };
    }
    case "read": {
      const result = withoutResultType(await client.readResource(command.uri, requestOptions()));
      return { json: result, human: renderReadResult(result), exitCode: EXIT.ok };
    }
    case "prompts": {
      const prompts = await client.listAllPrompts(requestOptions());
      return {
        json: { prompts: prompts.map(withoutServerId) },
        human: renderPrompts(prompts),
        exitCode: EXIT.ok,
      };
    }
    case "prompt": {
      const result = withoutResultType(
        await client.getPrompt(command.prompt, command.arguments, requestOptions()),
      );
      return { json: result, human: renderPromptResult(result), exitCode: EXIT.ok };
    }
  }
}

/** Templates are optional for a server with resources: "method not found" means none. */
async function listTemplates(client: Client, options: { timeout: number; signal: AbortSignal | undefined }) {
  try {
    return await client.listAllResourceTemplates(options);
  } catch (err) {
    if (McpClientError.is(err, "protocol") && isMethodNotFound(err)) return [];
    throw err;
  }
}

function isMethodNotFound(err: McpClientError): boolean {
  const reason = err.reason;
  return (
    typeof reason === "object" && reason !== null && (reason as { jsonrpc?: unknown }).jsonrpc === -32601
  );
}

/** How warnings name the server: `node server.mjs`, not the whole command line (it may hold tokens). */
function serverLabel(inv: Invocation): string {
  const [first] = inv.target.args;
  const parts = [basename(inv.target.command)];
  if (first !== undefined && !first.startsWith("-")) parts.push(basename(first));
  return parts.join(" ");
}

/** Short explanations for the reasons a person is most likely to meet. */
const HINTS: Record<string, string> = {
  command_not_found: "the server command was not found",
  server_exited: "the server exited; its own messages, if any, are above",
  not_ready: "the server did not finish the handshake within --timeout",
  deadline_exceeded: "the server did not answer within --timeout",
};

function clientError(err: McpClientError, out: Output, json: boolean): number {
  if (json) {
    out.stdout(jsonDocument({ error: err.toJSON() }));
    out.stderr(`${PROGRAM}: ${err.message}\n`);
    return EXIT.client;
  }
  // A `closed` error wraps what closed the connection; show that too, and what the server said.
  const cause = err.cause instanceof McpClientError ? err.cause : undefined;
  const hint = typeof err.reason === "string" ? HINTS[err.reason] : undefined;
  const serverMessage = serverSaid(err) ?? (cause && serverSaid(cause));
  const details = [
    hint,
    // The reason names only the cause's kind when its own reason was not a plain code.
    cause && err.reason === cause.kind ? `after ${cause.message}` : undefined,
    serverMessage ? `server said: ${serverMessage}` : undefined,
  ].filter(Boolean);
  out.stderr(`${PROGRAM}: ${err.message}${details.length > 0 ? ` (${details.join("; ")})` : ""}\n`);
  return EXIT.client;
}

/** The server's own message of a JSON-RPC error, which the library keeps in `data`. */
function serverSaid(err: McpClientError): string | undefined {
  const data = err.data as JsonObject | undefined;
  if (typeof data !== "object" || data === null || typeof data.message !== "string" || !data.message) return;
  return sanitizeText(data.message, { maxLength: 200 });
}
