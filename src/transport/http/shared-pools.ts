/**
 * Which transports share connections: those with no connect options of their own (no TLS
 * settings, no `insecureSkipTlsVerify`, no `publicOnly` pinned lookup) to the same origin lease one
 * pool for the process, as clients on undici's global dispatcher share its sockets. A further
 * client then costs no socket of its own (an undici `Client`, its socket, streams and parser: ~4 KB
 * of heap and a kernel socket each). The others get a pool of their own, as does a transport with
 * a dispatcher of the user's (which never comes here). The last lease's end closes the sockets.
 */
import { type Connector, type PoolLease, SharedPool } from "./pool.js";

type Undici = Pick<typeof import("undici"), "Client" | "buildConnector">;

/**
 * The connector of pools with no connect options: one for the process, as the global
 * dispatcher's is (its TLS session cache is a Map, a FinalizationRegistry and a closure).
 */
const plainConnectors = new WeakMap<Undici, Connector>();
/** The shared pools by origin, while any transport leases them. */
const sharedPools = new WeakMap<Undici, Map<string, SharedPool>>();

/** A lease of `limit` connections at once to `origin`: shared when `connect` is empty. */
export function leasePool(
  undici: Undici,
  origin: string,
  connect: Record<string, unknown>,
  limit: number,
): PoolLease {
  if (Object.keys(connect).length > 0) {
    return new SharedPool(undici, origin, undici.buildConnector(connect as never)).lease(limit);
  }
  let pools = sharedPools.get(undici);
  if (!pools) {
    pools = new Map();
    sharedPools.set(undici, pools);
  }
  let pool = pools.get(origin);
  if (!pool) {
    const map = pools;
    const made: SharedPool = new SharedPool(undici, origin, plainConnector(undici), () => {
      if (map.get(origin) === made) map.delete(origin);
    });
    pool = made;
    pools.set(origin, pool);
  }
  return pool.lease(limit);
}

function plainConnector(undici: Undici): Connector {
  let shared = plainConnectors.get(undici);
  if (!shared) {
    shared = undici.buildConnector({});
    plainConnectors.set(undici, shared);
  }
  return shared;
}
