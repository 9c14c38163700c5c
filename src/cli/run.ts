import { type Client, type ClientOptions, McpClientError, VERSION } from "../index.js";
import { type Invocation, parseCommandLine, USAGE, UsageError, wantsJson } from "./args.js";
import {
  clientError,
  EXIT,
  internalError,
  libraryMessage,
  listTemplates,
  makeClient,
  type Output,
  PROGRAM,
  scrubbed,
  usageError,
} from "./common.js";
import { cliGovernance } from "./governance.js";
import { runConfigInvocation } from "./hub-run.js";
import { streamTerminal, type Terminal } from "./input.js";
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

  let governance: Partial<ClientOptions>;
  try {
    governance = inv.governance
      ? { governance: cliGovernance(inv.governance, term, (t) => out.stderr(`${PROGRAM}: ${t}\n`)) }
      : {};
  } catch (err) {
    return err instanceof UsageError ? usageError(err, out, inv.json) : internalError(err, out, inv.json);
  }
  const made = makeClient(inv, out, term, {
    // One command, one server: a server that dies is an answer, not something to wait out.
    maxReconnects: 0,
    ...governance,
  });
  if (typeof made === "number") return made;
  const client = made;

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
    case "watch":
      throw new Error("watch is run by runWatch");
  }
}
