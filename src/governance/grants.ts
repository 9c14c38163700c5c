// The grant store lives with the shared stores (a fleet shares it); re-exported here.
export type { Grant, GrantKey, GrantStore } from "../stores/grants.js";
export { MemoryGrantStore } from "../stores/grants.js";
