/** The inspector: a local page over a hub (docs/inspect.md). Loaded only by `conduit-mcp inspect`. */
export { Desk } from "./desk.js";
export { InspectHostError, loopbackAddress } from "./guard.js";
export { type Inspector, type InspectorOptions, MAX_BODY, startInspector } from "./server.js";
