/**
 * `client.searchTools`: the tool search (src/search/) over this client's own listing, with the
 * same arguments as `hub.searchTools`; the filters that hide a tool from the list hide it here.
 */
import { ListingSearch, type SearchToolsOptions, type ToolSearchResult } from "../search/index.js";
import type { ListAllOptions } from "./lists.js";
import type { CallableTool } from "./tool-caller.js";
import type { ToolListOptions } from "./tool-filter.js";

/** `client.searchTools` options: the search's own, and `listCallableTools`'. */
export interface ClientSearchOptions extends SearchToolsOptions, ListAllOptions, ToolListOptions {}

export type ClientSearchResult = ToolSearchResult<CallableTool>;

export function clientSearch(
  list: (options: ListAllOptions & ToolListOptions) => Promise<CallableTool[]>,
): ListingSearch<CallableTool> {
  return new ListingSearch<CallableTool>((o) => list(o as ListAllOptions & ToolListOptions));
}
