/** The request `_meta` object: what the caller may add, and what the protocol puts there. */

const TRACEPARENT = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** A W3C `traceparent` of version 00 with non-zero ids. */
export function isValidTraceparent(v: unknown): v is string {
  return typeof v === "string" && TRACEPARENT.test(v);
}

/**
 * Keys a caller may not set: `progressToken` (the client owns it), every key under a reserved
 * prefix (one whose second label is `modelcontextprotocol` or `mcp`, such as
 * `io.modelcontextprotocol/` or `dev.mcp/`), and `tracestate` / `baggage`, which are never
 * propagated.
 */
export function isReservedMetaKey(key: string): boolean {
  if (key === "progressToken" || key === "tracestate" || key === "baggage") return true;
  const slash = key.indexOf("/");
  if (slash < 0) return false;
  const labels = key.slice(0, slash).split(".");
  const second = labels[1]?.toLowerCase();
  return second === "modelcontextprotocol" || second === "mcp";
}

/**
 * The caller's `meta` without reserved keys, with `traceparent` set from `meta.traceparent` or
 * else the `traceparent` option, and only when well formed. Undefined when nothing is left.
 */
export function callerMeta(
  meta: Readonly<Record<string, unknown>> | undefined,
  traceparent: string | undefined,
  includeTrace: boolean,
): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  if (meta) {
    for (const key of Object.keys(meta)) {
      if (isReservedMetaKey(key) || key === "traceparent") continue;
      out ??= {};
      out[key] = meta[key];
    }
  }
  if (includeTrace) {
    const tp = isValidTraceparent(meta?.traceparent)
      ? meta.traceparent
      : isValidTraceparent(traceparent)
        ? traceparent
        : undefined;
    if (tp !== undefined) {
      out ??= {};
      out.traceparent = tp;
    }
  }
  return out;
}
