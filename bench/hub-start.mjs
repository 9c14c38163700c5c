// The start the hub benchmarks share (hub.mjs, scale.mjs, soak.mjs): a quiet hub over `servers`,
// its clients in one era, made ready, and which servers did not get there. Kept apart from the
// scripts, which parse their arguments and run as soon as they are imported.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const { Hub } = await import(join(HERE, "../dist/index.js"));
const quiet = { warn: () => {} };

/**
 * A hub over `servers`, after `hub.ready()`: `{ hub, notReady }`, the ids of the servers that are
 * not ready (the caller decides whether that is an error). Options: `protocol` (default
 * "legacy"), `requestTimeout`, `listTimeout`, `readyTimeout` (each the library's when not given).
 */
export async function startHub(servers, o = {}) {
  const hub = new Hub({
    servers,
    logger: quiet,
    clientOptions: {
      logger: quiet,
      protocol: o.protocol ?? "legacy",
      ...(o.requestTimeout === undefined ? {} : { requestTimeout: o.requestTimeout }),
    },
    ...(o.listTimeout === undefined ? {} : { listTimeout: o.listTimeout }),
  });
  const status = await hub.ready(o.readyTimeout === undefined ? undefined : { timeout: o.readyTimeout });
  const notReady = Object.entries(status.servers)
    .filter(([, s]) => s.state !== "ready")
    .map(([id]) => id);
  return { hub, notReady };
}
