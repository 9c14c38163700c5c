/**
 * An option mistake: a `TypeError` (as design.md promises for option validation) that also says
 * which option and what was wrong, so a program (the CLI) can tell option errors apart and
 * explain them in its own terms without reading the message.
 */

/** What was wrong with the option. The compiler checks every use against this table. */
export const OPTION_PROBLEMS = {
  /** The value has the wrong type or is out of range. */
  invalid: "the value is not what the option takes",
  /** The key is not an option here. */
  unknown: "no option has this name",
  /** A header the transport sets itself (authorization, mcp-*, accept...). */
  reserved: "the transport owns this header",
  /** Credentials that would go over plain http:// to a host that is not loopback. */
  insecure: "credentials need https",
} as const;

export type OptionProblem = keyof typeof OPTION_PROBLEMS;

export class OptionError extends TypeError {
  /** The option's full path, as the caller spells it (`transport.headers.x-api-key`). */
  readonly option: string;
  /** What the option must be, in words (`"a positive integer"`); empty for an unknown option. */
  readonly expected: string;
  readonly problem: OptionProblem;

  constructor(option: string, problem: OptionProblem, expected = "") {
    super(
      problem === "unknown"
        ? `conduit-mcp: unknown option "${option}"`
        : `conduit-mcp: option "${option}" must be ${expected}`,
    );
    this.option = option;
    this.problem = problem;
    this.expected = expected;
  }
}
