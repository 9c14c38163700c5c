/**
 * Small checks for validating options in constructors. Each throws a `TypeError` that names the
 * option's full path (`transport.maxJunkLines`), before any I/O happens.
 */

import { OptionError, type OptionProblem } from "../shared/option-error.js";

export function fail(path: string, expected: string, problem: OptionProblem = "invalid"): never {
  throw new OptionError(path, problem, expected);
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function checkObject(v: unknown, path: string): Record<string, unknown> {
  if (!isPlainObject(v)) fail(path, "a plain object");
  return v;
}

/** Refuses keys outside `allowed`, naming the first unknown one. */
export function checkKeys(obj: Record<string, unknown>, allowed: readonly string[], prefix: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw new OptionError(`${prefix ? `${prefix}.` : ""}${key}`, "unknown");
    }
  }
}

export function optString(v: unknown, path: string): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string") fail(path, "a string");
  return v;
}

export function optBoolean(v: unknown, path: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "boolean") fail(path, "a boolean");
  return v;
}

/** A non-negative safe integer (milliseconds, counts, bytes); `min` raises the floor. */
export function optInt(v: unknown, path: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min || v > max) {
    fail(path, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`);
  }
  return v;
}

export function optFunction<T extends Function>(v: unknown, path: string): T | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "function") fail(path, "a function");
  return v as T;
}

export function optOneOf<T extends string>(v: unknown, path: string, values: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    fail(path, `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`);
  }
  return v as T;
}
