import { fileURLToPath } from "node:url";
import type { Client } from "../../src/index.js";
import type { ClientPool } from "./clients.js";
import { uniqueName } from "./clients.js";
import { everythingServer, nodeServer } from "./servers.js";

export const ADAPTER_HOSTILE = fileURLToPath(
  new URL("../fixtures/adapter-hostile-server.mjs", import.meta.url),
);

/** The hostile adapter fixture over stdio (see its header). */
export function hostileTransport() {
  return nodeServer(ADAPTER_HOSTILE, [], { stdinGrace: 100, termGrace: 200 });
}

/** Characters no sanitised text may hold: escapes, C0/C1 controls, bidi and zero-width marks. */
export const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2066-\u2069]/;

/**
 * The two servers every adapter test runs against, made in `pool` and ready: server-everything
 * (`serverId: "everything"`) and the hostile fixture (`"hostile"`), their names from `prefix`.
 */
export async function adapterPeers(
  pool: ClientPool,
  prefix: string,
): Promise<{ everything: Client; hostile: Client }> {
  const everything = pool.create({
    name: uniqueName(prefix),
    serverId: "everything",
    transport: everythingServer(),
  });
  const hostile = pool.create({
    name: uniqueName(prefix),
    serverId: "hostile",
    transport: hostileTransport(),
  });
  await Promise.all([everything.ready(), hostile.ready()]);
  return { everything, hostile };
}
