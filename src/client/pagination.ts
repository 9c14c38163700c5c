import { McpClientError } from "../shared/errors.js";
import { optInt } from "../util/option-check.js";

/**
 * Caps on a walk over every page of a list. Over any of them: `kind: "pagination_cycle"`. The
 * page and item caps are the defaults of the client's `maxListPages` and `maxListItems`.
 */
export const PAGINATION_LIMITS = {
  maxPages: 100,
  maxItems: 10_000,
  maxCursorBytes: 1024,
} as const;

/** The caps a client may raise (or lower): its `maxListPages` and `maxListItems`. */
export interface ListLimits {
  readonly maxPages: number;
  readonly maxItems: number;
}

/** The client's `maxListItems` and `maxListPages`; the defaults are one shared object (clients are many). */
export function resolveListLimits(items: unknown, pages: unknown): ListLimits {
  const maxItems = optInt(items, "maxListItems", 1);
  const maxPages = optInt(pages, "maxListPages", 1);
  if (maxItems === undefined && maxPages === undefined) return PAGINATION_LIMITS;
  return {
    maxItems: maxItems ?? PAGINATION_LIMITS.maxItems,
    maxPages: maxPages ?? PAGINATION_LIMITS.maxPages,
  };
}

export interface Page {
  items: unknown[];
  nextCursor: string | null;
}

/** Reads `nextCursor`: a string continues (an empty one ends, as sloppy servers mean it). */
export function readCursor(v: unknown): string | null {
  if (v === undefined || v === null || v === "") return null;
  if (typeof v !== "string") throw new McpClientError("protocol", "invalid_cursor");
  return v;
}

/**
 * Fetches every page. A repeated cursor, a cursor over 1 KiB, more than `limits.maxPages` pages
 * (default 100) or more than `limits.maxItems` items (default 10 000) stops the walk with
 * `pagination_cycle`; nothing of a failed walk is returned.
 */
export async function walkPages(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  limits: ListLimits = PAGINATION_LIMITS,
): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const page = await fetchPage(cursor);
    for (const item of page.items) items.push(item);
    if (items.length > limits.maxItems) throw new McpClientError("pagination_cycle", "max_items");
    const next = page.nextCursor;
    if (next === null) return items;
    if (Buffer.byteLength(next, "utf8") > PAGINATION_LIMITS.maxCursorBytes) {
      throw new McpClientError("pagination_cycle", "cursor_too_long");
    }
    if (seen.has(next)) throw new McpClientError("pagination_cycle", "repeated_cursor");
    if (pages >= limits.maxPages) throw new McpClientError("pagination_cycle", "max_pages");
    seen.add(next);
    cursor = next;
  }
}
