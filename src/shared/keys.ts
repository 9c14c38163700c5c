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

/**
 * Keys that name or reach an object's prototype. Arguments a model wrote that hold one, at any
 * depth, are refused before anything else sees them: a merge or a copy downstream (ours, a
 * hook's, a server's) could take them as the prototype and pollute every object in the process.
 */
export const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Where the first prototype key found in `value` is, as a path of keys (`/a/0/__proto__`), or
 * undefined when there is none. Iterative (no depth limit to overflow), each object visited once.
 */
export function findPrototypeKey(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, ""]];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    for (const key of Object.keys(node)) {
      const at = `${path}/${key}`;
      if (PROTOTYPE_KEYS.has(key)) return at;
      stack.push([(node as Record<string, unknown>)[key], at]);
    }
  }
  return undefined;
}
