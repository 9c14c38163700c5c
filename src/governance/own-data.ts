/**
 * Reading what the application's callbacks hand back (an approver's answer, a policy function's
 * verdict, a hook's call or result): own data properties only. A value inherited through the
 * prototype, or behind a getter, is not there: a getter is never run (what it says could change
 * between the check and the use, or it could throw), and `Object.prototype.allow = true` approves
 * nothing. A Proxy's traps may still throw: callers read inside {@link readOrNull}.
 */

/** The value of `key` when it is an own data property of `obj`, else undefined. */
export function ownData(obj: object, key: string): unknown {
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
