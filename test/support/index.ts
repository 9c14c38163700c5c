export * from "./async.js";
export * from "./clients.js";
export * from "./events.js";
export * from "./logger.js";
export * from "./servers.js";
export * from "./wire-tap.js";
