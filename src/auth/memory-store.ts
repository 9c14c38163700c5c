// The in-memory token store lives with the shared stores; re-exported for the modules that name it here.
export { MemoryTokenStore, storeKey } from "../stores/tokens.js";
