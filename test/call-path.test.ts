/**
 * The files one tool call passes through, client and hub alike (docs/architecture.md "The call
 * pipeline"): no function there takes more than four positional parameters (issue 25). A step
 * that needs more takes one object, the call or its state, instead of a long list handed on.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../src");

const CALL_PATH = [
  "client/client.ts",
  "client/tool-calls.ts",
  "client/tool-call-op.ts",
  "client/request-call.ts",
  "client/requester.ts",
  "client/tasks.ts",
  "client/header-refresh.ts",
  "client/input/mrtr.ts",
  "shared/tool-call.ts",
  "telemetry/tool-call.ts",
  "governance/interceptor.ts",
  "governance/governor.ts",
  "hub/hub.ts",
  "hub/dispatch.ts",
  "connection/connection.ts",
  "connection/dispatch.ts",
  "connection/op.ts",
  "connection/pending.ts",
  "protocol/era.ts",
  "transport/stdio.ts",
];

const MAX_POSITIONAL = 4;

/** Every function with a body in `text` that takes more than `MAX_POSITIONAL` parameters. */
function longSignatures(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body && node.parameters.length > MAX_POSITIONAL) {
      const name =
        node.name?.getText(source) ?? (ts.isConstructorDeclaration(node) ? "constructor" : "(anonymous)");
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${file}:${line} ${name} takes ${node.parameters.length}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("the call path", () => {
  it("finds a long signature when there is one (the check can fail)", () => {
    const text =
      "export function f(a, b, c, d, e) {}\nconst g = (a, b, c, d) => a;\nclass K { m(a, b, c, d, e, f) {} }";
    expect(longSignatures("x.ts", text)).toEqual(["x.ts:1 f takes 5", "x.ts:3 m takes 6"]);
  });

  it("has no function taking more than four positional parameters", () => {
    const offenders = CALL_PATH.flatMap((file) =>
      longSignatures(file, readFileSync(resolve(SRC, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});
