/**
 * What a fleet of workers shares, each part optional: a missing one is the in-memory default of
 * the client (or the hub) that is given the others.
 */
import type { BudgetStore } from "./budgets.js";
import type { EraStore } from "./eras.js";
import type { GrantStore } from "./grants.js";
import type { ListCacheStore } from "./lists.js";
import type { TokenStore } from "./tokens.js";

export type { BudgetStore, RateLimit } from "./budgets.js";
export { MemoryBudgetStore } from "./budgets.js";
export type { EraRecord, EraStore } from "./eras.js";
export { MemoryEraStore } from "./eras.js";
export type { Grant, GrantKey, GrantStore, ToolDefinition } from "./grants.js";
export { MemoryGrantStore } from "./grants.js";
export type { ListCacheStore, ListChangeListener, ListKey, ListKind, StoredList } from "./lists.js";
export { MemoryListCacheStore } from "./lists.js";
export type { StoredClient, StoredTokens, TokenEndpointAuthMethod, TokenKey, TokenStore } from "./tokens.js";
export { MemoryTokenStore, storeKey } from "./tokens.js";

/** The `stores` option of `Client` and `Hub`. */
export interface Stores {
  tokens?: TokenStore;
  grants?: GrantStore;
  lists?: ListCacheStore;
  eras?: EraStore;
  budgets?: BudgetStore;
}
