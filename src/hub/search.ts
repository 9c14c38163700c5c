/**
 * `hub.searchTools`: the tool search over the hub's own listing (src/search/), so a tool the
 * hub's allow/deny rules or a collision hide is never found, and a server's changed list reaches
 * the index with the next search.
 */
import { ListingSearch, type SearchToolsOptions, type ToolSearchResult } from "../search/index.js";
import { dropHidden } from "../shared/visibility.js";
import type { ServerChain } from "./dispatch.js";
import type { ServerSlot } from "./server-slot.js";
import type { HubListOptions, HubTool } from "./types.js";

export type { EmbedFunction, SearchToolsOptions } from "../search/index.js";

/** `hub.searchTools` options: the search's own, and `listTools`' (timeout, signal, refresh, filters). */
export interface HubSearchOptions extends SearchToolsOptions, HubListOptions {}

export type HubSearchResult = ToolSearchResult<HubTool>;

export function hubSearch(
  list: (options: HubListOptions) => Promise<HubTool[]>,
  watch: (changed: () => void) => void,
  slots?: ReadonlyMap<string, ServerSlot>,
): ListingSearch<HubTool> {
  return new ListingSearch<HubTool>(
    (o) => list(o as HubListOptions),
    watch,
    slots && (() => listState(slots)),
  );
}

/**
 * The hub's list state as the search reads it: each server and its last listing, by identity,
 * while every server is settled (it announces its changes, none heard since its listing, none
 * in flight, a list not private to credentials, not down): then a plain listing would give the
 * same tools, and the search reuses the last one instead of listing again (about one search in
 * twenty paid a full listing of thousands of tools when the 1 s reuse ran out).
 */
export function listState(slots: ReadonlyMap<string, ServerSlot>): unknown[] | null {
  const state: unknown[] = [];
  for (const slot of slots.values()) {
    if (slot.dirty || slot.listing || slot.uncached || slot.down || slot.tools === null) return null;
    // A server that may change unannounced is asked through its client's cache by each listing.
    if (!slot.announces()) return null;
    state.push(slot, slot.tools);
  }
  return state;
}

/**
 * Leaves out of a listing (in place) the tools a layer of their server's chain always refuses
 * (governance visibility, docs/governance.md): so the list, the search and every model tool list
 * built on them never carry one. Routes keep them: a call by name is refused by the policy.
 */
export function hideDenied(tools: HubTool[], chainOf: (serverId: string) => ServerChain | undefined): void {
  dropHidden(tools, (t) => chainOf(t.serverId)?.hidden?.(t.tool) === true);
}
