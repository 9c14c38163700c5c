/**
 * A fleet-wide rate limit: one token bucket per server in Redis, taken from by one Lua script
 * (atomic: the fleet together never exceeds `requests` per `perMs`). Redis's clock, so the
 * workers' clocks need not agree.
 */
import type { BudgetStore, RateLimit } from "../stores/budgets.js";
import type { RedisConn } from "./conn.js";
import type { Keys } from "./keys.js";

const TAKE = `local cap = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or cap
local at = tonumber(b[2]) or now
-- What this script writes is 0..cap and never after now; anything else (NaN, -1e15, a time far
-- ahead: another program's or a tampered value) would hold the bucket empty for good.
if not (tokens >= 0 and tokens <= cap) then tokens = cap end
if not (at <= now) then at = now end
local rate = cap / per
if now > at then
  tokens = math.min(cap, tokens + (now - at) * rate)
  at = now
end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], per * 2)
return wait`;

export class RedisBudgetStore implements BudgetStore {
  readonly #c: RedisConn;
  readonly #k: Keys;

  constructor(conn: RedisConn, keys: Keys) {
    this.#c = conn;
    this.#k = keys;
  }

  async take(key: string, limit: RateLimit): Promise<number> {
    const wait = await this.#c.run((c) =>
      c.eval(TAKE, {
        keys: [this.#k.budget(key)],
        arguments: [String(limit.requests), String(limit.perMs)],
      }),
    );
    return typeof wait === "number" && wait > 0 ? wait : 0;
  }
}
