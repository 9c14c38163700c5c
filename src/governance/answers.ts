/**
 * Reading what the application's callbacks hand back (an approver's answer, a policy function's
 * verdict, a hook's call or result): own data properties only. A value inherited through the
 * prototype, or behind a getter, is not there: a getter is never run (what it says could change
 * between the check and the use, or it could throw), and `Object.prototype.allow = true` approves
 * nothing. A Proxy's traps may still throw: callers read inside {@link readOrNull}.
 */

import { isObject } from "../shared/guards.js";
import type { ToolResult } from "../shared/tool.js";
import type { Verdict } from "./policy.js";
import type { Decision, HookCall } from "./types.js";

/** The value of `key` when it is an own data property of `obj`, else undefined. */
function ownData(obj: object, key: string): unknown {
  const d = Object.getOwnPropertyDescriptor(obj, key);
  return d !== undefined && "value" in d ? d.value : undefined;
}

/** `read()`, or null when reading threw (a Proxy trap): an unreadable answer is a malformed one. */
export function readOrNull<T>(read: () => T | null): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** A policy function's verdict, read from its own data; null when malformed. */
export function readVerdict(v: unknown): Verdict | null {
  const isDecision = (d: unknown): d is Decision => d === "allow" || d === "deny" || d === "ask";
  if (isDecision(v)) return { decision: v, reason: null, rule: null, retry: null };
  if (!isObject(v)) return null;
  const decision = ownData(v, "decision");
  const reason = ownData(v, "reason");
  const retry = ownData(v, "retry");
  if (!isDecision(decision)) return null;
  if (reason !== undefined && typeof reason !== "string") return null;
  if (retry !== undefined && retry !== "idempotent") return null;
  return { decision, reason: reason ?? null, rule: null, retry: retry ?? null };
}

/** What an approver's answer says, read from its own data; null when it says nothing valid. */
export function readApproval(
  answer: unknown,
): { allow: "once" | "session" } | { deny: string | null } | null {
  if (answer === true) return { allow: "once" };
  if (answer === false || answer === "deny") return { deny: null };
  if (!isObject(answer)) return null;
  const deny = ownData(answer, "deny");
  if (typeof deny === "string") return { deny };
  if (ownData(answer, "allow") !== true) return null;
  const remember = ownData(answer, "remember") ?? "once";
  return remember === "once" || remember === "session" ? { allow: remember } : null;
}

/**
 * A before-hook's arguments, from the call it returned: null unless it is the same tool, server
 * and principal (a hook may change the arguments, never which tool runs, where, or for whom).
 * They are copied once as plain data, so what is checked is what is sent.
 */
export function readHookArguments(out: unknown, call: HookCall): Record<string, unknown> | null {
  if (!isObject(out)) return null;
  if (
    ownData(out, "tool") !== call.tool ||
    ownData(out, "serverId") !== call.serverId ||
    ownData(out, "principal") !== call.principal
  ) {
    return null;
  }
  const args = ownData(out, "arguments");
  if (!isObject(args)) return null;
  const copy: unknown = structuredClone(args);
  return isObject(copy) ? copy : null;
}

/** An after-hook's result, rebuilt from its own data; null when it is not a `ToolResult`. */
export function readToolResult(v: unknown): ToolResult | null {
  if (!isObject(v)) return null;
  const out = {
    content: ownData(v, "content"),
    structured: ownData(v, "structured"),
    isError: ownData(v, "isError"),
    meta: ownData(v, "meta"),
    extra: ownData(v, "extra"),
  };
  return isToolResult(out) ? out : null;
}

export function isToolResult(v: unknown): v is ToolResult {
  return (
    isObject(v) &&
    Array.isArray(v.content) &&
    v.content.every(isObject) &&
    typeof v.isError === "boolean" &&
    (v.meta === null || isObject(v.meta)) &&
    isObject(v.extra)
  );
}
