/**
 * `-32020` (header mismatch) to a modern `tools/call` over HTTP: the `x-mcp-header` annotations
 * the transport mirrored into `Mcp-Param-*` headers may be stale (the tool's schema changed).
 * The tools are listed again, every page (the transport learns the annotations from the results
 * passing through; the list cache keeps nothing of them), and the call is sent once more. A
 * second mismatch is the caller's error. The listing and the retry spend the call's deadline.
 */
import { jsonRpcCode } from "../shared/errors.js";
import type { JsonObject } from "../shared/guards.js";

/** Pages read at most in one refresh. */
const MAX_TOOL_PAGES = 100;
const HEADER_MISMATCH = -32020;

/**
 * Sends with `send()`; on a header mismatch where `modern()` (the code is the modern revision's)
 * lists the tools with `listPage(cursor)` and sends again.
 */
export async function withHeaderRefresh<T>(
  modern: () => boolean,
  send: () => Promise<T>,
  listPage: (cursor: string | undefined) => Promise<JsonObject>,
): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (jsonRpcCode(err) !== HEADER_MISMATCH || !modern()) throw err;
  }
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    let result: JsonObject;
    try {
      result = await listPage(cursor);
    } catch {
      break; // the retry says what is wrong, if anything still is
    }
    const next = result.nextCursor;
    if (typeof next !== "string" || next.length === 0) break;
    cursor = next;
  }
  return send();
}
