/**
 * `hub.searchTools`: the tool search over the hub's own listing (src/search/), so a tool the
 * hub's allow/deny rules or a collision hide is never found, and a server's changed list reaches
 * the index with the next search.
 */
import { ListingSearch, type SearchToolsOptions, type ToolSearchResult } from "../search/index.js";
import type { HubListOptions, HubTool } from "./types.js";

export type { EmbedFunction, SearchToolsOptions } from "../search/index.js";

/** `hub.searchTools` options: the search's own, and `listTools`' (timeout, signal, refresh, filters). */
export interface HubSearchOptions extends SearchToolsOptions, HubListOptions {}

export type HubSearchResult = ToolSearchResult<HubTool>;

export function hubSearch(
  list: (options: HubListOptions) => Promise<HubTool[]>,
  watch: (changed: () => void) => void,
): ListingSearch<HubTool> {
  return new ListingSearch<HubTool>((o) => list(o as HubListOptions), watch);
}
