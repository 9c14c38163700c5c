/**
 * How deep a server's value nests. JSON.parse reads any depth, but everything downstream that
 * recurses (JSON.stringify, structuredClone, a schema walk) throws a RangeError somewhere past a
 * few thousand levels: the client refuses what is deeper than its limit before handing it on.
 */

/**
 * True when `value` nests at most `max` levels of objects and arrays (a scalar is 0, `{}` is 1).
 * It stops at the first branch deeper than `max`, so the recursion is bounded by `max` and the
 * cost by the size of the value: one pass, no allocation.
 */
export function withinDepth(value: unknown, max: number): boolean {
  return typeof value !== "object" || value === null || fits(value, max);
}

function fits(node: object, left: number): boolean {
  if (left <= 0) return false;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (typeof child === "object" && child !== null && !fits(child, left - 1)) return false;
    }
    return true;
  }
  // Parsed JSON has no inherited enumerable keys: for-in is the fastest walk over own keys.
  for (const key in node) {
    const child: unknown = (node as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null && !fits(child, left - 1)) return false;
  }
  return true;
}
