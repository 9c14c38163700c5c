/**
 * The CLI in a pseudo-terminal against server-everything, as a person meets it: a long call
 * that reports progress, and the 13-field form answered slowly. The two faithful cases (40 s and
 * 35 s) run side by side, so the file takes about as long as the longer one.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, type TestContext } from "vitest";
import { EVERYTHING_SERVER } from "./support/index.js";
import { Pty } from "./support/pty.js";

const everything = ["--", process.execPath, EVERYTHING_SERVER, "stdio"];
/** A terminal stopped when its own test ends (the tests run side by side: the test's context). */
function pty(ctx: TestContext, args: string[], redirect = ""): Pty {
  const p = new Pty(args, redirect);
  ctx.onTestFinished(() => p.kill());
  return p;
}

describe.concurrent("conduit-mcp in a terminal", () => {
  it("a 40 s call with 8 progress steps completes with the default --timeout, a bar shown meanwhile", async (ctx) => {
    const run = pty(ctx, [
      "call",
      "trigger-long-running-operation",
      '{"duration":40,"steps":8}',
      ...everything,
    ]);
    expect(await run.exited).toBe(0);
    // Each notification redraws the bar in place; the last one before the result says 8/8.
    const bar = /\r\u001b\[2K\[#+\.*\] (\d+)% (\d+)s/g;
    const percents = [...run.screen.matchAll(bar)].map((m) => Number(m[1]));
    expect(percents).toEqual([13, 25, 38, 50, 63, 75, 88, 100]);
    expect(run.screen).toContain("Long running operation completed. Duration: 40 seconds, Steps: 8.");
    // The bar was erased before the result was printed.
    expect(run.screen.lastIndexOf("\r\u001b[2K")).toBeLessThan(run.screen.indexOf("Long running operation"));
  }, 90_000);

  it("the 13-field form answered after 35 s completes with the default --timeout", async (ctx) => {
    const run = pty(ctx, ["call", "trigger-elicitation-request", ...everything]);
    await run.shows("String (string, required): ");
    // A fixed wait, on purpose: a person answering after 35 s (past the old 30 s limit) is what
    // is under test, and the CLI runs in a pty child, out of reach of a fake clock.
    await new Promise((r) => setTimeout(r, 35_000));
    run.type(`Ada\r${"\r".repeat(12)}`);
    await run.shows("Send these answers? [Y/n] ");
    run.type("y\r");
    expect(await run.exited).toBe(0);
    expect(run.screen).toContain("User provided the requested information!");
    expect(run.screen).toContain("- Name: Ada");
    expect(run.screen).not.toContain("timed out");
  }, 90_000);

  it("Ctrl-D at a question cancels the form and moves to a new line", async (ctx) => {
    const run = pty(ctx, ["call", "trigger-elicitation-request", ...everything]);
    const after = await run.shows("String (string, required): ");
    run.type("\u0004");
    expect(await run.exited).toBe(0);
    // Whatever the terminal echoes for ^D, what follows starts on a line of its own.
    expect(run.screen.slice(after)).toMatch(/^(\^D)?(\u0008+)?\r?\n/);
    expect(run.screen).toContain("User cancelled the elicitation dialog.");
  }, 30_000);

  it("with --json, progress is one JSON line per update on stderr, and stdout stays one document", async (ctx) => {
    // stdout goes to a file: not a terminal; stderr still is one.
    const out = join(mkdtempSync(join(tmpdir(), "conduit-pty-")), "out.json");
    const run = pty(
      ctx,
      ["call", "trigger-long-running-operation", '{"duration":2,"steps":4}', "--json", ...everything],
      `2>&1 >${out}`,
    );
    expect(await run.exited).toBe(0);
    const document = readFileSync(out, "utf8");
    expect(document.trimEnd().split("\n")).toHaveLength(1);
    expect(JSON.parse(document).content[0].text).toContain("Long running operation completed");
    const lines = run.screen
      .split(/\r?\n/)
      .filter((l) => l.startsWith('{"type":"progress"'))
      .map((l) => JSON.parse(l) as { progress: number; total: number; elapsedMs: number });
    expect(lines.map((l) => [l.progress, l.total])).toEqual([
      [1, 4],
      [2, 4],
      [3, 4],
      [4, 4],
    ]);
  }, 30_000);
});
