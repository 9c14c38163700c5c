// The CLI's terminal answers, run in-process over a real server: a terminal made of two streams
// (what the user types, what the CLI prints on stderr) stands in for the person.
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { streamTerminal } from "../src/cli/input.js";
import { runCli } from "../src/cli/run.js";
import { runCliWithTerminal } from "./support/cli-in-process.js";

const SERVER = fileURLToPath(new URL("./fixtures/input-official-server.mjs", import.meta.url));

const withTerminal = runCliWithTerminal;

describe.each(["modern", "legacy"] as const)("the CLI asks on a terminal (%s)", (era) => {
  const server = ["--", process.execPath, SERVER, era];

  it("a form, field by field, with titles, defaults and choices", async () => {
    // name, age (default), colour (choice 3), subscribe, then send.
    const run = await withTerminal(["call", "ask_form", "--json", ...server], ["Ada", "", "3", "y", "y"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent).toEqual({
      action: "accept",
      content: { name: "Ada", age: 30, color: "blue", subscribe: true },
    });
    expect(run.shown).toContain("asks: Who are you?");
    expect(run.shown).toContain("Your name (string, required): ");
    expect(run.shown).toContain("Age (integer, default 30): ");
    expect(run.shown).toContain("    3) blue\n");
    expect(run.shown).toContain("Send these answers? [Y/n] ");
  });

  it("two questions at once are asked one after the other, each answer to its own", async () => {
    const run = await withTerminal(
      ["call", "ask_two_forms", "--json", ...server],
      ["Ada", "y", "Paris", "y"],
    );
    expect(run.code, run.shown).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent).toEqual({ name: "Ada", city: "Paris" });
    // The second form starts after the first one's last line.
    expect(run.shown.indexOf("Where?")).toBeGreaterThan(run.shown.indexOf("Who?"));
  });

  it("a required field asked again; !decline declines", async () => {
    const run = await withTerminal(["call", "ask_form", "--json", ...server], ["", "!decline"]);
    expect(JSON.parse(run.stdout).structuredContent).toEqual({ action: "decline", content: null });
    expect(run.shown).toContain("this field is required");
  });

  it("input that ends mid-form cancels", async () => {
    const input = new PassThrough();
    const terminal = streamTerminal(input, new PassThrough());
    input.end("Ada\n");
    let stdout = "";
    await runCli(
      ["call", "ask_form", "--json", ...server],
      { stdout: (t) => (stdout += t), stderr: () => {} },
      undefined,
      terminal,
    );
    expect(JSON.parse(stdout).structuredContent).toEqual({ action: "cancel", content: null });
  });

  it("a URL is shown with its warnings and never opened", async () => {
    const url = "https://xn--pypal-4ve.example/login";
    const run = await withTerminal(["call", "ask_url", JSON.stringify({ url }), "--json", ...server], ["y"]);
    expect(JSON.parse(run.stdout).structuredContent).toEqual({ action: "accept" });
    expect(run.shown).toContain(`URL:  ${url}`);
    expect(run.shown).toContain("host: xn--pypal-4ve.example");
    expect(run.shown).toContain("punycode");
    expect(run.shown).toContain("not on the server's own origin");
    expect(run.shown).toContain("never opens links");
  });
});

/** Resolves once `read()` contains `text` (checked whenever the screen changes). */
function shownOn(screen: PassThrough, read: () => string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!read().includes(text)) return;
      screen.off("data", check);
      resolve();
    };
    screen.on("data", check);
    check();
  });
}

const EVERYTHING_SERVER = fileURLToPath(
  new URL("../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);

// server-everything's 13-field form: over the official fixture in the modern era, and from
// server-everything itself (legacy only) in the legacy one.
describe.concurrent.each([
  ["modern", "ask_everything_form", [process.execPath, SERVER, "modern"]],
  ["legacy", "trigger-elicitation-request", [process.execPath, EVERYTHING_SERVER, "stdio"]],
] as const)("the 13-field form (%s)", (_era, tool, server) => {
  it("answered after --timeout has passed completes: no deadline runs while the user is asked", async () => {
    const input = new PassThrough();
    const screen = new PassThrough();
    let shown = "";
    screen.setEncoding("utf8").on("data", (d: string) => (shown += d));
    const terminal = streamTerminal(input, screen);
    let stdout = "";
    // Long enough for server-everything to start on a loaded machine (the handshake has it too).
    const timeout = 5_000;
    const run = runCli(
      ["call", tool, "--timeout", String(timeout), "--json", "--", ...server],
      { stdout: (t) => (stdout += t), stderr: () => {} },
      undefined,
      terminal,
    );
    // Should the call end before asking, the test fails now rather than at its own timeout.
    const ended = run.then((code) => {
      throw new Error(`the CLI ended (${code}) before asking: ${stdout}`);
    });
    await Promise.race([shownOn(screen, () => shown, "String (string, required): "), ended]);
    ended.catch(() => {});
    // The person takes longer than --timeout (and than the handler's old timeout, --timeout).
    // A fixed wait, on purpose: the passing time is what is under test, and a fake clock cannot
    // reach timers armed before it (at the CLI's start) nor be shared by these concurrent tests.
    await new Promise((r) => setTimeout(r, timeout + 1_000));
    input.write(`Ada\n${"\n".repeat(12)}`);
    await shownOn(screen, () => shown, "Send these answers? [Y/n] ");
    input.write("y\n");
    const code = await run;
    terminal.close();
    expect(code).toBe(0);
    expect(stdout).toContain(tool === "ask_everything_form" ? '"action":"accept"' : "User provided");
    // Defaults were kept: the titled choice went as its value.
    if (tool === "ask_everything_form") {
      const content = JSON.parse(stdout).structuredContent.content;
      expect(content).toMatchObject({ name: "Ada", integer: 42, titledSingleSelectEnum: "hero-1" });
    }
    // A titled choice's default by its title; a summary before the question; no false alarm.
    expect(shown).toContain("Titled Single Select Enum (number or value, default Superman): ");
    expect(shown).toContain("Legacy Titled Single Select Enum (number or value, default Cats): ");
    const summary = shown.slice(shown.indexOf("  Your answers:\n"), shown.indexOf("Send these answers?"));
    expect(summary).toContain("    String: Ada\n");
    expect(summary).toContain("    Titled Single Select Enum: Superman\n");
    expect(summary).toContain("    Titled Multiple Select Enum: Tuna\n");
    expect(summary).toContain("    Boolean: (not given)\n");
    expect(shown).not.toContain("looks like it asks for a secret");
  });
});
