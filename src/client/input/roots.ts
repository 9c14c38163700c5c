/**
 * Roots sent to a server: only `file://` URIs on the local host, with `.` and `..` resolved
 * (and percent-encoded dot segments, which URL parsing also resolves). Anything else is left out.
 */
import { isObject, type JsonObject } from "../../shared/guards.js";

const MAX_ROOTS = 1000;

/** A root's URI as sent, or null when it is not a local `file://` URI. */
export function localFileUri(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 8192) return null;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return null;
  }
  if (u.protocol !== "file:") return null;
  if (u.hostname !== "" && u.hostname !== "localhost") return null;
  if (u.username || u.password || u.port) return null;
  // The URL parser resolved the dot segments; the host is dropped so every root reads file:///...
  u.hostname = "";
  u.search = "";
  u.hash = "";
  return u.href;
}

/** The callback's `ListRootsResult` made safe to send, or why it cannot be sent. */
export function checkRootsAnswer(
  answer: JsonObject,
): { result: JsonObject; dropped: number } | { invalid: string } {
  if (!Array.isArray(answer.roots)) return { invalid: "roots must be an array" };
  if (answer.roots.length > MAX_ROOTS) return { invalid: `more than ${MAX_ROOTS} roots` };
  const roots: JsonObject[] = [];
  let dropped = 0;
  for (const r of answer.roots) {
    const uri = isObject(r) ? localFileUri(r.uri) : null;
    if (uri === null || !isObject(r)) {
      dropped += 1;
      continue;
    }
    const root: JsonObject = { uri };
    if (typeof r.name === "string") root.name = r.name;
    if (isObject(r._meta)) root._meta = r._meta;
    roots.push(root);
  }
  return { result: { roots }, dropped };
}
