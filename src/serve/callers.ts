/**
 * Callers of an HTTP `serve`: bearer tokens mapped to principals, each with its own view of the
 * tools (`allow` / `deny` globs over the public names). A tool outside a caller's view is neither
 * listed nor callable for it.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { type CompiledToolFilter, compileToolFilter } from "../client/tool-filter.js";
import { type Env, interpolate } from "../hub/config/interpolate.js";

/** One caller: its bearer token, the principal it acts as, and its view of the tools. */
export interface Caller {
  token: string;
  principal: string;
  /** Public tool names or `*` globs the caller may see and call. Default: every tool. */
  allow?: readonly string[];
  /** Public tool names or globs hidden from the caller (deny wins over allow). */
  deny?: readonly string[];
}

/** A caller once its token matched: the principal and its compiled view. */
export interface CallerView {
  principal: string | null;
  sees(name: string): boolean;
}

/** Everyone (stdio, or HTTP without callers): every tool, no principal. */
export const EVERYONE: CallerView = { principal: null, sees: () => true };

const MIN_TOKEN = 16;

/** Checked callers, found by token in constant time per caller. */
export class Callers {
  readonly #entries: Array<{ digest: Buffer; view: CallerView }>;

  constructor(callers: readonly Caller[]) {
    if (!Array.isArray(callers) || callers.length === 0) {
      throw new TypeError('conduit-mcp: option "callers" must be a non-empty array');
    }
    const principals = new Set<string>();
    this.#entries = callers.map((c, i) => {
      const at = `callers[${i}]`;
      if (typeof c !== "object" || c === null)
        throw new TypeError(`conduit-mcp: option "${at}" must be an object`);
      for (const key of Object.keys(c)) {
        if (!["token", "principal", "allow", "deny"].includes(key)) {
          throw new TypeError(`conduit-mcp: option "${at}.${key}" is not known`);
        }
      }
      if (typeof c.token !== "string" || c.token.length < MIN_TOKEN) {
        throw new TypeError(
          `conduit-mcp: option "${at}.token" must be a string of at least ${MIN_TOKEN} characters`,
        );
      }
      if (typeof c.principal !== "string" || c.principal.length === 0 || c.principal.length > 256) {
        throw new TypeError(`conduit-mcp: option "${at}.principal" must be a non-empty string`);
      }
      if (principals.has(c.principal))
        throw new TypeError(`conduit-mcp: principal "${c.principal}" is given twice`);
      principals.add(c.principal);
      const filter: CompiledToolFilter<unknown> = compileToolFilter({ allow: c.allow, deny: c.deny }, at);
      return {
        digest: sha256(c.token),
        view: { principal: c.principal, sees: (name: string) => filter.test([name], null) },
      };
    });
  }

  /** The caller an `Authorization` header names, else null (missing, malformed or unknown). */
  find(authorization: string | undefined): CallerView | null {
    const m = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(authorization ?? "");
    if (!m) return null;
    const digest = sha256(m[1]!);
    let found: CallerView | null = null;
    // Every entry is compared (no early return), so timing does not tell which token is close.
    for (const e of this.#entries) if (timingSafeEqual(e.digest, digest)) found = e.view;
    return found;
  }
}

const sha256 = (s: string) => createHash("sha256").update(s).digest();

/**
 * Reads a callers file: `{ "callers": [{ "token": "${env:CALLER_A}", "principal": "alice",
 * "allow": [...], "deny": [...] }] }`. Tokens are interpolated from `env` (never written in the
 * file itself, so the file can be shared). Throws a `TypeError` naming the problem.
 */
export function readCallersFile(file: string, env: Env = process.env): Caller[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new TypeError(`conduit-mcp: cannot read the callers file: ${(err as Error).message}`);
  }
  const list = (doc as { callers?: unknown } | null)?.callers;
  if (!Array.isArray(list))
    throw new TypeError('conduit-mcp: the callers file must hold { "callers": [...] }');
  return list.map((c: unknown, i) => {
    const entry = { ...(c as Record<string, unknown>) };
    if (typeof entry.token !== "string")
      throw new TypeError(`conduit-mcp: callers[${i}].token must be a string`);
    try {
      entry.token = interpolate(entry.token, env).value;
    } catch (err) {
      throw new TypeError(`conduit-mcp: callers[${i}].token: ${(err as Error).message}`);
    }
    return entry as unknown as Caller;
  });
}
