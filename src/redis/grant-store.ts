/**
 * Approval grants in Redis: one hash per server (one slot), a field per `(tool, principal)`.
 * The digest is in the grant and checked on every read, so a changed definition stops
 * matching on every worker at once. Kept for `grantTtlMs` after the last grant of the server.
 */
import type { Grant, GrantKey, GrantStore } from "../stores/grants.js";
import type { RedisConn } from "./conn.js";
import type { Keys } from "./keys.js";

const PUT = `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** Deletes the fields of one tool (they start with its JSON prefix). */
const REVOKE_TOOL = `local n = 0
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, string.len(ARGV[1])) == ARGV[1] then
    redis.call('HDEL', KEYS[1], f)
    n = n + 1
  end
end
return n`;

/** HGET, unless the field is longer than ARGV[2] bytes (-1). */
const GET = `if redis.call('HSTRLEN', KEYS[1], ARGV[1]) > tonumber(ARGV[2]) then return -1 end
return redis.call('HGET', KEYS[1], ARGV[1])`;

/** A grant is a tool definition and a few names: far below this. */
const MAX_GRANT_BYTES = 4 * 1024 * 1024;

const isGrant = (g: Grant): boolean =>
  typeof g.digest === "string" &&
  Number.isFinite(g.grantedAt) &&
  typeof g.definition === "object" &&
  g.definition !== null &&
  !Array.isArray(g.definition);

export class RedisGrantStore implements GrantStore {
  readonly #c: RedisConn;
  readonly #k: Keys;
  readonly #ttl: number;

  constructor(conn: RedisConn, keys: Keys, grantTtlMs: number) {
    this.#c = conn;
    this.#k = keys;
    this.#ttl = grantTtlMs;
  }

  async get(key: GrantKey): Promise<Grant | undefined> {
    const g = await this.latest(key.principal, key.serverId, key.tool);
    return g && g.digest === key.digest ? g : undefined;
  }

  async latest(principal: string | null, serverId: string, tool: string): Promise<Grant | undefined> {
    const raw = await this.#c.run((c) =>
      c.eval(GET, {
        keys: [this.#k.grants(serverId)],
        arguments: [field(tool, principal), String(MAX_GRANT_BYTES)],
      }),
    );
    if (raw === -1) this.#c.reject("grants", "too_large");
    if (typeof raw !== "string") return undefined;
    let g: Grant | undefined;
    try {
      g = JSON.parse(raw) as Grant;
    } catch {
      g = undefined;
    }
    // The field says whose it is; the value must agree, and be a grant.
    if (g?.principal === principal && g.serverId === serverId && g.tool === tool && isGrant(g)) return g;
    this.#c.reject("grants", "malformed");
    return undefined;
  }

  async put(grant: Grant): Promise<void> {
    await this.#c.run((c) =>
      c.eval(PUT, {
        keys: [this.#k.grants(grant.serverId)],
        arguments: [field(grant.tool, grant.principal), JSON.stringify(grant), String(this.#ttl)],
      }),
    );
  }

  async revoke(serverId: string, tool?: string): Promise<void> {
    const name = this.#k.grants(serverId);
    if (tool === undefined) {
      await this.#c.run((c) => c.del(name));
      return;
    }
    const prefix = JSON.stringify([tool, null]).slice(0, -5);
    await this.#c.run((c) => c.eval(REVOKE_TOOL, { keys: [name], arguments: [prefix] }));
  }
}

/** `["tool",principal]`: JSON, so no name can forge another's field. */
function field(tool: string, principal: string | null): string {
  return JSON.stringify([tool, principal]);
}
