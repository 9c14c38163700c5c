/**
 * The part of undici the HTTP transport uses: `Client` with the request API, `Agent` (for a
 * credential provider's requests to other origins) and `buildConnector`. undici's index.js also
 * loads fetch, WebSocket, EventSource, the mock agents, the cache stores and every interceptor:
 * about 110 files, ~190 ms of CPU and ~4.3 MB of heap at the first HTTP start, against 32 files,
 * ~80 ms and ~1.3 MB for these (issue 12). The classes are the very ones undici's index exports
 * (same module instances), so a caller's own undici dispatcher and ours mix freely.
 *
 * undici has no exports map, so these files are reachable, but their layout is not a promise
 * across versions (the dependency is pinned exactly): if any is missing or is not what it was,
 * the whole package is loaded instead, and test/undici-core.test.ts fails to say so.
 */
import type * as Undici from "undici";

export type UndiciCore = Pick<typeof Undici, "Client" | "Agent" | "buildConnector">;

/** Loads the classes the transport uses; synchronous (CommonJS), once per process by the cache. */
export function loadUndiciCore(): UndiciCore {
  const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
  try {
    const Dispatcher = require("undici/lib/dispatcher/dispatcher.js");
    const api = require("undici/lib/api/index.js");
    const core: UndiciCore = {
      Client: require("undici/lib/dispatcher/client.js"),
      Agent: require("undici/lib/dispatcher/agent.js"),
      buildConnector: require("undici/lib/core/connect.js"),
    };
    // What undici's index.js does at load: the request API lives on Dispatcher.prototype.
    Object.assign(Dispatcher.prototype, api);
    if (
      typeof core.Client !== "function" ||
      typeof core.Agent !== "function" ||
      typeof core.buildConnector !== "function" ||
      !(core.Client.prototype instanceof Dispatcher) ||
      typeof core.Client.prototype.request !== "function"
    )
      throw new Error("undici's layout changed");
    return core;
  } catch {
    return require("undici") as typeof Undici;
  }
}
