/**
 * What a command is: a small module the runner calls with what it opened for the target (a
 * client for one server, a hub for a config file) and the context it made once (output, clock,
 * requester, interrupt). A command returns its answer for the runner to print, or throws: the
 * runner's error ladder reports it.
 */
import type { Client, ClientOptions, Hub } from "../../index.js";
import type { Clock, Span } from "../clock.js";
import type { Output } from "../common.js";
import type { Command, Invocation } from "../invocation.js";
import type { Requester } from "../requester.js";

export interface Context<C extends Command = Command> {
  inv: Invocation;
  command: C;
  out: Output;
  clock: Clock;
  /** The `--timeout` span that began with the command: its first steps share it. */
  span: Span;
  /** One request under the clock, with its progress shown (one-server commands). */
  request: Requester;
  /** The interrupt (SIGINT, SIGTERM, the reader gone). */
  signal: AbortSignal | undefined;
}

/** What a command produced: the JSON document, the human text, and the exit status. */
export interface Answer {
  json: unknown;
  human: string;
  exitCode: number;
  /** A note for stderr (human mode only). */
  note?: string;
}

export interface CommandModule<C extends Command = Command> {
  /** Over one server's client, once it is ready. */
  client(client: Client, ctx: Context<C>): Promise<Answer>;
  /** Over a config file's hub, once it is ready; absent for a command that needs `--server`. */
  hub?(hub: Hub, ctx: Context<C>): Promise<Answer>;
}

/**
 * A command that stays (watch): it starts the client itself (listening before the handshake),
 * prints as it goes and resolves with the exit status; an interrupt ends it as a success. A
 * failure that ends it is thrown for the runner to report.
 */
export interface StayingCommand<C extends Command = Command> {
  stays: true;
  /** Options of the client this command needs (reconnects, health checks). */
  clientOptions(command: C): Partial<ClientOptions>;
  client(client: Client, ctx: Context<C>): Promise<number>;
}

/** The command of a given name. */
export type CommandOf<N extends Command["name"]> = Extract<Command, { name: N }>;
