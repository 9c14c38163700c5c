/**
 * The one runner for a target (one server, a config file's hub, a watch): it owns the terminal,
 * governance, the clock, the interrupt and the error ladder, and calls the command's module
 * (commands/) with what it opened. Exit codes and messages are the ladder's (failure.ts).
 */
import type { Client, Hub } from "../index.js";
import { Clock } from "./clock.js";
import type { Answer, CommandModule, Context, StayingCommand } from "./commands/command.js";
import { moduleFor } from "./commands/index.js";
import { internalError, type Output, PROGRAM, usageError } from "./common.js";
import { makeClient, makeHub, type Opening } from "./connect.js";
import { interrupted, reportFailure } from "./failure.js";
import { governanceOption } from "./governance.js";
import { type AskingHooks, streamTerminal, type Terminal } from "./input.js";
import { type Invocation, UsageError } from "./invocation.js";
import { progressMode } from "./progress.js";
import { jsonDocument } from "./render.js";
import type { Phase } from "./report.js";
import { requests } from "./requester.js";
import { type Resolved, resolveTarget } from "./target.js";

/**
 * Runs the invocation's command against its target and returns the exit status; never throws.
 * `terminal` is where server input is asked; by default the process's stdin and stderr when
 * stdin is a terminal, else none (every elicitation is declined).
 */
export async function runTarget(
  invocation: Invocation,
  output: Output,
  signal: AbortSignal | undefined,
  terminal: Terminal | null | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const target = resolveTarget(invocation, output, env);
  if (typeof target === "number") return target;
  const ownTerminal =
    terminal === undefined && process.stdin.isTTY ? streamTerminal(process.stdin, process.stderr) : undefined;
  try {
    return await run(target, terminal === undefined ? (ownTerminal ?? null) : terminal, signal, env);
  } finally {
    ownTerminal?.close();
  }
}

async function run(
  target: Resolved,
  terminal: Terminal | null,
  signal: AbortSignal | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const { inv, out } = target;
  const clock = new Clock(inv);
  let extra: Opening["extra"];
  try {
    extra = governanceOption(inv.governance, terminal, (text) => out.stderr(`${PROGRAM}: ${text}\n`));
  } catch (err) {
    return err instanceof UsageError ? usageError(err, out, inv.json) : internalError(err, out, inv.json);
  }
  const opening: Opening<Invocation> = { inv, out, clock, terminal, extra, env };
  const mode = progressMode({
    json: inv.json,
    progress: inv.progress,
    stderrIsTerminal: out.stderrIsTerminal === true,
  });
  const { request, asking } = requests(clock, mode, (text) => out.stderr(text), signal);
  const context = (): Context => ({
    inv,
    command: inv.command,
    out,
    clock,
    span: clock.span(),
    request,
    signal,
  });

  const module = moduleFor(inv.command);
  if ("stays" in module) return stay(module, opening, context);
  return answer(module, target, opening, context, asking);
}

/**
 * A watch: it listens before its handshake, ends on an interrupt with success, and throws what
 * ended it otherwise.
 */
async function stay(
  module: StayingCommand,
  opening: Opening<Invocation>,
  context: () => Context,
): Promise<number> {
  const { inv, out } = opening;
  const client = makeClient(opening, module.clientOptions(inv.command));
  if (typeof client === "number") return client;
  try {
    return await module.client(client, context());
  } catch (err) {
    return reportFailure(err, out, inv, "handshake");
  } finally {
    await client.close();
  }
}

/** A command with one answer: the session made ready, the command run, its answer printed. */
async function answer(
  module: CommandModule,
  target: Resolved,
  opening: Opening<Invocation>,
  context: () => Context,
  asking: AskingHooks,
): Promise<number> {
  const { inv, out } = opening;
  // A hub's command is one span from before its servers start: its start and the command share
  // --timeout. One server's handshake has its --timeout from once the client exists.
  const hubContext = target.kind === "hub" ? context() : undefined;
  const session: Client | Hub | number =
    target.kind === "hub"
      ? // One command: a server that dies is an answer, not something to wait out or restart.
        makeHub(opening, target.servers, { client: { maxReconnects: 0, onGiveUp: "stop" } })
      : // One command, one server: a server that dies is an answer, not something to wait out.
        makeClient(opening, { maxReconnects: 0 }, asking);
  if (typeof session === "number") return session;
  const ctx = hubContext ?? context();
  const signal = ctx.signal;
  // Interrupting closes the session, which fails whatever is waiting with `closed`.
  const onAbort = () => void session.close();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) onAbort();
  // A hub's failures are told as a request's, its start included (a hub has no one handshake).
  let phase: Phase = target.kind === "hub" ? "request" : "handshake";
  try {
    await session.ready({ timeout: ctx.span.left() });
    phase = "request";
    let answer: Answer;
    if (target.kind === "one") answer = await module.client(session as Client, ctx);
    else if (module.hub) answer = await module.hub(session as Hub, ctx);
    else throw new Error(`${inv.command.name} does not run over a config file's servers`);
    if (inv.json) out.stdout(jsonDocument(answer.json));
    else {
      out.stdout(answer.human);
      if (answer.note) out.stderr(`${PROGRAM}: ${answer.note}\n`);
    }
    return answer.exitCode;
  } catch (err) {
    if (signal?.aborted) return interrupted(out, inv.json);
    return reportFailure(err, out, inv, phase);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    await session.close();
  }
}
