import { describe, expect, it } from "vitest";
import { Client, OptionError } from "../src/index.js";

/** Option mistakes are TypeErrors that name the option and the problem, so callers need no regex. */
describe("OptionError", () => {
  it("an ill-typed option: a TypeError naming the option and what it must be", () => {
    let caught: unknown;
    try {
      new Client({ name: "t", transport: { type: "stdio", command: "node" }, requestTimeout: -1 } as never);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TypeError);
    expect(caught).toBeInstanceOf(OptionError);
    const e = caught as OptionError;
    expect(e.option).toBe("requestTimeout");
    expect(e.problem).toBe("invalid");
    expect(e.expected).toBe("an integer >= 1");
    expect(e.message).toBe('conduit-mcp: option "requestTimeout" must be an integer >= 1');
  });

  it("an unknown option, a reserved header and insecure credentials each say which", () => {
    const problem = (options: unknown): [string, string] => {
      try {
        new Client(options as never);
      } catch (err) {
        if (err instanceof OptionError) return [err.option, err.problem];
        throw err;
      }
      throw new Error("no error");
    };
    expect(problem({ name: "t", transport: { type: "stdio", command: "node" }, nope: 1 })).toEqual([
      "nope",
      "unknown",
    ]);
    expect(
      problem({
        name: "t",
        transport: { type: "http", url: "https://x.test/mcp", headers: { authorization: "a" } },
      }),
    ).toEqual(["transport.headers.authorization", "reserved"]);
    expect(
      problem({ name: "t", transport: { type: "http", url: "http://x.test/mcp", auth: { bearer: "tok" } } }),
    ).toEqual(["transport.auth", "insecure"]);
  });
});
