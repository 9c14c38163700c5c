import { inspect } from "node:util";

/**
 * A value that must never be printed: tokens, API keys, session ids.
 *
 * `String(secret)`, `JSON.stringify(secret)`, `util.inspect(secret)` and template strings all
 * render `[secret]`. Read the value with `reveal()` only where it leaves the process (a header,
 * a child's environment). Every live secret's value is also known to {@link redactSecrets}, so
 * an error message that somehow picked one up is scrubbed before anyone sees it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    if (typeof value !== "string") throw new TypeError("Secret value must be a string");
    this.#value = value;
    liveSecrets.add(value, this);
  }

  /** The wrapped value. Call it only where the value is handed to its intended recipient. */
  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return "[secret]";
  }

  toJSON(): string {
    return "[secret]";
  }

  [Symbol.toPrimitive](): string {
    return "[secret]";
  }

  [inspect.custom](): string {
    return "Secret([secret])";
  }

  static isSecret(value: unknown): value is Secret {
    return value instanceof Secret;
  }
}

/** A value that may be given as a plain string or as a {@link Secret}. */
export type MaybeSecret = string | Secret;

export function revealIfSecret(value: MaybeSecret): string {
  return value instanceof Secret ? value.reveal() : value;
}

/**
 * Values of the secrets that are still reachable, so messages can be scrubbed of them.
 * Values shorter than four characters are not tracked: scrubbing them would mangle ordinary text.
 */
class LiveSecrets {
  readonly #counts = new Map<string, number>();
  readonly #registry = new FinalizationRegistry<string>((value) => this.#release(value));

  add(value: string, holder: object): void {
    if (value.length < 4) return;
    this.#counts.set(value, (this.#counts.get(value) ?? 0) + 1);
    this.#registry.register(holder, value);
  }

  #release(value: string): void {
    const n = (this.#counts.get(value) ?? 1) - 1;
    if (n <= 0) this.#counts.delete(value);
    else this.#counts.set(value, n);
  }

  values(): IterableIterator<string> {
    return this.#counts.keys();
  }

  get size(): number {
    return this.#counts.size;
  }
}

const liveSecrets = new LiveSecrets();

/** Nesting kept by {@link redactValue}; below it a value is replaced by `"[truncated]"`. */
const MAX_REDACT_DEPTH = 32;

/**
 * A copy of a value with every live secret's value scrubbed from its strings, keys included (a
 * server may echo a token anywhere). Plain objects and arrays are copied, nested at most 32 levels
 * (deeper: `"[truncated]"`, so the copy can always be serialised); other values are kept as they are.
 */
export function redactValue(value: unknown): unknown {
  return redactAt(value, 0);
}

function redactAt(v: unknown, depth: number): unknown {
  if (typeof v === "string") return redactSecrets(v);
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    if (depth >= MAX_REDACT_DEPTH) return "[truncated]";
    return v.map((x) => redactAt(x, depth + 1));
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return v;
  if (depth >= MAX_REDACT_DEPTH) return "[truncated]";
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const key = redactSecrets(k);
    const val = redactAt(x, depth + 1);
    if (key === "__proto__")
      Object.defineProperty(out, key, { value: val, enumerable: true, writable: true, configurable: true });
    else out[key] = val;
  }
  return out;
}

/** Whether any secret is live (so text may need scrubbing). */
export function hasLiveSecrets(): boolean {
  return liveSecrets.size > 0;
}

/** Replaces every occurrence of a live secret's value (and of `extra` values) with `[secret]`. */
export function redactSecrets(text: string, extra: readonly string[] = []): string {
  if (liveSecrets.size === 0 && extra.length === 0) return text;
  let out = text;
  for (const value of liveSecrets.values()) {
    if (out.includes(value)) out = out.split(value).join("[secret]");
  }
  for (const value of extra) {
    if (value.length >= 4 && out.includes(value)) out = out.split(value).join("[secret]");
  }
  return out;
}
