/**
 * Sets `key` as an own property of `target`. Plain assignment would not for the key
 * `"__proto__"` (it sets the prototype instead), and server-supplied names and model-supplied
 * keys can be exactly that.
 */
export function putOwn(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
