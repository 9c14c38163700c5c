import { compileNameGlobs } from "../util/name-glob.js";
import { qualifyToolName } from "../util/qualify.js";
import type { Tool } from "./types.js";

/**
 * The Codex `list_tools` filters: `allow` (names or `*` globs), `deny`, and a `filter` function.
 * A tool is kept when no `deny` pattern matches it, `allow` is absent or one of its patterns
 * matches, and `filter` returns exactly `true`. Deny wins over allow; a filter that throws hides
 * the tool (fail closed). Names and globs match as `compileNameGlobs` folds them: case, Unicode
 * compatibility forms and invisible characters do not count (`Delete_Files` is `delete_files`).
 */
export interface ToolFilterOptions<T = Tool> {
  /** Names or `*` globs (`*` is any run of characters): only matching tools are kept. */
  allow?: readonly string[];
  /** Names or `*` globs: matching tools are left out, whatever `allow` says. */
  deny?: readonly string[];
  /** Keeps a tool only when it returns `true`. */
  filter?: (tool: T) => boolean;
}

export const TOOL_FILTER_KEYS = ["allow", "deny", "filter"] as const;

/** A compiled filter: `test(names, item)` says whether to keep an item known by any of `names`. */
export interface CompiledToolFilter<T> {
  readonly active: boolean;
  test(names: readonly string[], item: T): boolean;
}

const MAX_PATTERNS = 1_000;
const MAX_PATTERN_LENGTH = 1_024;

function patterns(value: unknown, path: string): ((name: string) => boolean) | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > MAX_PATTERNS) {
    throw new TypeError(`conduit-mcp: option "${path}" must be an array of names or "*" globs`);
  }
  value.forEach((p, i) => {
    if (typeof p !== "string" || p.length === 0 || p.length > MAX_PATTERN_LENGTH) {
      throw new TypeError(
        `conduit-mcp: option "${path}[${i}]" must be a non-empty name or "*" glob (at most ${MAX_PATTERN_LENGTH} characters)`,
      );
    }
  });
  return compileNameGlobs(value as string[]);
}

/**
 * Validates and compiles `allow`, `deny` and `filter` (a `TypeError` names a bad one, with
 * `prefix` before its key). `onThrow` hears of a filter function that threw.
 */
export function compileToolFilter<T>(
  options: { allow?: unknown; deny?: unknown; filter?: unknown } | undefined,
  prefix = "",
  onThrow?: (err: unknown) => void,
): CompiledToolFilter<T> {
  const at = (key: string) => (prefix ? `${prefix}.${key}` : key);
  const allow = patterns(options?.allow, at("allow"));
  const deny = patterns(options?.deny, at("deny"));
  const fn = options?.filter;
  if (fn !== undefined && typeof fn !== "function") {
    throw new TypeError(`conduit-mcp: option "${at("filter")}" must be a function`);
  }
  const active = allow !== undefined || deny !== undefined || fn !== undefined;
  return {
    active,
    test(names, item) {
      if (!active) return true;
      if (deny && names.some(deny)) return false;
      if (allow && !names.some(allow)) return false;
      if (fn) {
        try {
          return (fn as (t: T) => unknown)(item) === true;
        } catch (err) {
          onThrow?.(err);
          return false;
        }
      }
      return true;
    },
  };
}

/** `listAllTools` options beyond the listing's own: the filters, and `qualify`. */
export interface ToolListOptions extends ToolFilterOptions<Tool> {
  /** Add `qualifiedName` (`mcp__<serverId>__<name>`, see `qualifyToolName`) to each tool. */
  qualify?: boolean;
}

export const TOOL_LIST_KEYS = [...TOOL_FILTER_KEYS, "qualify"] as const;

/**
 * `listAllTools`' filters and `qualify` applied to a listing (`serverId` names the server part of
 * qualified names). Globs match the tool's own name.
 */
export function filterListedTools(
  tools: readonly Tool[],
  options: ToolListOptions,
  serverId: string,
  warn: (text: string) => void,
): Tool[] {
  const f = compileToolFilter<Tool>(options, "", () =>
    warn("a tool filter function threw; the tool is hidden"),
  );
  const kept = f.active ? tools.filter((t) => f.test([t.name], t)) : [...tools];
  return options.qualify === true
    ? kept.map((t) => ({ ...t, qualifiedName: qualifyToolName(serverId, t.name) }))
    : kept;
}
