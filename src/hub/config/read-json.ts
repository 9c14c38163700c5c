import { createRequire } from "node:module";
import type { Node, ParseError } from "jsonc-parser";

/** The deepest nesting a configuration file may have. */
export const MAX_CONFIG_DEPTH = 64;

/**
 * Parses a configuration file's text: strict JSON first; JSON with comments and trailing commas
 * (VS Code's `mcp.json`) through jsonc-parser, loaded only then. Keys named `__proto__` are
 * refused (an object built from them could inherit what the file put there), and so is nesting
 * deeper than `MAX_CONFIG_DEPTH`. Throws a `TypeError` that begins with `where`.
 */
export function readJson(text: string, where: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = readJsonc(text, where);
  }
  checkShape(value, where);
  return value;
}

let jsonc: typeof import("jsonc-parser") | undefined;

function readJsonc(text: string, where: string): unknown {
  jsonc ??= createRequire(import.meta.url)("jsonc-parser") as typeof import("jsonc-parser");
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  } catch (err) {
    // A recursive parser runs out of stack on absurd nesting.
    if (err instanceof RangeError) throw new TypeError(`${where}: nested too deeply to read`);
    throw err;
  }
  if (errors.length > 0 || root === undefined) {
    const first = errors[0];
    const at = first
      ? ` (${jsonc.printParseErrorCode(first.error)} at ${lineAndColumn(text, first.offset)})`
      : "";
    throw new TypeError(`${where}: not valid JSON${at}`);
  }
  return toValue(root, where);
}

/** A parse tree as plain values, without recursion. */
function toValue(root: Node, where: string): unknown {
  const out: { v?: unknown } = {};
  const stack: Array<{ node: Node; set: (v: unknown) => void; depth: number }> = [
    { node: root, set: (v) => (out.v = v), depth: 0 },
  ];
  while (stack.length > 0) {
    const { node, set, depth } = stack.pop()!;
    if (depth > MAX_CONFIG_DEPTH)
      throw new TypeError(`${where}: nested deeper than ${MAX_CONFIG_DEPTH} levels`);
    if (node.type === "object") {
      const obj: Record<string, unknown> = {};
      set(obj);
      for (const prop of node.children ?? []) {
        const [keyNode, valueNode] = prop.children ?? [];
        if (!keyNode || !valueNode) continue;
        const key = String(keyNode.value);
        if (key === "__proto__") throw new TypeError(`${where}: a key named "__proto__" is not allowed`);
        // Placed now, filled when its value is popped: the keys keep the file's order.
        obj[key] = null;
        stack.push({ node: valueNode, set: (v) => (obj[key] = v), depth: depth + 1 });
      }
    } else if (node.type === "array") {
      const arr: unknown[] = [];
      set(arr);
      (node.children ?? []).forEach((child, i) => {
        stack.push({ node: child, set: (v) => (arr[i] = v), depth: depth + 1 });
      });
    } else {
      set(node.value);
    }
  }
  return out.v;
}

/** Walks a parsed value without recursion: depth, and no `__proto__` keys. */
function checkShape(value: unknown, where: string): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth >= MAX_CONFIG_DEPTH)
      throw new TypeError(`${where}: nested deeper than ${MAX_CONFIG_DEPTH} levels`);
    if (Array.isArray(v)) {
      for (const item of v) stack.push([item, depth + 1]);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (key === "__proto__") throw new TypeError(`${where}: a key named "__proto__" is not allowed`);
      stack.push([(v as Record<string, unknown>)[key], depth + 1]);
    }
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}
