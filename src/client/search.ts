/**
 * `client.searchTools`: the tool search (src/search/) over this client's own listing, with the
 * same arguments as `hub.searchTools`; the filters that hide a tool from the list hide it here.
 */
import { ListingSearch, type SearchToolsOptions, type ToolSearchResult } from "../search/index.js";
import type { Tool } from "../shared/tool.js";
import { dropHidden, hiddenTest } from "../shared/visibility.js";
import type { ListAllOptions } from "./lists.js";
import type { ResolvedClientOptions } from "./options.js";
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

const tests = new WeakMap<ResolvedClientOptions, ((tool: Tool) => boolean) | null>();

/**
 * The `ToolCaller` view of this client's `tools` (its server id on each), without the ones its
 * interceptors (a `governance(...)` one) always refuse: `listCallableTools`, and so `searchTools`
 * and the model tool lists, leave them out (docs/governance.md, "Hidden tools").
 */
export function callableIn(o: ResolvedClientOptions, tools: readonly Tool[]): CallableTool[] {
  const items = tools.map((tool) => ({ name: tool.name, serverId: o.serverId, tool }));
  let test = tests.get(o);
  if (test === undefined) {
    test = hiddenTest(o.interceptors, o.serverId, o.principal);
    tests.set(o, test);
  }
  return test === null ? items : dropHidden(items, (item) => test(item.tool));
}
