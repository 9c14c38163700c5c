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

/** Whether `err` is the modern header mismatch (`-32020`). */
export function isHeaderMismatch(err: unknown): boolean {
  return jsonRpcCode(err) === HEADER_MISMATCH;
}

/**
 * Lists the tools again, every page, with `listPage(cursor)`: the transport learns the
 * annotations from the results passing through. A page that fails ends it (the retry says what
 * is wrong, if anything still is).
 */
export async function relistTools(
  listPage: (cursor: string | undefined) => Promise<JsonObject>,
): Promise<void> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    let result: JsonObject;
    try {
      result = await listPage(cursor);
    } catch {
      return;
    }
    const next = result.nextCursor;
    if (typeof next !== "string" || next.length === 0) return;
    cursor = next;
  }
}

/**
 * Sends with `send()`; on a header mismatch where `modern()` (the code is the modern revision's)
 * lists the tools with `listPage(cursor)` and sends again (the input loop's rounds; a plain tool
 * call does the same as a retry inside itself, tool-call-op.ts).
 */
export async function withHeaderRefresh<T>(
  modern: () => boolean,
  send: () => Promise<T>,
  listPage: (cursor: string | undefined) => Promise<JsonObject>,
): Promise<T> {
  try {
    return await send();
  } catch (err) {
    if (!isHeaderMismatch(err) || !modern()) throw err;
  }
  await relistTools(listPage);
  return send();
}
