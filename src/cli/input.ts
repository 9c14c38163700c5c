/**
 * The CLI's answers to server input. With a terminal: a form elicitation is asked field by field
 * (titles, descriptions, defaults, choices), a URL elicitation is shown as text with its
 * warnings and never opened. Without one, every elicitation is declined. `--root <dir>` gives
 * the roots. The CLI has no model, so it declares no sampling.
 */

import { basename, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { checkFormSchema, choiceLabels, type FormSchema } from "../client/input/form-schema.js";
import type { InputContext, InputHandler, JsonObject } from "../index.js";
import { sanitizeText } from "../index.js";

/** Where the questions go and the answers come from (stderr and stdin in the program). */
export interface Terminal {
  write(text: string): void;
  /** The next line the user types, or null when the input ended or `signal` aborted. */
  ask(prompt: string, signal: AbortSignal): Promise<string | null>;
}

/** A terminal over a readable and a writable stream; lines typed ahead of a question are kept. */
export function streamTerminal(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Terminal & { close(): void } {
  let rl: ReturnType<typeof createInterface> | undefined;
  const lines: string[] = [];
  let ended = false;
  let waiter: ((line: string | null) => void) | undefined;
  const open = () => {
    if (rl || ended) return;
    rl = createInterface({ input, terminal: false });
    rl.on("line", (line) => {
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w(line);
      } else lines.push(line);
    });
    rl.on("close", () => {
      ended = true;
      waiter?.(null);
      waiter = undefined;
    });
  };
  return {
    write: (text) => void output.write(text),
    ask(prompt, signal) {
      open();
      output.write(prompt);
      if (lines.length > 0) return Promise.resolve(lines.shift()!);
      if (ended || signal.aborted) return Promise.resolve(null);
      return new Promise((done) => {
        const onAbort = () => {
          waiter = undefined;
          done(null);
        };
        signal.addEventListener("abort", onAbort, { once: true });
        waiter = (line) => {
          signal.removeEventListener("abort", onAbort);
          done(line);
        };
      });
    },
    close() {
      rl?.close();
      rl = undefined;
    },
  };
}

export interface CliInputOptions {
  /** Directories given with `--root`. */
  roots: readonly string[];
  /** The user's terminal, or null when stdin is not one. */
  terminal: Terminal | null;
  /** Where notes go when there is no terminal (stderr). */
  note: (text: string) => void;
  /** Told when the user starts and stops being asked: the request's deadline stops meanwhile. */
  asking?: AskingHooks;
}

export interface AskingHooks {
  begin(): void;
  end(): void;
}

const line = (text: unknown, max = 300) =>
  sanitizeText(typeof text === "string" ? text : String(text), { maxLength: max });

export function cliHandler(o: CliInputOptions): InputHandler {
  // One person, one terminal: questions that come at once (a round's input requests, a legacy
  // server's concurrent requests) are asked one after the other, each to its end.
  let turn: Promise<unknown> = Promise.resolve();
  const handler: InputHandler = {
    elicitationModes: ["form", "url"],
    elicitation: (params, ctx) => {
      if (!o.terminal) {
        o.note(`declined a ${ctx.mode} elicitation from ${line(ctx.serverId)}: no terminal to ask on`);
        return { action: "decline" };
      }
      const terminal = o.terminal;
      const asked = turn.then(() => {
        o.asking?.begin();
        const one = ctx.mode === "url" ? askUrl(terminal, params, ctx) : askForm(terminal, params, ctx);
        return one.finally(() => o.asking?.end());
      });
      turn = asked.catch(() => {});
      return asked;
    },
  };
  if (o.roots.length > 0) {
    const roots = o.roots.map((dir) => {
      const abs = resolve(dir);
      return { uri: pathToFileURL(abs).href, name: basename(abs) || abs };
    });
    handler.listRoots = () => ({ roots });
  }
  return handler;
}

async function askUrl(t: Terminal, params: JsonObject, ctx: InputContext): Promise<JsonObject> {
  t.write(`\n${line(ctx.serverId)} asks you to open a link: ${line(params.message, 500)}\n`);
  t.write(`  URL:  ${line(ctx.url, 2000)}\n`);
  t.write(`  host: ${line(ctx.host)}\n`);
  if (ctx.idn) t.write("  warning: the host name uses punycode (xn--); it may imitate another name\n");
  if (ctx.originMismatch) t.write("  warning: the link is not on the server's own origin\n");
  t.write("  conduit-mcp never opens links; open it yourself if you trust it.\n");
  const a = await t.ask("Will you open it? [y/N] ", ctx.signal);
  if (a === null) return ended(t);
  return /^y(es)?$/i.test(a.trim()) ? { action: "accept" } : { action: "decline" };
}

async function askForm(t: Terminal, params: JsonObject, ctx: InputContext): Promise<JsonObject> {
  const schema = checkFormSchema(params.requestedSchema);
  if ("invalid" in schema) return { action: "decline" };
  t.write(`\n${line(ctx.serverId)} asks: ${line(params.message, 1000)}\n`);
  t.write('  (an empty answer keeps the default or skips an optional field; type "!decline" to refuse)\n');
  const content: JsonObject = {};
  for (const [name, p] of Object.entries(schema.properties)) {
    const got = await askField(t, schema, name, p, ctx);
    if (got === CANCEL) return ended(t);
    if (got === DECLINE) return { action: "decline" };
    if (got !== SKIP) content[name] = got;
  }
  // What will be sent, in the form's own terms (titles, choice labels), before it is sent.
  t.write("  Your answers:\n");
  for (const [name, p] of Object.entries(schema.properties)) {
    const shown = name in content ? display(content[name], choiceLabels(p)) : "(not given)";
    t.write(`    ${fieldTitle(name, p)}: ${shown}\n`);
  }
  const ok = await t.ask("Send these answers? [Y/n] ", ctx.signal);
  if (ok === null) return ended(t);
  return /^n(o)?$/i.test(ok.trim()) ? { action: "decline" } : { action: "accept", content };
}

/**
 * The input ended (Ctrl-D) or was abandoned: the next output starts on a line of its own, not
 * after the unanswered question. The server is told the user cancelled.
 */
function ended(t: Terminal): JsonObject {
  t.write("\n");
  return { action: "cancel" };
}

function fieldTitle(name: string, p: JsonObject): string {
  return line(typeof p.title === "string" ? p.title : name, 100);
}

/** A value as the user knows it: a choice by its label, a list comma-separated. */
function display(value: unknown, labels: Array<{ value: string; label: string }> | undefined): string {
  const one = (v: unknown) => {
    const label = labels?.find((c) => c.value === v)?.label;
    return line(label ?? (typeof v === "string" ? v : JSON.stringify(v)), 100);
  };
  return Array.isArray(value) ? value.map(one).join(", ") : one(value);
}

const CANCEL = Symbol("cancel");
const DECLINE = Symbol("decline");
const SKIP = Symbol("skip");

async function askField(
  t: Terminal,
  schema: FormSchema,
  name: string,
  p: FormSchema["properties"][string],
  ctx: InputContext,
): Promise<unknown> {
  const required = schema.required.includes(name);
  const labels = choiceLabels(p);
  const title = fieldTitle(name, p);
  if (typeof p.description === "string") t.write(`  ${line(p.description, 500)}\n`);
  if (ctx.fields?.[name]?.sensitiveSuspected) {
    t.write(
      "  warning: this field looks like it asks for a secret; servers must not ask for secrets in a form\n",
    );
  }
  for (const [i, c] of (labels ?? []).entries()) t.write(`    ${i + 1}) ${line(c.label, 100)}\n`);
  const hint = [
    p.type === "boolean"
      ? "y/n"
      : p.type === "array"
        ? "numbers or values, comma-separated"
        : labels
          ? "number or value"
          : p.type,
    p.default !== undefined ? `default ${display(p.default, labels)}` : required ? "required" : "optional",
  ].join(", ");
  for (let attempt = 0; attempt < 3; attempt++) {
    const answer = await t.ask(`  ${title} (${hint}): `, ctx.signal);
    if (answer === null) return CANCEL;
    const text = answer.trim();
    if (text === "!decline") return DECLINE;
    if (text === "") {
      if (p.default !== undefined) return p.default;
      if (!required) return SKIP;
      t.write("  this field is required\n");
      continue;
    }
    const value = parse(text, p, labels);
    if (value !== undefined) return value;
    t.write(`  not a valid ${p.type}\n`);
  }
  return CANCEL;
}

function parse(
  text: string,
  p: JsonObject,
  labels: Array<{ value: string; label: string }> | undefined,
): unknown {
  const pick = (s: string) => {
    if (!labels) return s;
    const n = Number(s);
    if (Number.isInteger(n) && n >= 1 && n <= labels.length) return labels[n - 1]!.value;
    return labels.find((c) => c.value === s || c.label === s)?.value;
  };
  switch (p.type) {
    case "boolean":
      if (/^(y|yes|true)$/i.test(text)) return true;
      if (/^(n|no|false)$/i.test(text)) return false;
      return undefined;
    case "number":
    case "integer": {
      const n = Number(text);
      if (!Number.isFinite(n) || (p.type === "integer" && !Number.isInteger(n))) return undefined;
      return n;
    }
    case "array": {
      const values = text.split(",").map((s) => pick(s.trim()));
      return values.every((v) => v !== undefined) ? values : undefined;
    }
    default:
      return pick(text);
  }
}
