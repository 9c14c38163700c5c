/**
 * The error ladder: how whatever ended a command becomes its report and its exit status. The
 * runner is its one caller; a command that knows more about a failure (what the server said,
 * a hint in its own terms) throws a `Failure` that carries it.
 */
import { McpClientError } from "../index.js";
import { EXIT, internalError, libraryMessage, type Output, PROGRAM, usageError } from "./common.js";
import { type Invocation, UsageError } from "./invocation.js";
import { jsonDocument } from "./render.js";
import { clientError, type ErrorContext, type Phase } from "./report.js";

/** What a command adds to the report of an error. */
export type Told = Partial<Pick<ErrorContext, "phase" | "hint" | "serverText" | "extra">>;

/**
 * A failure as the command that met it tells it: a client error with more to say, or (watch,
 * whose every end is its own) anything else, which is then an internal error.
 */
export class Failure extends Error {
  constructor(
    readonly error: unknown,
    readonly told: Told = {},
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

/** Interrupted (SIGINT, SIGTERM): exit 130, after the client was closed. */
export function interrupted(out: Output, json: boolean): number {
  out.stderr(`${PROGRAM}: interrupted\n`);
  if (json)
    out.stdout(jsonDocument({ error: { kind: "interrupted", reason: null, message: "interrupted" } }));
  return EXIT.interrupted;
}

/**
 * Reports `err` and returns the exit status: a client error 3, a library TypeError about the
 * arguments 2, anything else 70. `phase` is where it arose unless the failure says otherwise.
 */
export function reportFailure(err: unknown, out: Output, inv: Invocation, phase: Phase): number {
  if (err instanceof Failure) {
    const { error, told } = err;
    if (!(error instanceof McpClientError)) return internalError(error, out, inv.json);
    return clientError(error, out, inv.json, { ...told, phase: told.phase ?? phase, inv });
  }
  if (err instanceof McpClientError) return clientError(err, out, inv.json, { phase, inv });
  if (err instanceof TypeError) {
    return usageError(new UsageError("bad_arguments", libraryMessage(err)), out, inv.json);
  }
  return internalError(err, out, inv.json);
}
