import { governance } from "../governance/index.js";
import {
  type Client,
  type ClientOptions,
  McpClientError,
  type ProgressParams,
  sanitizeText,
  type ToolResult,
  VERSION,
} from "../index.js";
import { parseCommandLine, wantsJson } from "./args.js";
import {
  EXIT,
  internalError,
  isMethodNotFound,
  libraryMessage,
  listTemplates,
  makeClient,
  type Output,
  PROGRAM,
  scrubbed,
  usageError,
} from "./common.js";
import { Deadline } from "./deadline.js";
import { cliGovernance } from "./governance.js";
import { runConfigInvocation } from "./hub-run.js";
import { type AskingHooks, streamTerminal, type Terminal } from "./input.js";
import { type Invocation, UsageError } from "./invocation.js";
import { runLogin, runLogout } from "./login.js";
import { ProgressDisplay, progressMode } from "./progress.js";
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
import { clientError, type Phase } from "./report.js";
import { USAGE } from "./usage.js";
import { runWatch } from "./watch.js";

export { EXIT, type Output } from "./common.js";

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
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  // login/logout have their own small grammar (src/cli/login.ts).
  if (argv[0] === "login") return runLogin(argv.slice(1), out, signal, env);
  if (argv[0] === "logout") return runLogout(argv.slice(1), out, env);
  const json = wantsJson(argv);
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, env);
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
    case "run": {
      const inv = parsed.invocation;
      if (inv.target.kind === "config") {
        return runConfigInvocation(inv, out, signal, terminal, env, {
          single: runInvocation,
          watch: runWatch,
        });
      }
      // Whatever a server echoes, the token never reaches the terminal or a log.
      const guarded =
        inv.target.kind === "http" && inv.target.bearer
          ? scrubbed(out, inv.target.bearer.token.reveal())
          : out;
      return inv.command.name === "watch"
        ? runWatch(inv, guarded, signal, terminal)
        : runInvocation(inv, guarded, signal, terminal);
    }
  }
}

/** What a command produced: the JSON document, the human text, and the exit status. */
interface Outcome {
  json: unknown;
  human: string;
  exitCode: number;
  /** A note for stderr (human mode only). */
  note?: string;
}

/**
 * The library's own timeout for a request the CLI times itself (see deadline.ts): setTimeout's
 * ceiling, so that only the CLI's deadline, which stops while the user is asked, ends it.
 */
const LIBRARY_TIMEOUT = 2_147_483_647;

/** Runs one request under its own deadline, with progress shown; the options go to the library. */
type Requester = <T>(
  send: (options: {
    timeout: number;
    signal: AbortSignal;
    onProgress: (p: ProgressParams) => void;
  }) => Promise<T>,
) => Promise<T>;

