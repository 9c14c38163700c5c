import { Secret } from "../shared/secret.js";

/**
 * What the `tool_call` span carries for a payload when capture is on: what `redact` returned,
 * `{ truncated: bytes }` when its JSON is over `maxBytes` (never a partial value), or
 * `"redaction_failed"` when `redact` throws or returns something JSON cannot carry, a `Secret`
 * included. Never a hash of the payload.
 */
export function capturePayload(
  capture: { redact: (payload: unknown) => unknown; maxBytes: number },
  payload: unknown,
): unknown {
  try {
    const redacted = capture.redact(payload);
    const json = JSON.stringify(redacted, function (this: Record<string, unknown>, key, value) {
      if (this[key] instanceof Secret || value instanceof Secret) throw new Error("secret in payload");
      if (typeof value === "bigint") throw new Error("bigint in payload");
      return value;
    });
    if (json === undefined) return "redaction_failed";
    const bytes = Buffer.byteLength(json, "utf8");
    if (bytes > capture.maxBytes) return { truncated: bytes };
    return JSON.parse(json);
  } catch {
    return "redaction_failed";
  }
}
