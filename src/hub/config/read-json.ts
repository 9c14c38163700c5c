import { createRequire } from "node:module";
import type { Node, ParseError } from "jsonc-parser";
import { sanitizeText } from "../../shared/sanitize.js";

/** The deepest nesting a configuration file may have. */
export const MAX_CONFIG_DEPTH = 64;

/** A key twice in one object: JSON.parse keeps the last, silently dropping the first (a server). */
function duplicate(where: string, key: string): TypeError {
  const shown = JSON.stringify(sanitizeText(key, { maxLength: 100 }));
  return new TypeError(
    `${where}: the key ${shown} appears twice in one object (the second would replace the first)`,
  );
}

/**
 * The first key that appears twice in one object of `text`, which JSON.parse has accepted (so
 * the scan needs no error handling): one pass, a set of keys per open object.
 */
function duplicateKey(text: string): string | undefined {
  const open: Array<Set<string> | null> = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) open.push(new Set());
    else if (c === 0x5b) open.push(null);
    else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x22) {
      let end = i + 1;
      while (text.charCodeAt(end) !== 0x22) end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      const keys = open[open.length - 1];
      let next = end + 1;
      while (WHITESPACE.has(text.charCodeAt(next))) next++;
      if (keys && text.charCodeAt(next) === 0x3a) {
        // Decoded: "a" and "\u0061" are one key.
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
    }
  }
  return undefined;
}

/** JSON's whitespace: space, tab, line feed, carriage return. */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Parses a configuration file's text: strict JSON first; JSON with comments and trailing commas
 * (VS Code's `mcp.json`) through jsonc-parser, loaded only then. Keys named `__proto__` are
 * refused (an object built from them could inherit what the file put there), and so are a key
 * twice in one object and nesting deeper than `MAX_CONFIG_DEPTH`. Throws a `TypeError` that begins with `where`.
 */
export function readJson(text: string, where: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = readJsonc(text, where);
    checkShape(value, where);
    return value;
  }
  checkShape(value, where);
  const twice = duplicateKey(text);
  if (twice !== undefined) throw duplicate(where, twice);
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
        if (Object.hasOwn(obj, key)) throw duplicate(where, key);
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