export async function runInvocation(
  inv: Invocation,
  out: Output,
  signal?: AbortSignal,
  terminal?: Terminal | null,
): Promise<number> {
  const ownTerminal =
    terminal === undefined && process.stdin.isTTY ? streamTerminal(process.stdin, process.stderr) : undefined;
  const term = terminal === undefined ? (ownTerminal ?? null) : terminal;

  // The request in flight: its deadline stops, and its progress bar is erased, while the user
  // is being asked.
  let current: { deadline: Deadline; progress: ProgressDisplay } | null = null;
  const asking: AskingHooks = {
    begin: () => {
      current?.progress.clear();
      current?.deadline.beginAsking();
    },
    end: () => current?.deadline.endAsking(),
  };
  let governed: Partial<ClientOptions>;
  try {
    governed = inv.governance
      ? {
          interceptors: [
            governance(cliGovernance(inv.governance, term, (t) => out.stderr(`${PROGRAM}: ${t}\n`))),
          ],
        }
      : {};
  } catch (err) {
    return err instanceof UsageError ? usageError(err, out, inv.json) : internalError(err, out, inv.json);
  }
  const made = makeClient(
    inv,
    out,
    term,
    {
      // One command, one server: a server that dies is an answer, not something to wait out.
      maxReconnects: 0,
      ...governed,
    },
    asking,
  );
  if (typeof made === "number") return made;
  const client = made;

  const mode = progressMode({
    json: inv.json,
    progress: inv.progress,
    stderrIsTerminal: out.stderrIsTerminal === true,
  });
  const request: Requester = async (send) => {
    const deadline = new Deadline(inv.timeout, inv.maxTime);
    const progress = new ProgressDisplay(mode, (text) => out.stderr(text));
    current = { deadline, progress };
    const signals = signal ? [deadline.signal, signal] : [deadline.signal];
    try {
      return await send({
        timeout: LIBRARY_TIMEOUT,
        signal: AbortSignal.any(signals),
        onProgress: (p) => {
          deadline.renew();
          progress.update(p);
        },
      });
    } finally {
      deadline.dispose();
      progress.clear();
      current = null;
    }
  };

  // Interrupting closes the client, which fails whatever is waiting with `closed`.
  const onAbort = () => void client.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  let phase: Phase = "handshake";
  try {
    await client.ready({ timeout: inv.timeout });
    phase = "request";
    const outcome = await execute(client, inv, request);
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
    if (err instanceof McpClientError) return clientError(err, out, inv.json, { phase, inv });
    if (err instanceof UnknownTool) {
      return clientError(err.error, out, inv.json, { phase, inv, serverText: err.serverText });
    }
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

/** An unknown tool the server answered with an `isError` result: its text is what it said. */
class UnknownTool extends Error {
  constructor(
    readonly error: McpClientError,
    readonly serverText: string | undefined,
  ) {
    super(error.message);
  }
}

/** Whether the server declares a capability (`resources`, `prompts`, `tools`). */
function offers(client: Client, capability: string): boolean {
  const value = client.serverInfo().capabilities[capability];
  return typeof value === "object" && value !== null;
}

/**
 * A list the server may not offer: none when it does not declare the capability or answers
 * "method not found" (-32601), as watch does; any other failure stands.
 */
async function offered<T>(client: Client, capability: string, list: () => Promise<T[]>): Promise<T[] | null> {
  if (!offers(client, capability)) return null;
  try {
    return await list();
  } catch (err) {
    if (McpClientError.is(err, "protocol") && isMethodNotFound(err)) return null;
    throw err;
  }
}

/**
 * Whether the server's listing of `capability` lacks `name` (a server that lists none of them lacks
 * it); `false` when the listing cannot be had, so that the failure's own answer stands.
 */
async function unlisted(
  client: Client,
  capability: "tools" | "prompts",
  name: string,
  request: Requester,
): Promise<boolean> {
  let items: Array<{ name: string }> | null;
  try {
    items = await offered<{ name: string }>(client, capability, () =>
      request<Array<{ name: string }>>((o) =>
        capability === "tools" ? client.listAllTools(o) : client.listAllPrompts(o),
      ),
    );
  } catch {
    return false;
  }
  return !items?.some((i) => i.name === name);
}

/**
 * One rule for a tool the server does not have, however the server says so (a JSON-RPC error
 * in one, an `isError` result in another): a client error, `not_found: unknown_tool`, exit 3.
 * Asked only after a failed call, so a working call costs no listing.
 */
async function unknownTool(
  client: Client,
  name: string,
  request: Requester,
  failure: McpClientError | ToolResult,
): Promise<McpClientError | null> {
  if (!(await unlisted(client, "tools", name, request))) return null;
  return new McpClientError(
    "not_found",
    "unknown_tool",
    undefined,
    failure instanceof McpClientError ? { cause: failure } : undefined,
  );
}

/** JSON-RPC codes a server answers an unknown resource with: -32602 (2026-07-28), -32002 (before). */
const RESOURCE_NOT_FOUND = new Set([-32602, -32002]);

/**
 * A resource the server does not have, as the unknown tool rule says it: `not_found:
 * unknown_resource`, the server's error as cause. The spec has a server answer a missing
 * resource with -32602 (earlier -32002), and a read takes no other params to be invalid.
 */
function unknownResource(err: McpClientError): McpClientError | null {
  const code = err.detail !== undefined && "jsonrpc" in err.detail ? err.detail.jsonrpc : undefined;
  if (code === undefined || !RESOURCE_NOT_FOUND.has(code)) return null;
  return new McpClientError("not_found", "unknown_resource", undefined, { cause: err });
}

/**
 * A prompt the server does not have (its -32602 also means missing arguments, so the listing
 * decides): `not_found: unknown_prompt`, the server's error as cause.
 */
async function unknownPrompt(
  client: Client,
  name: string,
  request: Requester,
  failure: McpClientError,
): Promise<McpClientError | null> {
  if (!(await unlisted(client, "prompts", name, request))) return null;
  return new McpClientError("not_found", "unknown_prompt", undefined, { cause: failure });
}

/** The first text block of an `isError` result, as the server's own words for a failure. */
function resultText(result: ToolResult): string | undefined {
  for (const block of result.content) {
    const b = block as { type?: unknown; text?: unknown };
    if (b.type === "text" && typeof b.text === "string" && b.text.trim()) {
      return sanitizeText(b.text, { maxLength: 200 });
    }
  }
  return undefined;
}

async function execute(client: Client, inv: Invocation, request: Requester): Promise<Outcome> {
  const command = inv.command;
  switch (command.name) {
    case "info": {
      const description = client.serverInfo();
      return { json: description, human: renderInfo(description), exitCode: EXIT.ok };
    }
    case "tools": {
      const tools = await request((o) => client.listAllTools(o));
      return { json: { tools: tools.map(withoutServerId) }, human: renderTools(tools), exitCode: EXIT.ok };
    }
    case "call": {
      let result: ToolResult;
      try {
        result = await request((o) => client.callTool(command.tool, command.arguments, o));
      } catch (err) {
        if (McpClientError.is(err, "protocol"))
          throw (await unknownTool(client, command.tool, request, err)) ?? err;
        throw err;
      }
      if (result.isError) {
        const unknown = await unknownTool(client, command.tool, request, result);
        if (unknown) throw new UnknownTool(unknown, resultText(result));
      }
      return {
        json: toolResultJson(result),
        human: renderToolResult(result),
        exitCode: result.isError ? EXIT.toolError : EXIT.ok,
        ...(result.isError ? { note: "the tool reported an error (isError)" } : {}),
      };
    }
    case "resources": {
      const resources = await offered(client, "resources", () => request((o) => client.listAllResources(o)));
      if (resources === null) {
        return {
          json: { resources: [], resourceTemplates: [] },
          human: "(no resources: the server offers none)\n",
          exitCode: EXIT.ok,
        };
      }
      const templates = await request((o) => listTemplates(client, o));
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
      let read: Awaited<ReturnType<Client["readResource"]>>;
      try {
        read = await request((o) => client.readResource(command.uri, o));
      } catch (err) {
        throw (McpClientError.is(err, "protocol") && unknownResource(err)) || err;
      }
      const result = withoutResultType(read);
      return { json: result, human: renderReadResult(result), exitCode: EXIT.ok };
    }
    case "prompts": {
      const prompts = await offered(client, "prompts", () => request((o) => client.listAllPrompts(o)));
      if (prompts === null) {
        return { json: { prompts: [] }, human: "(no prompts: the server offers none)\n", exitCode: EXIT.ok };
      }
      return {
        json: { prompts: prompts.map(withoutServerId) },
        human: renderPrompts(prompts),
        exitCode: EXIT.ok,
      };
    }
    case "prompt": {
      let got: Awaited<ReturnType<Client["getPrompt"]>>;
      try {
        got = await request((o) => client.getPrompt(command.prompt, command.arguments, o));
      } catch (err) {
        if (McpClientError.is(err, "protocol"))
          throw (await unknownPrompt(client, command.prompt, request, err)) ?? err;
        throw err;
      }
      const result = withoutResultType(got);
      return { json: result, human: renderPromptResult(result), exitCode: EXIT.ok };
    }
    case "watch":
      throw new Error("watch is run by runWatch");
  }
}
