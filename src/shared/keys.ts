/**
 * Objects keyed by what a server sent. `obj[key] = v` with the key `"__proto__"` does not store
 * a property: it replaces the object's prototype, and the value is lost (or, read back through
 * the prototype, mistaken for inherited data). Every object the client builds from server-chosen
 * keys stores them with {@link setOwn}, or refuses the key where a protocol gives it meaning.
 */

/** A key that plain assignment would not store as an own data property. */
export function isUnsafeKey(key: string): boolean {
  return key === "__proto__";
}

/** Stores `value` under `key` as an own, enumerable data property, whatever the key. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
